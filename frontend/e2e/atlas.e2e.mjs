// End-to-end walk through the pages a person uses, in Chromium, against a
// running hyatlas server with the built frontend.
//
//   HYATLAS_URL        the dashboard sign-in link
//   E2E_SHOTS          a folder for a screenshot of every page (default /tmp/hyatlas-shots)
//   E2E_EXPECT_KEYRING 1 when an OS keyring answers (the key must be stored in it)
//   CHROMIUM           browser binary (default /usr/bin/chromium)
//   E2E_HERMES_HOME    the Hermes home the server connects (its config.yaml is checked)
//
// Atlas: add by hand → 0.50 → promote → 0.60 → search finds it → retire
// with a reason → hidden → show retired → restore → edit → the history
// shows the old text. Settings: set a key → "set", and the key is nowhere
// in the page; Copy token and New token (the old one is refused, this
// page's session goes on); Connect Hermes installs the plugin and sets memory.provider,
// Disconnect puts config.yaml back as it was. Snapshots: make one → restore → undo. Exits non-zero with a
// message on any failure.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { keepsItsPlace, snapshots } from './atlas-steps.mjs';

const URL_ = process.env.HYATLAS_URL;
const SHOTS = process.env.E2E_SHOTS || '/tmp/hyatlas-shots';
const BROWSER = process.env.CHROMIUM || '/usr/bin/chromium';
const EXPECT_KEYRING = process.env.E2E_EXPECT_KEYRING === '1';
const HERMES_HOME = process.env.E2E_HERMES_HOME || '';
const SECRET = 'sk-e2e-NEVER-SHOWN-4242';
const TEXT = 'Prefers Tailwind tokens, never raw hex';

function check(ok, msg) {
  if (!ok) throw new Error(msg);
}

async function rowOf(page, text) {
  const row = page.locator('[data-testid="atlas-row"]', { hasText: text });
  await row.first().waitFor({ timeout: 10_000 });
  return row.first();
}

async function strengthOf(row) {
  return (await row.locator('[data-testid="row-strength"]').textContent()).trim();
}

