// Accessibility: what a person with low vision sees. At 200% and 400%
// zoom of a 1280x800 window (640x400 and 320x200 CSS px) no page scrolls
// sideways, the page buttons' names are not cut inside a word, and an
// Atlas row shows its text with its buttons inside the row;
// a retired Atlas row stays readable (text contrast at least 4.5:1); the
// Overview chart's legend does not tell its two series apart by colour only.
//
//   HYATLAS_URL   the dashboard sign-in link
//   CHROMIUM      browser binary (default /usr/bin/chromium)
//
// It adds one memory by hand and retires it (as atlas.e2e.mjs does).
// Every check runs; the failures are listed together.
import { check, runChecks } from './checks.mjs';

const RETIRED = `a11y retired sample ${Date.now()}`;

const PAGES = ['status', 'atlas', 'palace', 'recall', 'snapshots', 'workspace', 'settings'];
const FILES = {
  status: 'StatusView.svelte',
  atlas: 'AtlasView.svelte',
  palace: 'MindPalaceView.svelte',
  recall: 'RecallView.svelte',
  snapshots: 'SnapshotsView.svelte',
  workspace: 'WorkspaceView.svelte',
  settings: 'SettingsModel.svelte',
};

// Each zoom is the CSS viewport a 1280x800 window has at it.
const ZOOMS = [
  ['200%', { width: 640, height: 400 }],
  ['400%', { width: 320, height: 200 }],
];

async function zoomed(page) {
  for (const [zoom, size] of ZOOMS) {
    await page.setViewportSize(size);
    await atZoom(page, zoom);
  }
  await page.setViewportSize(ZOOMS[0][1]);
}

async function atZoom(page, zoom) {
  for (const p of PAGES) {
    await page.click(`[data-testid="nav-${p}"]`);
    await page.waitForTimeout(1_000);
    const [scroll, client, widest] = await page.evaluate(() => {
      const doc = document.documentElement;
      let widest = '';
      let right = doc.clientWidth;
      for (const el of document.querySelectorAll('main *')) {
        const r = el.getBoundingClientRect().right;
        if (r > right + 1) {
          right = r;
          widest = `${el.tagName.toLowerCase()}${el.id ? '#' + el.id : ''}${el.dataset.testid ? `[${el.dataset.testid}]` : ''}`;
        }
      }
      return [doc.scrollWidth, doc.clientWidth, widest];
    });
    check(scroll <= client, `${p} (${FILES[p]}): at ${zoom} the page scrolls sideways (${scroll} > ${client} CSS px; widest: ${widest})`);
  }
  // A page button's name (and the header's name and version) is on one
  // line, or wraps between words, never inside one.
  const cut = await page.$$eval('header h1, header .version, nav button', (bs) =>
    bs
      .filter((b) => {
        const range = document.createRange();
        range.selectNodeContents(b);
        const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        return lines.size > b.textContent.trim().split(/\s+/).length;
      })
      .map((b) => b.textContent.trim()),
  );
  check(cut.length === 0, `App.svelte, AppHeader.svelte: at ${zoom} ${cut.join(', ')} break inside a word ("Overvi/ew")`);
  // An Atlas row (its height is fixed, atlas.ts rowHeight) keeps what it
  // shows inside it, and its text is not squeezed out by its buttons.
  await page.click('[data-testid="nav-atlas"]');
  const row = page.locator('[data-testid="atlas-row"]').first();
  await row.waitFor();
  const [spill, textWidth] = await row.evaluate((li) => {
    const box = li.getBoundingClientRect();
    const out = [...li.querySelectorAll('*')].filter((el) => {
      const r = el.getBoundingClientRect();
      return r.height > 0 && (r.bottom > box.bottom + 1 || r.right > box.right + 1);
    });
    const text = li.querySelector('[data-testid="row-open"]').getBoundingClientRect().width;
    return [out.map((el) => el.textContent.trim() || el.tagName.toLowerCase()).join(', '), text];
  });
  check(!spill, `Atlas (AtlasRow.svelte): at ${zoom} a row's ${spill} spill out of it`);
  // About 15 characters at least: enough to tell memories apart.
  check(textWidth >= 120, `Atlas (AtlasRow.svelte): at ${zoom} a row's text is ${Math.round(textWidth)} CSS px wide`);
}

async function retiredRow(page) {
  await page.click('[data-testid="nav-atlas"]');
  await page.click('[data-testid="add-open"]');
  await page.fill('[data-testid="add-content"]', RETIRED);
  await page.click('[data-testid="add-save"]');
  await page.fill('[data-testid="atlas-search"]', RETIRED);
  const row = page.locator('[data-testid="atlas-row"]', { hasText: RETIRED }).first();
  await row.waitFor();
  await row.locator('[data-testid="retire"]').click();
  await page.fill('[data-testid="retire-reason"]', 'contrast check');
  await page.click('[data-testid="retire-confirm"]');
  await page.check('[data-testid="atlas-show-retired"]');
  const retired = page.locator('[data-testid="atlas-row"].retired', { hasText: RETIRED }).first();
  await retired.waitFor();
  const worst = await retired.evaluate((li) => {
    const parse = (c) => c.match(/[\d.]+/g).map(Number);
    const lum = ([r, g, b]) => {
      const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const bg = parse(getComputedStyle(document.documentElement).backgroundColor);
    const op = Number(getComputedStyle(li).opacity);
    let worst = [99, ''];
    for (const el of li.querySelectorAll('.content, .strength, .tag, .meta > span')) {
      if (!el.textContent.trim()) continue;
      const c = parse(getComputedStyle(el).color);
      const eff = c.slice(0, 3).map((v, i) => v * op + bg[i] * (1 - op));
      const [hi, lo] = [lum(eff), lum(bg)].sort((a, b) => b - a);
      const ratio = (hi + 0.05) / (lo + 0.05);
      if (ratio < worst[0]) worst = [ratio, el.textContent.trim().slice(0, 30)];
    }
    return worst;
  });
  check(worst[0] >= 4.5, `Atlas (AtlasRow.svelte): a retired row's text "${worst[1]}" has contrast ${worst[0].toFixed(2)}:1 (li.retired opacity 0.6), under 4.5:1`);
}

async function legend(page) {
  await page.click('[data-testid="nav-status"]');
  const cap = page.locator('[data-testid="activity"] figcaption').first();
  if (!(await cap.count())) return;
  // The two series' marks are the same glyph in two colours: a mark needs a
  // shape, a pattern or a text of its own (the screen reader says "black square").
  const marks = await cap.evaluate((c) => [...c.querySelectorAll('span')].map((s) => `${s.textContent}|${s.getAttribute('aria-label') ?? ''}`));
  check(new Set(marks).size === marks.length, `Overview (ActivityChart.svelte): the legend marks ${marks.join(' / ')} differ by colour only`);
}

await runChecks('a11y visual e2e', [['zoom', zoomed], ['retired', retiredRow], ['legend', legend]], { viewport: { width: 640, height: 400 }, deviceScaleFactor: 2, colorScheme: 'light' });
