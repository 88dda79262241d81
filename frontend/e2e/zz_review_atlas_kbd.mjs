// Atlas from the keyboard and when an action fails.
//  1. The details drawer: where Tab / Shift+Tab go from its Close button.
//  2. Escape in the Search box (clearing it) while an Edit is open.
//  3. A promote that succeeds, then one refused with a 503 storage fault:
//     does the page still say "Promoted."?
// Run: HYATLAS_URL=<link> node e2e/zz_review_atlas_kbd.mjs
import { open, api, shot, report, focused } from './zz_review_lib.mjs';

const { page, close } = await open({ width: 1200, height: 800 });
try {
  for (const c of ['Kbd review one: likes green tea', 'Kbd review two: walks to work']) await api(page, 'POST', '/memories', { content: c });
  await page.click('[data-testid="nav-atlas"]');
  await page.fill('[data-testid="atlas-search"]', 'Kbd review');
  const row = page.locator('[data-testid="atlas-row"]', { hasText: 'Kbd review one' }).first();
  await row.waitFor();

  // 1. drawer
  await row.locator('[data-testid="row-open"]').focus();
  await page.keyboard.press('Enter');
  await page.locator('[data-testid="drawer"] dl').waitFor();
  const start = await focused(page);
  await page.keyboard.press('Shift+Tab');
  const back = await page.evaluate(() => ({ inDrawer: !!document.activeElement?.closest('[data-testid="drawer"]'), what: document.activeElement?.getAttribute('data-testid') ?? document.activeElement?.tagName }));
  report(back.inDrawer, `drawer open, focus on ${start}; Shift+Tab moves the focus to ${back.what}, ${back.inDrawer ? 'inside' : 'behind'} the drawer`);
  await shot(page, 'atlas-drawer-focus-behind.png');
  await page.keyboard.press('Escape');

  // 2. Escape in Search while an Edit is open
  await row.locator('[data-testid="edit"]').click();
  await page.fill('[data-testid="edit-text"]', 'Kbd review one: likes green tea, and oolong on Sundays (typed, not saved)');
  await page.focus('[data-testid="atlas-search"]');
  await page.keyboard.press('Escape');
  await page.waitForTimeout(300);
  const editOpen = await page.locator('[data-testid="edit-text"]').count();
  report(editOpen === 1, `Escape in the Search box ${editOpen ? 'kept' : 'closed'} the open Edit form (typed text ${editOpen ? 'kept' : 'lost, no question asked'})`);
  await shot(page, 'atlas-escape-search-lost-edit.png');
  await page.fill('[data-testid="atlas-search"]', 'Kbd review');

  // 3. success, then a refused promote
  await row.waitFor();
  await row.locator('[data-testid="promote"]').click();
  await page.locator('[data-testid="atlas-notice"]', { hasText: 'Promoted.' }).waitFor();
  await page.route('**/api/v1/memories/*/promote', (r) => r.fulfill({ status: 503, contentType: 'application/json',
    body: JSON.stringify({ error: 'storage unavailable: no space left on device', code: 'storage_unavailable' }) }));
  const before = (await row.locator('[data-testid="row-strength"]').textContent()).trim();
  await row.locator('[data-testid="promote"]').click();
  await page.locator('[data-testid="atlas-error"]').waitFor();
  const notice = await page.locator('[data-testid="atlas-notice"]').textContent().catch(() => '');
  const after = (await row.locator('[data-testid="row-strength"]').textContent()).trim();
  report(!notice.includes('Promoted'), `after a refused promote (strength stays ${before} → ${after}) the page shows error "${await page.locator('[data-testid="atlas-error"]').textContent()}" and still the notice "${notice.trim()}"`);
  await shot(page, 'atlas-stale-success-notice.png');
  await page.unroute('**/api/v1/memories/*/promote');
} finally {
  await close();
}