async function waitStrength(row, want) {
  for (let i = 0; i < 100; i++) {
    if ((await strengthOf(row)) === want) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  check(false, `strength ${await strengthOf(row)}, want ${want}`);
}

async function gone(page, text) {
  await page.locator('[data-testid="atlas-row"]', { hasText: text }).first().waitFor({ state: 'detached', timeout: 10_000 });
}

async function atlas(page) {
  await page.click('[data-testid="nav-atlas"]');
  // The form takes the focus; what one add chose does not carry over to the
  // next; Escape closes it.
  await page.click('[data-testid="add-open"]');
  const typing = await page.evaluate(() => document.activeElement?.getAttribute('data-testid'));
  check(typing === 'add-content', `the add form opened with the focus on ${typing}`);
  await page.fill('[data-testid="add-content"]', 'Wants to run a marathon next spring');
  await page.fill('[data-testid="add-category"]', 'goal');
  await page.fill('[data-testid="add-strength"]', '0.9');
  await page.click('[data-testid="add-save"]');
  await rowOf(page, 'Wants to run a marathon next spring');
  await page.click('[data-testid="add-open"]');
  const fresh = [await page.inputValue('[data-testid="add-category"]'), await page.inputValue('[data-testid="add-strength"]')];
  check(fresh[0] === 'fact' && fresh[1] === '0.5', `the next add starts as ${fresh}, not fact 0.5`);
  await page.keyboard.press('Escape');
  await page.locator('[data-testid="add-content"]').waitFor({ state: 'detached', timeout: 5_000 });
  // Typed text is not thrown away unasked: leaving the page asks first,
  // and the first Escape only asks; the second discards it.
  await page.click('[data-testid="add-open"]');
  await page.fill('[data-testid="add-content"]', 'half a thought');
  await page.click('[data-testid="nav-status"]');
  await page.locator('[data-testid="leave-unsaved"]').waitFor({ timeout: 5_000 });
  await page.click('[data-testid="leave-stay"]');
  check((await page.inputValue('[data-testid="add-content"]')) === 'half a thought', 'Stay lost the typed text');
  await page.focus('[data-testid="add-content"]');
  await page.keyboard.press('Escape');
  await page.locator('[data-testid="add-discard"]').waitFor({ timeout: 5_000 });
  check(await page.isVisible('[data-testid="add-content"]'), 'the first Escape threw the typed text away');
  await page.keyboard.press('Escape');
  await page.locator('[data-testid="add-content"]').waitFor({ state: 'detached', timeout: 5_000 });
  await page.click('[data-testid="add-open"]');
  await page.fill('[data-testid="add-content"]', TEXT);
  await page.click('[data-testid="add-save"]');
  let row = await rowOf(page, TEXT);
  check((await strengthOf(row)) === '0.50', `a manual add starts at ${await strengthOf(row)}`);
  // By keyboard: Tab from a row's text reaches its Promote, Enter presses it.
  await row.locator('[data-testid="row-open"]').focus();
  await page.keyboard.press('Tab');
  const focused = await page.evaluate(() => document.activeElement?.getAttribute('data-testid'));
  check(focused === 'promote', `Tab from a row reaches ${focused}, not Promote`);
  await page.keyboard.press('Enter');
  row = await rowOf(page, TEXT);
  await waitStrength(row, '0.60');
  await page.waitForFunction(() => document.activeElement?.getAttribute('data-testid') === 'promote', null, { timeout: 5_000 })
    .catch(() => {});
  const after = await page.evaluate(() => document.activeElement?.getAttribute('data-testid'));
  check(after === 'promote', `after Enter on Promote the focus is on ${after}, not Promote`);
  // Live: what an agent adds while the Atlas is open shows up without a reload.
  const live = 'Added by an agent while the Atlas was open';
  await page.evaluate((content) => fetch('/api/v1/memories', { method: 'POST', credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', 'X-HyAtlas-Session': localStorage.getItem('hyatlas.session') ?? '' }, body: JSON.stringify({ content }) }), live);
  await rowOf(page, live);

  await page.fill('[data-testid="atlas-search"]', 'tailwind');
  await rowOf(page, TEXT);
  await page.check('[data-testid="atlas-by-meaning"]');
  await page.fill('[data-testid="atlas-search"]', 'which css tokens does the user like? tailwind');
  await rowOf(page, TEXT);
  await page.uncheck('[data-testid="atlas-by-meaning"]');
  await page.fill('[data-testid="atlas-search"]', 'zzz-nothing-like-this');
  await page.locator('[data-testid="atlas-empty"]').waitFor({ timeout: 10_000 });
  await page.fill('[data-testid="atlas-search"]', '');
  row = await rowOf(page, TEXT);

  // Retire, and Undo from the notice brings it back at once.
  await row.locator('[data-testid="retire"]').click();
  await page.fill('[data-testid="retire-reason"]', 'by mistake');
  await page.click('[data-testid="retire-confirm"]');
  await gone(page, TEXT);
  await page.click('[data-testid="atlas-undo"]');
  row = await rowOf(page, TEXT);
  await row.locator('[data-testid="retire"]').click();
  await page.fill('[data-testid="retire-reason"]', 'changed my mind');
  await page.check('[data-testid="retire-wrong"]'); // never true: said in its history below
  await page.click('[data-testid="retire-confirm"]');
  await gone(page, TEXT);
  await page.check('[data-testid="atlas-show-retired"]');
  row = await rowOf(page, TEXT);
  check((await row.textContent()).includes('changed my mind'), 'the retired row does not show its reason');
  await row.locator('[data-testid="restore"]').click();
  await page.uncheck('[data-testid="atlas-show-retired"]');
  row = await rowOf(page, TEXT);

  await row.locator('[data-testid="edit"]').click();
  await page.fill('[data-testid="edit-text"]', 'Prefers Tailwind tokens');
  // A refused edit (a category over 64 bytes) keeps the form and what was typed.
  await page.fill('[data-testid="edit-category"]', 'x'.repeat(100));
  await page.click('[data-testid="edit-save"]');
  await page.locator('[data-testid="atlas-error"]').waitFor({ timeout: 10_000 });
  check((await page.inputValue('[data-testid="edit-text"]')) === 'Prefers Tailwind tokens',
    'a refused edit lost the text typed');
  // Escape in another row's drawer, opened meanwhile, closes the drawer
  // only: the form and its text stay.
  await page.locator('[data-testid="atlas-row"]', { hasText: 'marathon' }).locator('[data-testid="row-open"]').click();
  await page.locator('[data-testid="drawer"]').waitFor();
  await page.keyboard.press('Escape');
  await page.locator('[data-testid="drawer"]').waitFor({ state: 'detached' });
  check((await page.locator('[data-testid="edit-text"]').count()) === 1 &&
    (await page.inputValue('[data-testid="edit-text"]')) === 'Prefers Tailwind tokens', 'Escape in a drawer closed the edit form behind it');
  await page.fill('[data-testid="edit-category"]', 'preference');
  await page.click('[data-testid="edit-save"]');
  // The old text contains the new one: wait for the save, not for a row with the new text.
  await page.locator('[data-testid="atlas-notice"]', { hasText: 'Saved' }).waitFor({ timeout: 10_000 });
  row = await rowOf(page, 'Prefers Tailwind tokens');
  await row.locator('[data-testid="row-open"]').click();
  const history = page.locator('[data-testid="history"]');
  await history.waitFor({ timeout: 10_000 });
  check((await history.textContent()).includes(TEXT), 'the history does not show the old text');
  check((await history.textContent()).includes('marked as never true'), 'the history does not say it was retired as never true');
  await page.screenshot({ path: join(SHOTS, 'atlas.png'), fullPage: true });
  // Tab goes round the drawer: Shift+Tab from its first control stays in it.
  await page.focus('[aria-label="Close details"]');
  await page.keyboard.press('Shift+Tab');
  check(await page.evaluate(() => !!document.activeElement?.closest('[data-testid="drawer"]')), 'Shift+Tab left the drawer');
  await page.keyboard.press('Escape');
  // A refused filter (over 500 bytes) shows none of the rows of the one before.
  await page.fill('[data-testid="atlas-search"]', 'Tailwind');
  await page.locator('[data-testid="atlas-count"]', { hasText: '1 of 1 shown' }).waitFor({ timeout: 10_000 });
  await page.fill('[data-testid="atlas-search"]', 'Tailwind ' + 'z'.repeat(600));
  await page.locator('[data-testid="atlas-error"]').waitFor({ timeout: 10_000 });
  await page.locator('[data-testid="atlas-count"]', { hasText: 'could not be read' }).waitFor({ timeout: 10_000 });
  check((await page.locator('[data-testid="atlas-row"]').count()) === 0, 'a refused filter left the rows of the filter before');
  await page.fill('[data-testid="atlas-search"]', '');
  await page.locator('[data-testid="atlas-count"]', { hasText: 'of 3 shown' }).waitFor({ timeout: 10_000 });
  await keepsItsPlace(page);
}

// A stand-in OpenAI-compatible endpoint (the network edge): every chat
// completion answers "OK".
async function fakeModel() {
  const srv = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ id: 'x', object: 'chat.completion', model: 'm',
        choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'OK' } }] }));
    });
  });
  await new Promise((ok) => srv.listen(0, '127.0.0.1', ok));
  return srv;
}

