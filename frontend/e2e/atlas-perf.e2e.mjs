// Measures the Atlas in Chromium against a store that already holds many
// memories (app/benchui_test.go seeds it):
//   - first paint: from opening the Atlas to its first row on screen;
//   - filter: from typing a filter to the list showing its result;
//   - scrolling: frames over 1.5 budgets (25 ms) while scrolling through
//     every loaded row at a steady pace.
// Prints one JSON line with the numbers. HYATLAS_URL is the sign-in link.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const profile = mkdtempSync(join(tmpdir(), 'hyatlas-perf-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  viewport: { width: 1200, height: 900 },
});
try {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(process.env.HYATLAS_URL);
  await page.locator('[data-testid="nav-atlas"]').waitFor();
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

  const paints = [];
  for (let i = 0; i < 5; i++) {
    await page.click('[data-testid="nav-status"]');
    const t0 = Date.now();
    await page.click('[data-testid="nav-atlas"]');
    await page.locator('[data-testid="atlas-row"]').first().waitFor();
    paints.push(Date.now() - t0);
  }
  const total = await page.locator('[data-testid="atlas-count"]').textContent();

  const filters = [];
  for (const word of ['tailwind', 'postgres', 'friday', 'kubernetes', 'espresso']) {
    const before = await page.locator('[data-testid="atlas-count"]').textContent();
    const t0 = Date.now();
    await page.fill('[data-testid="atlas-search"]', word);
    try {
      await page.waitForFunction(
        (w) => {
          const c = document.querySelector('[data-testid="atlas-count"]')?.textContent ?? '';
          const rows = [...document.querySelectorAll('[data-testid="atlas-row"]')].slice(0, 20);
          return !c.startsWith('Loading') && rows.length > 0 && rows.every((r) => r.textContent.includes(w));
        },
        word,
        { polling: 10, timeout: 10_000 },
      );
    } catch (err) {
      const now = await page.locator('[data-testid="atlas-count"]').textContent();
      throw new Error(`filter ${word}: the count stayed ${JSON.stringify(before)} (now ${JSON.stringify(now)}): ${err.message}`);
    }
    filters.push(Date.now() - t0);
  }
  await page.fill('[data-testid="atlas-search"]', '');
  await page.locator('[data-testid="atlas-row"]').first().waitFor();
  // Load 2,000 rows, then scroll through them at a steady pace.
  for (let i = 0; i < 9; i++) {
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await page.waitForTimeout(400);
  }
  const rows = await page.locator('[data-testid="atlas-row"]').count();
  const frames = await page.evaluate(async () => {
    window.scrollTo(0, 0);
    // Settle at the top first: jumping there from the end redraws the page.
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const gaps = [];
    let last = performance.now();
    const end = document.body.scrollHeight - innerHeight;
    await new Promise((done) => {
      const step = (t) => {
        gaps.push(t - last);
        last = t;
        window.scrollBy(0, 120);
        if (scrollY >= end - 1 || gaps.length > 2000) done();
        else requestAnimationFrame(step);
      };
      requestAnimationFrame(step);
    });
    const slowAt = gaps.flatMap((g, i) => (g > 25 ? [`${i}:${Math.round(g)}ms`] : []));
    return { frames: gaps.length, slow: slowAt.length, slow_at: slowAt };
  });
  console.log(JSON.stringify({ total, first_paint_ms: median(paints), filter_ms: median(filters), filters, paints, rows_loaded: rows, ...frames }));
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
