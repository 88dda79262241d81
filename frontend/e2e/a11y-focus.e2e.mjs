// Accessibility: the keyboard focus is never dropped on <body>.
// A control that a keyboard user pressed and that then disappears (a
// confirmation opening or closing, a form closing) or is disabled while its
// request runs must hand the focus to a sensible place: the confirmation's
// first safe button when it opens, the button that opened it when it
// closes, the same button when the request ends. Escape closes an inline
// confirmation like it closes the Atlas panels.
//
//   HYATLAS_URL   the dashboard sign-in link
//   CHROMIUM      browser binary (default /usr/bin/chromium)
//
// Nothing is restored, deleted or rotated: confirmations are opened and
// cancelled (Atlas Delete asks with the focus on "Keep it"). It makes one snapshot and writes SOUL.md of agent
// "a11y". Every check runs; the failures are listed together.
import { check, runChecks } from './checks.mjs';


/** What has the focus: "BODY", or the element's tag, test id and text. */
async function focusOf(page) {
  return page.evaluate(() => {
    const a = document.activeElement;
    if (!a || a === document.body || a === document.documentElement) return 'BODY';
    return `${a.tagName.toLowerCase()}${a.dataset.testid ? `[${a.dataset.testid}]` : ''} "${(a.getAttribute('aria-label') || a.textContent || '').trim().slice(0, 40)}"`;
  });
}

async function press(page, selector, key = 'Enter') {
  await page.locator(selector).first().focus();
  await page.keyboard.press(key);
}

async function atlas(page) {
  await page.click('[data-testid="nav-atlas"]');
  for (const how of ['Escape', 'Cancel']) {
    await press(page, '[data-testid="add-open"]');
    await page.locator('[data-testid="add-content"]').waitFor();
    if (how === 'Escape') await page.keyboard.press('Escape');
    else await press(page, 'form[aria-label="Add a memory by hand"] button:has-text("Cancel")');
    await page.locator('[data-testid="add-content"]').waitFor({ state: 'detached' });
    const at = await focusOf(page);
    check(at.includes('add-open'), `Atlas (AddMemory.svelte): closing "+ add manually" with ${how} leaves the focus on ${at}, not on "+ add manually"`);
  }
  // Delete asks "for good?": the focus is on the safe answer, so Enter keeps the memory.
  await press(page, '[data-testid="atlas-row"] [data-testid="delete"]');
  await page.locator('[data-testid="delete-confirm"]').waitFor();
  const at = await focusOf(page);
  check(at.includes('Keep it'), `Atlas (AtlasView.svelte): Delete's question puts the focus on ${at}, not on "Keep it"`);
  await page.keyboard.press('Enter');
  await page.locator('[data-testid="delete-confirm"]').waitFor({ state: 'detached' });
}

async function snapshots(page) {
  await page.click('[data-testid="nav-snapshots"]');
  await press(page, '[data-testid="snap-create"]');
  await page.locator('[data-testid="snap-message"]').waitFor({ timeout: 30_000 });
  await page.waitForTimeout(200);
  let at = await focusOf(page);
  check(at !== 'BODY', `Snapshots (SnapshotsView.svelte): after "Make a snapshot now" by keyboard the focus is on ${at}`);

  await press(page, '[data-testid="snap-restore"]');
  await page.locator('[data-testid="snap-restore-confirm"]').waitFor();
  at = await focusOf(page);
  check(at !== 'BODY', `Snapshots (SnapshotsView.svelte): "Restore…" opens its confirmation but the focus is on ${at}, not in the confirmation`);
  await page.keyboard.press('Escape');
  await page.waitForTimeout(200);
  const open = await page.locator('[data-testid="snap-restore-confirm"]').count();
  check(open === 0, 'Snapshots (SnapshotsView.svelte): Escape does not close the restore confirmation');
  if (open) {
    await press(page, '[data-testid="snap-row"] button:has-text("Cancel")');
    await page.locator('[data-testid="snap-restore-confirm"]').waitFor({ state: 'detached' });
  }
  at = await focusOf(page);
  check(at.includes('snap-restore'), `Snapshots (SnapshotsView.svelte): after cancelling the restore the focus is on ${at}, not back on "Restore…"`);

  await press(page, '[data-testid="snap-delete"]');
  await page.locator('[data-testid="snap-delete-confirm"]').waitFor();
  at = await focusOf(page);
  check(at !== 'BODY', `Snapshots (SnapshotsView.svelte): "Delete…" opens its confirmation but the focus is on ${at}`);
  await press(page, '[data-testid="snap-row"] button:has-text("Keep it")');
  await page.locator('[data-testid="snap-delete-confirm"]').waitFor({ state: 'detached' });
}

async function workspace(page) {
  await page.click('[data-testid="nav-workspace"]');
  await page.fill('[data-testid="ws-agent"]', 'a11y');
  await page.locator('[data-testid="ws-agent"]').press('Enter');
  await page.waitForTimeout(300);
  await page.fill('[data-testid="ws-text"]', `Reviewed ${new Date().toISOString()}`);
  await press(page, '[data-testid="ws-save"]');
  await page.locator('p[role="status"]', { hasText: 'Saved' }).waitFor();
  let at = await focusOf(page);
  check(at.includes('ws-save'), `Workspace (WorkspaceView.svelte): after Save by keyboard the focus is on ${at}, not on Save`);

  // Leaving with unsaved text: the question takes the focus; Escape (Stay)
  // gives it back to where the user was.
  await page.fill('[data-testid="ws-text"]', 'unsaved');
  await press(page, '[data-testid="nav-recall"]');
  await page.locator('[data-testid="leave-unsaved"]').waitFor();
  await page.keyboard.press('Escape');
  await page.locator('[data-testid="leave-unsaved"]').waitFor({ state: 'detached' });
  at = await focusOf(page);
  check(at !== 'BODY', `App.svelte: Escape (Stay) on "Unsaved changes" leaves the focus on ${at}, not on the page button or the text`);
  await press(page, '[data-testid="nav-recall"]');
  await page.locator('[data-testid="leave-unsaved"]').waitFor();
  const tabbed = [];
  for (let i = 0; i < 3; i++) {
    await page.keyboard.press('Tab');
    tabbed.push(await page.evaluate(() => !!document.activeElement?.closest('[data-testid="leave-unsaved"]')));
  }
  check(tabbed.every(Boolean), 'App.svelte: Tab leaves the "Unsaved changes" alertdialog (it is modal: the focus should stay in it)');
  await press(page, '[data-testid="leave-discard"]');
}

async function settings(page) {
  await page.click('[data-testid="nav-settings"]');
  await press(page, '[data-testid="new-token"]');
  await page.locator('[data-testid="new-token-confirm"]').waitFor();
  let at = await focusOf(page);
  check(at !== 'BODY', `Settings (SettingsMore.svelte): "New token" opens its confirmation but the focus is on ${at}`);
  await page.keyboard.press('Escape');
  await page.waitForTimeout(200);
  const open = await page.locator('[data-testid="new-token-confirm"]').count();
  check(open === 0, 'Settings (SettingsMore.svelte): Escape does not close the "New API token" confirmation');
  if (open) await press(page, '[role="alertdialog"] button:has-text("Cancel")');
  await page.locator('[data-testid="new-token-confirm"]').waitFor({ state: 'detached' });
  at = await focusOf(page);
  check(at.includes('new-token'), `Settings (SettingsMore.svelte): after cancelling a new token the focus is on ${at}, not back on "New token"`);
}

await runChecks('a11y focus e2e', [['atlas', atlas], ['snapshots', snapshots], ['workspace', workspace], ['settings', settings]]);