// The model settings: a preset fills the address, test connection answers,
// the mode the environment pins cannot be changed, and saving says what a
// restart would change.
async function modelSettings(page) {
  const model = await fakeModel();
  try {
    await page.selectOption('[data-testid="preset"]', 'ollama');
    check((await page.inputValue('[data-testid="set-llm_base"]')) === 'http://127.0.0.1:11434/v1', 'the Ollama preset did not fill the address');
    await page.fill('[data-testid="set-llm_base"]', `http://127.0.0.1:${model.address().port}/v1`);
    await page.fill('[data-testid="set-llm_model"]', 'tiny-model');
    await page.click('[data-testid="test-connection"]');
    await page.locator('[data-testid="test-result"]', { hasText: 'Works' }).waitFor({ timeout: 20_000 });
    // The result is for what was tried: another model clears it.
    await page.fill('[data-testid="set-llm_model"]', 'tiny-model-2');
    await page.locator('[data-testid="test-result"]').waitFor({ state: 'detached', timeout: 10_000 });
    await page.fill('[data-testid="set-llm_model"]', 'tiny-model');
    // The mode HYATLAS_MODE pins is shown read-only, and stays in the Tab
    // order with its reason.
    check(!(await page.isEditable('[data-testid="set-mode"]')), 'the mode HYATLAS_MODE pins can be changed');
    await page.focus('[data-testid="set-mode"]');
    check(await page.evaluate(() => document.activeElement?.id === 'mode'), 'the pinned mode cannot take the focus');
    check(/set by HYATLAS_MODE/.test(await page.evaluate(() => document.getElementById(document.activeElement.getAttribute('aria-describedby'))?.textContent ?? '')),
      'the pinned mode does not say what sets it');
    await page.fill('[data-testid="set-snapshot_keep"]', '0');
    await page.click('[data-testid="settings-save"]');
    // Named as the form names it, not by its key or environment variable.
    await page.locator('[data-testid="settings-error"]', { hasText: 'Snapshots kept' }).waitFor({ timeout: 10_000 });
    await page.fill('[data-testid="set-snapshot_keep"]', '5');
    // The error was about the old value: changing it takes the error away.
    await page.locator('[data-testid="settings-error"]').waitFor({ state: 'detached', timeout: 5_000 });
    await page.click('[data-testid="settings-save"]');
    await page.locator('[data-testid="restart-needed"]', { hasText: 'Model: — → tiny-model' }).waitFor({ timeout: 10_000 });
    check(await page.isVisible('[data-testid="restart"]'), 'no Restart now button');
  } finally {
    model.close();
  }
}

