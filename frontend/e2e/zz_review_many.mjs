// Many memories at 800x600: a retired row with a long reason (does the
// fixed-height row hold it?), and ↓ held from the first row through a
// list of 1,200 (does the focus stay on a row as the window of rendered
// rows moves?).
// Seed: node e2e/zz_review_many.mjs --seed | hyatlas import -
// Run:  HYATLAS_URL=<link> node e2e/zz_review_many.mjs
import { open, api, shot, report, focused } from './zz_review_lib.mjs';

if (process.argv[2] === '--seed') {
  const lines = [JSON.stringify({ type: 'header', format: 'hyatlas-export', version: 1 })];
  for (let i = 0; i < 1200; i++) lines.push(JSON.stringify({ type: 'memory', memory: { id: `mmany${String(i).padStart(5, '0')}`, layer: 'l3_fact',
    owner: { user_id: 'default' }, content: `Many review ${i}: a note about the garden`, category: 'fact', strength: 0.5,
    created_at: new Date(Date.UTC(2026, 0, 1) + i * 60_000).toISOString(), extraction: 'skipped' } }));
  lines.push(JSON.stringify({ type: 'end', memories: 1200, files: 0 }));
  process.stdout.write(lines.join('\n') + '\n');
} else {

const { page, close } = await open({ width: 800, height: 600 });
try {
  const m = await api(page, 'POST', '/memories', { content: 'Many review: retired with a long reason', strength: 0.95, category: 'preference' });
  await api(page, 'POST', `/memories/${m.body.memory_id ?? m.body.id}/retire`, { reason: 'no longer true since the move to the new office in the spring, confirmed by the user twice' });
  await page.click('[data-testid="nav-atlas"]');
  await page.check('[data-testid="atlas-show-retired"]');
  await page.fill('[data-testid="atlas-search"]', 'Many review: retired');
  const row = page.locator('[data-testid="atlas-row"]', { hasText: 'retired with a long reason' }).first();
  await row.waitFor();
  const fit = await row.evaluate((li) => ({ h: li.clientHeight, content: li.scrollHeight,
    restoreVisible: (() => { const b = li.querySelector('[data-testid="delete"]').getBoundingClientRect(); const r = li.getBoundingClientRect(); return b.bottom <= r.bottom + 1; })() }));
  report(fit.content <= fit.h + 1 && fit.restoreVisible, `a retired row at 800 px: row ${fit.h}px high, its content ${fit.content}px; Delete button inside the row: ${fit.restoreVisible}`);
  await row.scrollIntoViewIfNeeded();
  await shot(page, 'many-retired-row-800.png');
  await page.uncheck('[data-testid="atlas-show-retired"]');
  await page.fill('[data-testid="atlas-search"]', 'Many review');
  await page.selectOption('select:near([data-testid="atlas-band"])', 'date').catch(() => {});
  await page.waitForFunction(() => /of 1200 shown/.test(document.querySelector('[data-testid="atlas-count"]')?.textContent ?? ''));
  await page.locator('[data-testid="row-open"]').first().focus();
  let lost = null;
  for (let i = 0; i < 260; i++) {
    await page.keyboard.press('ArrowDown');
    if (i % 20 === 19) {
      const f = await page.evaluate(() => document.activeElement?.getAttribute('data-testid'));
      if (f !== 'row-open') { lost = `${i + 1} presses: focus on ${await focused(page)}`; break; }
    }
  }
  const count = await page.locator('[data-testid="atlas-count"]').textContent();
  report(!lost, `↓ through the list: ${lost ?? 'focus stayed on a row'}; ${count}; focused row: ${await focused(page)}`);
  await shot(page, 'many-arrowdown.png');
} finally {
  await close();
}
}
