// Steps of the walk in atlas.e2e.mjs, kept here to keep that file short:
// an action far down the Atlas list keeps its place, and the Snapshots
// page (make, restore, undo, one question at a time, delete).
import { join } from 'node:path';

const SHOTS = process.env.E2E_SHOTS || '/tmp/hyatlas-shots';

function check(ok, msg) {
  if (!ok) throw new Error(msg);
}

// An action on a row far down the list keeps the rows loaded (and so the
// scroll): the list is read again as long as it was, not cut to one page.
export async function keepsItsPlace(page) {
  await page.evaluate(async () => {
    for (let i = 0; i < 260; i += 20) {
      await Promise.all(Array.from({ length: 20 }, (_, j) => fetch('/api/v1/memories', { method: 'POST', credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json', 'X-HyAtlas-Session': localStorage.getItem('hyatlas.session') ?? '' }, body: JSON.stringify({ content: `Filler note ${i + j} about the garden` }) })));
    }
  });
  await page.reload();
  await page.click('[data-testid="nav-atlas"]');
  const loaded = async () => parseInt((await page.locator('[data-testid="atlas-count"]').textContent()) ?? '', 10) || 0;
  for (let i = 0; (await loaded()) <= 200; i++) {
    if (i > 50) throw new Error(`scrolling loaded only ${await loaded()} rows`);
    await page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
    await page.waitForTimeout(200);
  }
  const before = await loaded();
  // The list renders only the rows near the screen, so "the last row" is a
  // moving target as the page scrolls: hold on to one row by its id.
  const farId = await page.locator('[data-testid="atlas-row"]').last().getAttribute('data-id');
  const row = page.locator(`[data-testid="atlas-row"][data-id="${farId}"]`);
  await row.locator('[data-testid="promote"]').scrollIntoViewIfNeeded();
  const y = await page.evaluate(() => window.scrollY);
  await row.locator('[data-testid="promote"]').click();
  await page.locator('[data-testid="atlas-notice"]', { hasText: 'Promoted' }).waitFor({ timeout: 10_000 });
  await page.waitForFunction(() => !document.querySelector('[data-testid="atlas-count"]')?.textContent?.startsWith('Loading'));
  check((await loaded()) >= before, `after a promote the list shows ${await loaded()} rows, had ${before}`);
  const y2 = await page.evaluate(() => window.scrollY);
  check(Math.abs(y2 - y) < 400, `a promote moved the list from ${y} to ${y2} (rows ${before} -> ${await loaded()})`);
  // Edit on that row: the form is in view and has the focus; Escape closes it.
  const editedId = await page.locator('[data-testid="atlas-row"]').last().getAttribute('data-id');
  await page.locator(`[data-testid="atlas-row"][data-id="${editedId}"] [data-testid="edit"]`).click();
  const form = page.locator('form[aria-label="Edit a memory"]');
  await form.waitFor({ timeout: 10_000 });
  const box = await form.boundingBox();
  check(box && box.y >= 0 && box.y + box.height <= (await page.evaluate(() => innerHeight)), `the edit form is out of view (${JSON.stringify(box)})`);
  check((await page.evaluate(() => document.activeElement?.getAttribute('data-testid'))) === 'edit-text', 'the edit form did not take the focus');
  await page.keyboard.press('Escape');
  await form.waitFor({ state: 'detached', timeout: 10_000 });
  // The focus goes back to the row's Edit, not to the top of the page.
  await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'edit', null, { timeout: 5_000 })
    .catch(() => {});
  const back = await page.evaluate(() => [document.activeElement?.getAttribute('data-testid'),
    document.activeElement?.closest('[data-testid="atlas-row"]')?.getAttribute('data-id')]);
  check(back[0] === 'edit' && back[1] === editedId, `after Escape the focus is on ${back}, not the Edit of ${editedId}`);
}

export async function snapshots(page) {
  await page.click('[data-testid="nav-snapshots"]');
  await page.click('[data-testid="snap-create"]');
  await page.locator('[data-testid="snap-message"]', { hasText: 'made' }).waitFor({ timeout: 30_000 });
  await page.locator('[data-testid="snap-restore"]').first().click();
  await page.click('[data-testid="snap-restore-confirm"]');
  await page.locator('[data-testid="snap-message"]', { hasText: 'Restored' }).waitFor({ timeout: 60_000 });
  // The undo stays offered across a visit to another page, and goes once used.
  await page.click('[data-testid="nav-status"]');
  await page.click('[data-testid="nav-snapshots"]');
  await page.click('[data-testid="snap-undo"]');
  await page.click('[data-testid="snap-undo-confirm"]');
  await page.locator('[data-testid="snap-message"]', { hasText: 'Undone' }).waitFor({ timeout: 60_000 });
  check((await page.locator('[data-testid="snap-undo"]').count()) === 0, 'Undo is still offered after the undo');
  await page.screenshot({ path: join(SHOTS, 'snapshots.png'), fullPage: true });
  // Delete asks first; "Keep it" keeps the snapshot, the confirmed Delete removes it.
  const rows = page.locator('[data-testid="snap-row"]');
  const n = await rows.count();
  // One question at a time: Delete… closes the Restore… question.
  await page.locator('[data-testid="snap-restore"]').last().click();
  await page.locator('[data-testid="snap-delete"]').last().click();
  check((await page.locator('[data-testid="snap-restore-confirm"]').count()) === 0, 'Delete… left the Restore… question open beside it');
  await page.getByRole('button', { name: 'Keep it' }).click();
  await page.locator('[data-testid="snap-delete"]').last().click();
  await page.getByRole('button', { name: 'Keep it' }).click();
  check((await rows.count()) === n, 'Keep it deleted a snapshot');
  await page.locator('[data-testid="snap-delete"]').last().click();
  await page.click('[data-testid="snap-delete-confirm"]');
  await page.locator('[data-testid="snap-message"]', { hasText: 'deleted' }).waitFor({ timeout: 30_000 });
  check((await rows.count()) === n - 1, `after a delete ${await rows.count()} snapshots, want ${n - 1}`);
}