async function settings(page) {
  await page.click('[data-testid="nav-settings"]');
  await modelSettings(page);
  await page.locator('[data-testid="key-state"]', { hasText: 'No key is set' }).waitFor({ timeout: 10_000 });
  await page.fill('[data-testid="key-input"]', SECRET);
  if (!EXPECT_KEYRING) await page.check('[data-testid="key-memory-only"]');
  await page.click('[data-testid="key-save"]');
  const want = EXPECT_KEYRING ? 'from the OS keyring' : 'from this run only';
  await page.locator('[data-testid="key-state"]', { hasText: want }).waitFor({ timeout: 10_000 });
  const leaked = await page.evaluate(
    (s) => document.body.innerHTML.includes(s) || [...document.querySelectorAll('input')].some((i) => i.value.includes(s)),
    SECRET,
  );
  check(!leaked, 'the key appears in the page');
  // Remove key asks first; "Keep it" keeps the key.
  await page.click('[data-testid="key-remove"]');
  await page.locator('[data-testid="key-remove-confirm"]').waitFor({ timeout: 10_000 });
  await page.getByRole('button', { name: 'Keep it' }).click();
  await page.locator('[data-testid="key-state"]', { hasText: want }).waitFor({ timeout: 10_000 });
  // Launch at login: on, and still on after a reload (the server wrote it).
  await page.check('[data-testid="autostart"]');
  await page.waitForTimeout(300);
  await page.reload();
  await page.click('[data-testid="nav-settings"]');
  await page.locator('[data-testid="autostart"]:checked').waitFor({ timeout: 10_000 });
  await page.uncheck('[data-testid="autostart"]');
  // Copy token: to the clipboard, never into the page.
  await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
  await page.click('[data-testid="copy-token"]');
  await page.locator('[data-testid="token-copied"]', { hasText: 'Token copied' }).waitFor({ timeout: 10_000 });
  const token = await page.evaluate(() => navigator.clipboard.readText());
  check(/^[0-9a-f]{64}$/.test(token), 'the copied token is not a token');
  check(!(await page.content()).includes(token), 'the token appears in the page');
  // New token: after a confirmation; copied, not shown; the old one is
  // refused at once, and this page's own session goes on (the steps after
  // this one use it).
  await page.click('[data-testid="new-token"]');
  await page.click('[data-testid="new-token-confirm"]');
  await page.locator('[data-testid="token-copied"]', { hasText: 'new token is in force' }).waitFor({ timeout: 10_000 });
  const fresh = await page.evaluate(() => navigator.clipboard.readText());
  check(/^[0-9a-f]{64}$/.test(fresh) && fresh !== token, 'New token did not copy a new token');
  check(!(await page.content()).includes(fresh), 'the new token appears in the page');
  const status = (tok) => fetch(new URL('/api/v1/status', URL_), { headers: { Authorization: `Bearer ${tok}` } }).then((r) => r.status);
  check((await status(token)) === 401, 'the old token still works');
  check((await status(fresh)) === 200, 'the new token does not work');
  if (HERMES_HOME) await hermes(page);
  await page.screenshot({ path: join(SHOTS, 'settings.png'), fullPage: true });
}

