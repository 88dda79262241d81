// A fact dated 2024-01-10 (date only: stored as midnight UTC, as
// extraction stores it) shown in the Atlas in America/New_York.
// Seed: node e2e/zz_review_graphseed.mjs 10 | hyatlas import -
// Run:  HYATLAS_URL=<link> node e2e/zz_review_dates.mjs
import { open, api, shot, report } from './zz_review_lib.mjs';

const { page, close } = await open({ width: 1200, height: 800, timezoneId: 'America/New_York', locale: 'en-US' });
try {
  const d = await api(page, 'GET', '/memories/mgacme1');
  console.log('server event_at:', d.body?.event_at);
  await page.click('[data-testid="nav-atlas"]');
  const row = page.locator('[data-testid="atlas-row"]', { hasText: 'Alice started at Acme' }).first();
  await row.waitFor();
  const meta = (await row.locator('.meta').textContent()).replace(/\s+/g, ' ');
  report(meta.includes('2024-01-10'), `the Atlas row shows the fact's day 2024-01-10: "${meta.trim()}"`);
  await row.locator('[data-testid="row-open"]').click();
  await page.locator('[data-testid="drawer"] dl').waitFor();
  const happened = await page.locator('[data-testid="drawer"] dt:has-text("Happened") + dd').textContent();
  report(happened === '2024-01-10', `the drawer's Happened shows ${happened}`);
  await shot(page, 'dates-atlas-newyork.png');
} finally {
  await close();
}
