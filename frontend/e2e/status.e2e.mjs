// End-to-end check of the live Status page against a running hyatlas server.
//
//   HYATLAS_URL    address that signs the browser in, e.g.
//                  http://127.0.0.1:PORT/dashboard/?code=XXXX
//   HYATLAS_API    server base, e.g. http://127.0.0.1:PORT
//   HYATLAS_TOKEN  bearer token for the API
//   E2E_SCREENSHOT where to save a screenshot (default /tmp/hyatlas-status.png)
//   CHROMIUM       browser binary (default /usr/bin/chromium)
//   E2E_DEGRADED_SECRET  when set, the server's extraction endpoint fails:
//                  the page must say so, and never show this key
//
// Opens the page, adds one memory through the API and waits until the page
// shows l2_raw, total and the month's written count up by exactly one,
// without a reload, and the title follows. Exits non-zero with a message on any failure.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const URL_ = process.env.HYATLAS_URL;
const API = process.env.HYATLAS_API?.replace(/\/+$/, '');
const TOKEN = process.env.HYATLAS_TOKEN;
const SHOT = process.env.E2E_SCREENSHOT || '/tmp/hyatlas-status.png';
const BROWSER = process.env.CHROMIUM || '/usr/bin/chromium';
const UPDATE_TIMEOUT_MS = 10_000;
const DEGRADED_SECRET = process.env.E2E_DEGRADED_SECRET;

function fail(msg) {
  console.error(`FAIL status e2e: ${msg}`);
  process.exitCode = 1;
  throw new Error(msg);
}

function titleFor(total) {
  return `HyAtlas · ${total} ${total === 1 ? 'memory' : 'memories'}`;
}

async function readCounts(page) {
  return page.evaluate(() => {
    const num = (sel) => {
      const el = document.querySelector(sel);
      const n = el ? Number.parseInt(el.textContent.trim(), 10) : Number.NaN;
      return Number.isNaN(n) ? null : n;
    };
    return {
      total: num('[data-testid="total"]'),
      raw: num('[data-testid="count-l2_raw"]'),
      written: (() => {
        const m = document.querySelector('[data-testid="activity"] figcaption')?.textContent?.match(/: (\d+) \(/);
        return m ? Number(m[1]) : null;
      })(),
      title: document.title,
      marker: window.__hyatlasE2eMarker ?? null,
    };
  });
}

async function main() {
  const missing = ['HYATLAS_URL', 'HYATLAS_API', 'HYATLAS_TOKEN'].filter((k) => !process.env[k]);
  if (missing.length) {
    console.error(`FAIL status e2e: missing environment: ${missing.join(', ')}`);
    process.exit(2);
  }
  if (!existsSync(BROWSER)) {
    console.error(`FAIL status e2e: no browser at ${BROWSER} (apt-get install chromium)`);
    process.exit(2);
  }

  const profile = mkdtempSync(join(tmpdir(), 'hyatlas-e2e-'));
  let context;
  let page;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: BROWSER,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
      viewport: { width: 1100, height: 900 },
    });
    page = context.pages()[0] ?? (await context.newPage());
    const pageErrors = [];
    page.on('pageerror', (err) => pageErrors.push(err.message));

    const res = await page.goto(URL_, { waitUntil: 'load', timeout: 15_000 });
    if (!res || !res.ok()) fail(`opening ${URL_} answered ${res ? res.status() : 'nothing'}`);

    try {
      await page.waitForSelector('[data-testid="total"]', { timeout: 10_000 });
    } catch {
      const banner = await page.locator('[data-testid="error-banner"]').textContent().catch(() => null);
      fail(
        `the status never appeared${banner ? `; banner: ${banner.trim().replace(/\s+/g, ' ')}` : ''}` +
          (pageErrors.length ? `; page errors: ${pageErrors.join(' | ')}` : ''),
      );
    }

    await page.waitForSelector('[data-testid="activity"] figcaption', { timeout: 10_000 });
    const before = await readCounts(page);
    if (before.total === null || before.raw === null || before.written === null) {
      fail(`could not read counts: ${JSON.stringify(before)}`);
    }

    // Survives only if the page is not reloaded or navigated.
    const marker = `m${Date.now()}`;
    await page.evaluate((m) => {
      window.__hyatlasE2eMarker = m;
    }, marker);
    let navigations = 0;
    page.on('framenavigated', (f) => {
      if (f === page.mainFrame()) navigations++;
    });

    const add = await fetch(`${API}/api/v1/add`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: 'e2e live update probe', user_id: 'e2e' }),
    }).catch((err) => fail(`POST ${API}/api/v1/add failed: ${err.message}`));
    if (!add.ok) {
      const body = await add.text().catch(() => '');
      fail(`POST ${API}/api/v1/add answered ${add.status}: ${body.slice(0, 300)}`);
    }

    const want = {
      total: before.total + 1,
      raw: before.raw + 1,
      written: before.written + 1,
      title: titleFor(before.total + 1),
    };
    const deadline = Date.now() + UPDATE_TIMEOUT_MS;
    let now = before;
    for (;;) {
      now = await readCounts(page);
      if (now.total > want.total || now.raw > want.raw) {
        fail(`counts rose by more than one: before ${JSON.stringify(before)}, now ${JSON.stringify(now)}`);
      }
      if (now.total === want.total && now.raw === want.raw && now.written === want.written && now.title === want.title) {
        break;
      }
      if (Date.now() > deadline) {
        fail(
          `page did not update within ${UPDATE_TIMEOUT_MS / 1000} s: ` +
            `want total=${want.total} l2_raw=${want.raw} written=${want.written} title="${want.title}", ` +
            `have total=${now.total} l2_raw=${now.raw} written=${now.written} title="${now.title}"`,
        );
      }
      await new Promise((r) => setTimeout(r, 200));
    }
    if (navigations > 0 || now.marker !== marker) fail('the page reloaded instead of updating live');

    let degraded = '';
    if (DEGRADED_SECRET) {
      const note = page.locator('[data-testid="write-pipeline"]');
      try {
        await note.waitFor({ timeout: UPDATE_TIMEOUT_MS });
      } catch {
        fail('the extraction endpoint fails but the page does not say so');
      }
      degraded = (await note.textContent()).trim().replace(/\s+/g, ' ');
      if (!degraded.startsWith('The last extraction failed:')) fail(`unexpected note: ${degraded}`);
      const html = await page.content();
      if (html.includes(DEGRADED_SECRET)) fail('the page shows the extraction key');
    }

    await page.screenshot({ path: SHOT, fullPage: true });
    console.log(
      `PASS status e2e: total ${before.total}→${now.total}, l2_raw ${before.raw}→${now.raw}, ` +
        `title "${now.title}"${degraded ? `, note "${degraded}"` : ''}, screenshot ${SHOT}`,
    );
  } catch (err) {
    if (!process.exitCode) console.error(`FAIL status e2e: ${err?.message ?? err}`);
    process.exitCode = 1;
    if (page) await page.screenshot({ path: SHOT, fullPage: true }).catch(() => {});
  } finally {
    await context?.close().catch(() => {});
    rmSync(profile, { recursive: true, force: true });
  }
}

await main();