// Connect Hermes, then disconnect: the plugin appears and goes, and the
// user's config.yaml is exactly as it was.
async function hermes(page) {
  const config = join(HERMES_HOME, 'config.yaml');
  const before = readFileSync(config, 'utf8');
  await page.locator('[data-testid="hermes-state"]', { hasText: 'not connected' }).waitFor({ timeout: 10_000 });
  await page.click('[data-testid="hermes-connect"]');
  await page.locator('[data-testid="hermes-state"]', { hasText: /^Connected:/ }).waitFor({ timeout: 10_000 });
  check(existsSync(join(HERMES_HOME, 'plugins', 'hyatlas', '__init__.py')), 'Connect Hermes wrote no plugin');
  check(/^\s+provider: hyatlas/m.test(readFileSync(config, 'utf8')), 'Connect Hermes did not set memory.provider');
  const contact = await page.locator('[data-testid="hermes-contact"]').textContent();
  check(contact.includes('No contact from Hermes'), `contact line: ${contact}`);
  await page.screenshot({ path: join(SHOTS, 'settings-hermes.png'), fullPage: true });
  await page.click('[data-testid="hermes-disconnect"]');
  await page.click('[data-testid="hermes-disconnect-confirm"]');
  await page.locator('[data-testid="hermes-state"]', { hasText: 'not connected' }).waitFor({ timeout: 10_000 });
  check(readFileSync(config, 'utf8') === before, 'Disconnect did not restore config.yaml');
  check(!existsSync(join(HERMES_HOME, 'plugins', 'hyatlas')), 'Disconnect left the plugin');
  // Connected again for the screenshot a reader of the README sees.
  await page.click('[data-testid="hermes-connect"]');
  await page.locator('[data-testid="hermes-state"]', { hasText: /^Connected:/ }).waitFor({ timeout: 10_000 });
}

