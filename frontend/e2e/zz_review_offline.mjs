// The server stops mid-session (SERVER_PID: a server this run started).
// What each page says, and whether an action says it worked.
// Run: SERVER_PID=<pid> HYATLAS_URL=<link> node e2e/zz_review_offline.mjs
import { open, api, shot, report } from './zz_review_lib.mjs';

const { page, close } = await open({ width: 1000, height: 800 });
try {
  await api(page, 'POST', '/memories', { content: 'Offline review: a memory written before the stop' });
  await page.click('[data-testid="nav-workspace"]');
  await page.locator('[data-testid="ws-text"]').waitFor();
  await page.waitForTimeout(300);
  await page.click('[data-testid="nav-atlas"]');
  await page.locator('[data-testid="atlas-row"]').first().waitFor();
  process.kill(Number(process.env.SERVER_PID), 'SIGTERM');
  await page.locator('[data-testid="connection"][data-state="reconnecting"]').waitFor({ timeout: 15_000 });
  // Atlas: add by hand
  await page.click('[data-testid="add-open"]');
  await page.fill('[data-testid="add-content"]', 'Offline review: typed while the server was down');
  await page.click('[data-testid="add-save"]');
  await page.waitForTimeout(1000);
  const addErr = await page.locator('form[aria-label="Add a memory by hand"] .err').textContent().catch(() => '(none)');
  report(!/network error: Failed to fetch/.test(addErr), `Atlas add while the server is down says: "${addErr}"`);
  await shot(page, 'offline-atlas-add.png');
  // Settings: the key
  await page.click('[data-testid="nav-settings"]');
  await page.waitForTimeout(1500);
  await shot(page, 'offline-settings.png', true);
  const keyState = (await page.locator('[data-testid="key-state"]').textContent()).trim();
  report(!/Checking/.test(keyState), `Settings key state with the server down: "${keyState}"`);
  const settingsText = (await page.locator('main').textContent()).replace(/\s+/g, ' ');
  report(/reach|not running|down|offline/i.test(settingsText), `Settings page tells the user the server is unreachable: ${/reach|not running|down|offline/i.test(settingsText)}`);
  // Snapshots and Recall
  await page.click('[data-testid="nav-snapshots"]');
  await page.waitForTimeout(1500);
  const snap = (await page.locator('main').textContent()).replace(/\s+/g, ' ');
  report(!snap.includes('No snapshots yet'), `Snapshots with the server down: ${snap.includes('No snapshots yet') ? '"No snapshots yet…" (the empty state) is shown' : 'no empty state'}; error: ${await page.locator('[data-testid="snap-error"]').textContent().catch(() => '(none)')}`);
  await shot(page, 'offline-snapshots.png');
  await page.click('[data-testid="nav-recall"]');
  await page.waitForTimeout(1500);
  await shot(page, 'offline-recall.png');
  const rec = (await page.locator('main').textContent()).replace(/\s+/g, ' ');
  console.log('recall page:', rec.slice(0, 300));
  await page.click('[data-testid="nav-palace"]');
  await page.waitForTimeout(1500);
  console.log('palace page:', (await page.locator('main').textContent()).replace(/\s+/g, ' ').slice(0, 300));
  await page.click('[data-testid="nav-workspace"]');
  await page.waitForTimeout(1500);
  console.log('workspace page:', (await page.locator('main').textContent()).replace(/\s+/g, ' ').slice(0, 400));
  await shot(page, 'offline-workspace.png');
  await page.click('[data-testid="nav-status"]');
  await page.waitForTimeout(500);
  await shot(page, 'offline-overview.png');
} finally {
  await close();
}
