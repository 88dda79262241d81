// Accessibility: what a screen reader is told. The Atlas drawer is a
// modal dialog; a row's buttons say which memory they act on; the list
// tells its real size; the Atlas count, a Recall answer and a connection
// test are announced (in a live region that was there before the text);
// the Workspace's file buttons say which is open; every snapshot column has a
// header; the Mind Palace playhead speaks a date, not a Unix time.
//
//   HYATLAS_URL   the dashboard sign-in link (the store should hold a few memories)
//   CHROMIUM      browser binary (default /usr/bin/chromium)
//
// It changes nothing stored: the graph is served to the page by the test
// (page.route), the connection test goes to 127.0.0.1:9 and the Settings
// form is put back with "Undo changes". Every check runs; the failures are
// listed together.
import { check, runChecks } from './checks.mjs';


/** Whether the element (by selector) is inside a live region. */
const inLive = (page, selector) =>
  page.locator(selector).first().evaluate((e) => !!e.closest('[role="status"],[role="alert"],[role="log"],[aria-live]:not([aria-live="off"])'));

async function atlas(page) {
  await page.click('[data-testid="nav-atlas"]');
  await page.locator('[data-testid="atlas-row"]').first().waitFor();

  // The drawer covers the list and keeps the focus: a modal dialog.
  await page.locator('[data-testid="row-open"]').first().focus();
  await page.keyboard.press('Enter');
  const drawer = page.locator('[data-testid="drawer"]');
  await drawer.waitFor();
  const [role, modal] = await drawer.evaluate((e) => [e.getAttribute('role'), e.getAttribute('aria-modal')]);
  check(role === 'dialog' && modal === 'true', `Atlas (MemoryDrawer.svelte): the details drawer is role=${role} aria-modal=${modal}, not a modal dialog (the rows behind stay in the reading order)`);
  await page.keyboard.press('Escape');
  await drawer.waitFor({ state: 'detached' });

  // A row's buttons name their memory (a list of 69 "Delete" is no help).
  const names = await page.$$eval('[data-testid="atlas-row"] [data-testid="delete"]', (bs) =>
    bs.map((b) => {
      const desc = (b.getAttribute('aria-describedby') || '').split(/\s+/).map((id) => document.getElementById(id)?.textContent ?? '').join(' ');
      return `${b.getAttribute('aria-label') || b.textContent.trim()}|${desc}`;
    }),
  );
  check(new Set(names).size === names.length, `Atlas (AtlasRow.svelte): the ${names.length} Delete buttons share the name "${names[0]}" (no memory in their name or description)`);

  // The list says how long it really is (only a window of rows is in the page).
  const [shown, setsize] = await page.evaluate(() => [
    document.querySelector('[data-testid="atlas-count"]')?.textContent ?? '',
    document.querySelector('[data-testid="atlas-row"]')?.getAttribute('aria-setsize'),
  ]);
  const total = shown.match(/of (\d+)/)?.[1];
  check(setsize === total, `Atlas (AtlasView.svelte/AtlasRow.svelte): "${shown}" but the rows carry aria-setsize=${setsize} (a screen reader counts only the ${await page.locator('[data-testid="atlas-row"]').count()} rows in the page)`);

  // Filtering says how many match.
  check(await inLive(page, '[data-testid="atlas-count"]'), 'Atlas (AtlasView.svelte): the count ("N of M shown") is not in a live region: a filter changes the list silently');
}

async function recall(page) {
  await page.click('[data-testid="nav-recall"]');
  await page.locator('[data-testid="recall-query"]').waitFor();
  const before = await page.$$eval('section[aria-labelledby="recall-title"] :is([role="status"],[aria-live="polite"])', (es) => es.map((e) => e.dataset.testid ?? e.textContent));
  await page.fill('[data-testid="recall-query"]', 'Foxtrot');
  await page.locator('[data-testid="recall-query"]').press('Enter');
  await page.locator('[data-testid="recall-hit"], [data-testid="recall-empty"]').first().waitFor();
  await page.waitForTimeout(300);
  // A region that was there before the answer and now speaks of it.
  const spoken = await page.$$eval('section[aria-labelledby="recall-title"] :is([role="status"],[aria-live="polite"])', (es) => es.filter((e) => e.textContent.trim()).length);
  check(before.length > 0 && spoken > 0, 'Recall (RecallView.svelte): the answer is not announced (no live region outlives "Searching…" to say how many memories came back)');
}

async function workspace(page) {
  await page.click('[data-testid="nav-workspace"]');
  // The file buttons say which file is open (pressed), not by looks alone.
  const files = page.locator('[role="group"][aria-label="File"] button');
  await files.first().waitFor();
  const pressed = await files.evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-pressed')));
  check(pressed.filter((p) => p === 'true').length === 1 && pressed.every((p) => p === 'true' || p === 'false'),
    `Workspace (WorkspaceView.svelte): the file buttons say aria-pressed ${pressed.join(', ')}, want exactly one open`);
}

