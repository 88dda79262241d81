// Shared helpers of the zz_review_* UI review scripts (not part of the suite).
//   HYATLAS_URL  the dashboard sign-in link printed by the server
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

export const SHOTS = '/tmp/uireview';
mkdirSync(SHOTS, { recursive: true });

export async function open({ width = 1200, height = 900, timezoneId, locale } = {}) {
  const profile = mkdtempSync(join(tmpdir(), 'hyatlas-review-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
    viewport: { width, height },
    ...(timezoneId ? { timezoneId } : {}),
    ...(locale ? { locale } : {}),
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(15_000);
  page.on('pageerror', (e) => console.log('PAGE ERROR:', e.message));
  page.on('dialog', (d) => { console.log('DIALOG (script ran!):', d.message()); d.dismiss(); });
  await page.goto(process.env.HYATLAS_URL);
  await page.locator('[data-testid="nav-atlas"]').waitFor();
  await page.waitForFunction(() => !!localStorage.getItem('hyatlas.session'));
  const close = async () => { await context.close(); rmSync(profile, { recursive: true, force: true }); };
  return { page, context, close };
}

/** fetch an API path from inside the page, with the dashboard session. */
export function api(page, method, path, body) {
  return page.evaluate(async ([method, path, body]) => {
    const r = await fetch('/api/v1' + path, { method, credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-HyAtlas-Session': localStorage.getItem('hyatlas.session') ?? '' },
      body: body === undefined ? undefined : JSON.stringify(body) });
    let j = null; try { j = await r.json(); } catch {}
    return { status: r.status, body: j };
  }, [method, path, body]);
}

export const focused = (page) => page.evaluate(() => {
  const a = document.activeElement;
  return a ? `${a.tagName.toLowerCase()}${a.getAttribute('data-testid') ? '[' + a.getAttribute('data-testid') + ']' : ''} "${(a.getAttribute('aria-label') || a.textContent || a.value || '').trim().slice(0, 40)}"` : 'none';
});

export const shot = (page, name, full = false) => page.screenshot({ path: join(SHOTS, name), fullPage: full });

export function report(ok, msg) {
  console.log(`${ok ? 'HOLDS ' : 'BUG   '} ${msg}`);
}
