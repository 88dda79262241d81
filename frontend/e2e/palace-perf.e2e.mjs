// Measures the Mind Palace on a large graph: how long the page takes to
// show it, how long one step of the playhead takes to redraw, and the
// frame rate while it plays at 16×. Prints one JSON line.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const profile = mkdtempSync(join(tmpdir(), 'hyatlas-pperf-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
  viewport: { width: 1200, height: 1000 },
});
try {
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(120_000);
  await page.goto(process.env.HYATLAS_URL);
  const t0 = Date.now();
  await page.click('[data-testid="nav-palace"]');
  await page.locator('[data-testid="mp-counts"]').waitFor();
  const load = Date.now() - t0;
  await page.click('[data-testid="mp-axis-recorded"]');
  // Go to the start, then step forward through changes, timing each redraw.
  await page.evaluate(() => {
    const el = document.querySelector('[data-testid="mp-playhead"]');
    el.value = el.min;
    el.dispatchEvent(new Event('input', { bubbles: true }));
  });
  const steps = [];
  for (let i = 0; i < 20; i++) {
    const before = await page.locator('[data-testid="mp-date"]').textContent();
    const s0 = Date.now();
    await page.click('[data-testid="mp-next"]');
    await page.waitForFunction((b) => document.querySelector('[data-testid="mp-date"]')?.textContent !== b, before, { polling: 5 });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    steps.push(Date.now() - s0);
  }
  await page.selectOption('select[aria-label="Speed"]', '16');
  await page.click('[data-testid="mp-play"]');
  const fps = await page.evaluate(
    () =>
      new Promise((done) => {
        let frames = 0;
        const start = performance.now();
        const tick = (t) => {
          frames++;
          if (t - start < 3000) requestAnimationFrame(tick);
          else done((frames * 1000) / (t - start));
        };
        requestAnimationFrame(tick);
      }),
  );
  const counts = await page.locator('[data-testid="mp-counts"]').textContent();
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(JSON.stringify({ load_ms: load, step_ms_median: median(steps), step_ms_max: Math.max(...steps), fps_playing: Math.round(fps), at_end: counts }));
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