async function snapshots(page) {
  await page.click('[data-testid="nav-snapshots"]');
  await page.locator('[data-testid="snap-row"], [data-testid="snap-empty"]').first().waitFor({ timeout: 70_000 });
  if (await page.locator('[data-testid="snap-row"]').count()) {
    const empty = await page.$$eval('th', (ths) => ths.filter((t) => !t.textContent.trim() && !t.getAttribute('aria-label')).length);
    check(empty === 0, `Snapshots (SnapshotsView.svelte): ${empty} column header(s) with no name (the buttons' column)`);
    const names = await page.$$eval('[data-testid="snap-restore"]', (bs) => bs.map((b) => b.getAttribute('aria-label') || b.getAttribute('aria-describedby') || b.textContent));
    check(names.length < 2 || new Set(names).size === names.length, 'Snapshots (SnapshotsView.svelte): every row\'s "Restore…" has the same name (no date in its name or description)');
  }
}

async function settings(page) {
  await page.click('[data-testid="nav-settings"]');
  await page.locator('[data-testid="set-llm_base"]').waitFor();
  if (await page.locator('[data-testid="set-llm_base"]').isEnabled()) {
    await page.fill('[data-testid="set-llm_base"]', 'http://127.0.0.1:9/v1');
    await page.fill('[data-testid="set-llm_model"]', 'a11y');
    await page.locator('[data-testid="test-connection"]').focus();
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="test-result"]').waitFor({ timeout: 30_000 });
    check(await inLive(page, '[data-testid="test-result"]'), 'Settings (SettingsModel.svelte): the "Test connection" result is not in a live region: a screen reader hears nothing');
    await page.click('button:has-text("Undo changes")');
  }
  // The hints under the fields are their descriptions.
  const described = await page.locator('[data-testid="set-snapshot_every"]').getAttribute('aria-describedby');
  check(!!described, 'Settings (SettingsModel.svelte): "Snapshot every" has no aria-describedby for its hint ("e.g. 24h, or off (at least 10m)")');
}

async function palace(page) {
  const now = Math.floor(Date.now() / 1000);
  const day = 86400;
  const graph = {
    nodes: [
      { id: 'n1', label: 'Alice', type: 'person', created_at: now - 5 * day, strength: 1, degree: 1 },
      { id: 'n2', label: 'Foxtrot', type: 'organization', created_at: now - 5 * day, strength: 1, degree: 2 },
      { id: 'n3', label: 'PostgreSQL', type: 'tool', created_at: now - 3 * day, strength: 1, degree: 1 },
    ],
    records: [
      { id: 'r1', from: 'n1', to: 'n2', relation: 'works at', valid_from: now - 5 * day, valid_to: 0, learned_at: now - 5 * day, recorded_at: now - 5 * day, expired_at: 0 },
      { id: 'r2', from: 'n2', to: 'n3', relation: 'uses', valid_from: now - 3 * day, valid_to: 0, learned_at: now - 3 * day, recorded_at: now - 3 * day, expired_at: 0 },
    ],
  };
  await page.route('**/api/v1/graph/history*', (r) => r.fulfill({ json: graph }));
  await page.route('**/api/v1/graph?node=*', (r) => r.fulfill({ json: { neighbors: [] } }));
  await page.click('[data-testid="nav-palace"]');
  const head = page.locator('[data-testid="mp-playhead"]');
  await head.waitFor();
  const [value, text] = await head.evaluate((e) => [e.value, e.getAttribute('aria-valuetext')]);
  check(!!text, `Mind Palace (MindPalaceView.svelte): the playhead slider speaks "${value}" (Unix seconds): no aria-valuetext with the date`);
  // Every entity of the text list can be opened from the keyboard, not only a relation's first one.
  const buttons = await page.locator('[data-testid="mp-relations"] button').allTextContents();
  check(buttons.includes('PostgreSQL'), `Mind Palace (MindPalaceView.svelte): in the relations as text only ${buttons.join(', ')} are buttons; PostgreSQL (only ever a relation's object) has no card but through Find`);
  await page.locator('[data-testid="mp-relations"] button').first().focus();
  await page.keyboard.press('Enter');
  const card = page.locator('[data-testid="mp-card"]');
  await card.waitFor();
  const label = await card.evaluate((e) => e.getAttribute('aria-label') || e.getAttribute('aria-labelledby'));
  check(!!label, 'Mind Palace (MindPalaceCard.svelte): the entity card is an unnamed complementary landmark');
  await page.keyboard.press('Escape');
  await page.unroute('**/api/v1/graph/history*');
  await page.unroute('**/api/v1/graph?node=*');
}

await runChecks('a11y semantics e2e', [['atlas', atlas], ['recall', recall], ['workspace', workspace], ['snapshots', snapshots], ['settings', settings], ['palace', palace]]);