async function others(page) {
  await page.click('[data-testid="nav-status"]');
  await page.locator('[data-testid="activity"] svg').first().waitFor({ timeout: 10_000 });
  for (const id of ['status', 'recall', 'workspace']) {
    await page.click(`[data-testid="nav-${id}"]`);
    await page.waitForTimeout(300);
    await page.screenshot({ path: join(SHOTS, `${id}.png`), fullPage: true });
  }
  await page.click('[data-testid="nav-recall"]');
  await page.fill('[data-testid="recall-query"]', 'tailwind tokens');
  await page.click('[data-testid="recall-go"]');
  const hit = page.locator('[data-testid="recall-hit"]', { hasText: 'Tailwind' }).first();
  await hit.waitFor({ timeout: 10_000 });
  const why = (await hit.locator('.why').textContent()).replace(/\s+/g, ' ');
  check(why.includes('keyword #1'), `the hit does not say it was the first keyword match: ${why}`);
  await page.screenshot({ path: join(SHOTS, 'recall.png'), fullPage: true });
  // The prompt block is one user's: another user's strong memory is in
  // theirs, not in "default"'s, and the page says whose block it shows.
  const alices = 'Alice keeps her notes in Obsidian';
  const added = await page.evaluate((content) => fetch('/api/v1/memories', { method: 'POST', credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', 'X-HyAtlas-Session': localStorage.getItem('hyatlas.session') ?? '' },
    body: JSON.stringify({ content, user_id: 'alice', strength: 0.9 }) }).then((r) => r.status), alices);
  check(added === 201, `adding alice's memory answered ${added}`);
  await page.fill('[data-testid="recall-user"]', 'alice');
  await page.locator('[data-testid="prompt-block"]', { hasText: alices }).waitFor({ timeout: 10_000 });
  check((await page.locator('h3', { hasText: 'for user “alice”' }).count()) === 1, 'the prompt block does not say it is alice’s');
  await page.fill('[data-testid="recall-user"]', '');
  await page.locator('h3', { hasText: 'for user “default”' }).waitFor({ timeout: 10_000 });
  await page.locator('[data-testid="prompt-block"], [data-testid="prompt-empty"]').first().waitFor({ timeout: 10_000 });
  const defaults = page.locator('[data-testid="prompt-block"]');
  const shown = (await defaults.count()) ? await defaults.textContent() : '';
  check(!shown.includes(alices), 'alice’s memory is in the default user’s prompt block');
  await workspace(page);
}

// The workspace never drops unsaved text: another file asks first.
async function workspace(page) {
  await page.click('[data-testid="nav-workspace"]');
  await page.locator('[data-testid="ws-text"]').waitFor({ timeout: 10_000 });
  await page.waitForTimeout(300); // the file has loaded
  await page.fill('[data-testid="ws-text"]', 'You are Hermes, and you keep notes short.');
  await page.getByRole('button', { name: 'MEMORY.md' }).click();
  await page.locator('[data-testid="ws-discard"]').waitFor({ timeout: 10_000 });
  await page.getByRole('button', { name: 'Keep editing' }).click();
  check((await page.inputValue('[data-testid="ws-text"]')) === 'You are Hermes, and you keep notes short.',
    'switching files lost the unsaved text');
  // Another page asks too; Stay keeps the text.
  await page.click('[data-testid="nav-status"]');
  await page.locator('[data-testid="leave-unsaved"]').waitFor({ timeout: 10_000 });
  await page.click('[data-testid="leave-stay"]');
  check((await page.inputValue('[data-testid="ws-text"]')) === 'You are Hermes, and you keep notes short.',
    'leaving the page lost the unsaved text');
  await page.click('[data-testid="ws-save"]');
  await page.locator('[data-testid="ws-dirty"]').waitFor({ state: 'detached', timeout: 10_000 });
  await page.getByRole('button', { name: 'MEMORY.md' }).click();
  await page.getByRole('button', { name: 'SOUL.md' }).click();
  await page.waitForFunction(() => document.querySelector('[data-testid="ws-text"]')?.value.includes('keep notes short'),
    null, { timeout: 10_000 });
  check((await page.locator('[data-testid="ws-discard"]').count()) === 0, 'a saved file asked to discard');
}

