// Measures the Atlas in Chromium against a store that already holds many
// memories (app/benchui_test.go seeds it):
//   - first paint: from opening the Atlas to its first row on screen;
//   - filter: from typing a filter to the list showing its result;
//   - scrolling: frames over 1.5 budgets (25 ms) while scrolling through
//     every loaded row at a steady pace, next to the same count for a page
//     of static rows (the floor of the measurement on this machine).
// Prints one JSON line with the numbers. HYATLAS_URL is the sign-in link.
// PERF_TRACE=FILE also writes a Chrome trace of the scroll (slow frames are
// marked "slow:<from>:<to>"), FILE.cpuprofile and FILE.heapprofile (what
// the scroll allocated), to find what a slow frame spent its time on.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

// scrollThrough runs in the page: from the top to the end, 120 px a frame,
// and reports the frames that took over 25 ms (a dropped frame at 60 Hz).
async function scrollThrough() {
  window.scrollTo(0, 0);
  // Settle at the top first: jumping there from the end redraws the page.
  await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
  const gaps = [];
  let last = performance.now();
  const end = document.body.scrollHeight - innerHeight;
  await new Promise((done) => {
    const step = (t) => {
      gaps.push(t - last);
      if (t - last > 25) performance.mark(`slow:${Math.round(last)}:${Math.round(t)}`);
      last = t;
      window.scrollBy(0, 120);
      if (scrollY >= end - 1 || gaps.length > 2000) done();
      else requestAnimationFrame(step);
    };
    requestAnimationFrame(step);
  });
  const slowAt = gaps.flatMap((g, i) => (g > 25 ? [`${i}:${Math.round(g)}ms`] : []));
  return { frames: gaps.length, slow: slowAt.length, slow_at: slowAt };
}

// The floor of this measurement: 2,000 rows of plain, static markup shaped
// like the Atlas's, no script, scrolled the same way in the same browser.
// Frames it drops are the machine's and the software renderer's, not the
// Atlas's.
function staticRows() {
  let rows = '';
  for (let i = 0; i < 2000; i++) {
    rows += `<li style="height:64px;contain:strict;display:flex;gap:12px;border-bottom:1px solid #ddd"><span>◌</span><div><div>Memory ${i} about tailwind and postgres, written for the benchmark</div><div style="font-size:13px;color:#666"><span style="display:inline-block;width:64px;height:6px;background:#ddd"></span> <span>0.${i % 100}</span> <span>fact</span> <span>l3_fact</span> <span>2026-01-01</span></div></div></li>`;
  }
  return `<!doctype html><meta charset="utf-8"><body style="font-family:sans-serif;margin:0 120px"><ul style="list-style:none;margin:0;padding:0">${rows}</ul>`;
}

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
  const loaded = async () => parseInt((await page.locator('[data-testid="atlas-count"]').textContent()) ?? '', 10) || 0;
  for (let i = 0; (await loaded()) < 2000; i++) {
    if (i > 100) throw new Error(`scrolling to the end loaded only ${await loaded()} rows`);
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await page.waitForTimeout(300);
  }
  const rows = await page.locator('[data-testid="atlas-row"]').count();
  const cdp = process.env.PERF_TRACE ? await context.newCDPSession(page) : null;
  const events = [];
  if (cdp) {
    cdp.on('Tracing.dataCollected', (e) => events.push(...e.value));
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
    await cdp.send('HeapProfiler.enable');
    await cdp.send('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    await cdp.send('Tracing.start', { categories: 'devtools.timeline,disabled-by-default-v8.gc,blink.user_timing', transferMode: 'ReportEvents' });
  }
  const frames = await page.evaluate(scrollThrough);
  if (cdp) {
    const done = new Promise((r) => cdp.once('Tracing.tracingComplete', r));
    await cdp.send('Tracing.end');
    await done;
    writeFileSync(process.env.PERF_TRACE, JSON.stringify(events));
    const { profile } = await cdp.send('Profiler.stop');
    writeFileSync(process.env.PERF_TRACE + '.cpuprofile', JSON.stringify(profile));
    const heap = await cdp.send('HeapProfiler.stopSampling');
    writeFileSync(process.env.PERF_TRACE + '.heapprofile', JSON.stringify(heap.profile));
  }
  const floor = await context.newPage();
  await floor.setContent(staticRows());
  const base = await floor.evaluate(scrollThrough);
  await floor.close();
  const baseline = { baseline_frames: base.frames, baseline_slow: base.slow };
  console.log(JSON.stringify({ total, first_paint_ms: median(paints), filter_ms: median(filters), filters, paints, rows_loaded: rows, ...frames, ...baseline }));
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