// Waits until the page's main part says text (or, with absent, no longer says it).
const untilMainSays = (page, text, absent = false) =>
  page.waitForFunction(([t, no]) => (document.querySelector('main')?.innerText.includes(t) ?? false) !== no, [text, absent], { timeout: 10_000 });

// The Atlas opened while HyAtlas does not answer says so; once it answers
// again, the Atlas reads its list by itself, and the error goes.
async function outage(page) {
  await page.click('[data-testid="nav-status"]');
  await page.route('**/api/v1/**', (r) => r.abort());
  await page.click('[data-testid="nav-atlas"]');
  await untilMainSays(page, 'did not answer');
  await page.unroute('**/api/v1/**');
  await untilMainSays(page, 'did not answer', true);
  await page.locator('[data-testid="atlas-row"]').first().waitFor({ timeout: 10_000 });
}

// A page whose session ended (HyAtlas started again, or a new token)
// says how to sign in again on every page, never the API's words for
// agents ("send Authorization: Bearer"). Last: it ends the session.
async function signedOut(page) {
  // HyAtlas stops, then starts again (a new token): the Atlas that could
  // not load does not keep "did not answer"; it says how to sign in.
  await page.click('[data-testid="nav-status"]');
  await page.route('**/api/v1/**', (r) => r.abort());
  await page.click('[data-testid="nav-atlas"]');
  await untilMainSays(page, 'did not answer');
  await page.evaluate(() => localStorage.setItem('hyatlas.session', 'a-session-from-before-a-restart'));
  await page.unroute('**/api/v1/**');
  await page.locator('[data-testid="connection"][data-state="signed_out"]').waitFor({ timeout: 10_000 });
  await untilMainSays(page, 'did not answer', true);
  check(/hyatlas dashboard/.test(await page.locator('main').innerText()), 'the Atlas after a restart does not say how to sign in again');
  check((await page.locator('main [data-testid="error-banner"]').count()) === 1, 'the Atlas signed out shows its sign-in words more than once, or not at all');
  for (const p of ['atlas', 'palace', 'recall', 'snapshots', 'workspace', 'settings']) {
    await page.click(`[data-testid="nav-${p}"]`);
    await page.locator('main', { hasText: 'hyatlas dashboard' }).waitFor({ timeout: 10_000 }).catch(() => {});
    const text = await page.locator('main').innerText();
    check(!/send Authorization: Bearer/.test(text), `${p}: a signed-out page shows the API's message for agents`);
    check(/hyatlas dashboard/.test(text), `${p}: a signed-out page does not say how to sign in again (hyatlas dashboard)`);
  }
}

async function main() {
  if (!URL_) {
    console.error('FAIL atlas e2e: HYATLAS_URL is required');
    process.exit(2);
  }
  if (!existsSync(BROWSER)) {
    console.error(`FAIL atlas e2e: no browser at ${BROWSER}`);
    process.exit(2);
  }
  mkdirSync(SHOTS, { recursive: true });
  const profile = mkdtempSync(join(tmpdir(), 'hyatlas-e2e-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: BROWSER,
      headless: true,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'],
      viewport: { width: 1200, height: 900 },
    });
    const page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(15_000);
    await page.goto(URL_);
    await page.locator('[data-testid="nav-atlas"]').waitFor();
    for (const [name, step] of [['atlas', atlas], ['settings', settings], ['snapshots', snapshots], ['pages', others], ['outage', outage], ['signed out', signedOut]]) {
      try {
        await step(page);
        console.log(`ok ${name}`);
      } catch (err) {
        await page.screenshot({ path: join(SHOTS, `failed-${name}.png`), fullPage: true }).catch(() => {});
        throw new Error(`${name}: ${err.message}`);
      }
    }
    console.log(`PASS atlas e2e; screenshots in ${SHOTS}`);
  } catch (err) {
    console.error(`FAIL atlas e2e: ${err.message}`);
    process.exitCode = 1;
  } finally {
    await context?.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

await main();
