// Mind Palace review, in the America/New_York zone: dates of the same
// relation in the text list vs the node card; keyboard focus on the
// relation list's buttons; the card from the keyboard (focus, Escape).
// Seed: node e2e/zz_review_graphseed.mjs 10 | hyatlas import -
// Run:  HYATLAS_URL=<link> node e2e/zz_review_palace.mjs
import { open, shot, report, focused } from './zz_review_lib.mjs';

const { page, close } = await open({ width: 1200, height: 900, timezoneId: 'America/New_York', locale: 'en-US' });
try {
  await page.click('[data-testid="nav-palace"]');
  await page.locator('[data-testid="mp-relations"] li').first().waitFor();
  const globexLine = (await page.locator('[data-testid="mp-relations"] li', { hasText: 'Globex' }).first().textContent()).replace(/\s+/g, ' ').trim();
  console.log('list   :', globexLine);
  // Keyboard: Tab until a relation's entity button has the focus.
  const btn = page.locator('[data-testid="mp-relations"] li button', { hasText: 'Alice' }).first();
  await btn.focus();
  await page.keyboard.press('Shift+Tab');
  await page.keyboard.press('Tab'); // focus arrives by keyboard: :focus-visible applies
  const style = await page.evaluate(() => {
    const a = document.activeElement; const s = getComputedStyle(a);
    return { tag: a.tagName, text: a.textContent, outline: `${s.outlineStyle} ${s.outlineWidth}`, visible: a.matches(':focus-visible') };
  });
  report(!style.outline.startsWith('none'), `focus on a relation's entity button is visible: ${JSON.stringify(style)}`);
  await page.locator('[data-testid="mp-relations"]').scrollIntoViewIfNeeded();
  await shot(page, 'palace-focus-invisible.png');
  await page.keyboard.press('Enter');
  const card = page.locator('[data-testid="mp-card"]');
  await card.waitFor();
  await page.locator('[data-testid="mp-evidence"] li').first().waitFor().catch(() => {});
  const cardLine = (await card.locator('li', { hasText: 'Globex' }).first().textContent()).replace(/\s+/g, ' ').trim();
  console.log('card   :', cardLine);
  const listDay = globexLine.match(/from (\d+)\/(\d+)\/(\d+)/);
  const cardDay = cardLine.match(/valid from (\d{4}-\d{2}-\d{2})/);
  report(listDay && cardDay && `${listDay[3]}-${listDay[1].padStart(2, '0')}-${listDay[2].padStart(2, '0')}` === cardDay[1],
    `the same relation's start date agrees in the list (${listDay?.[0]}) and the card (${cardDay?.[0]})`);
  const inCard = await page.evaluate(() => !!document.activeElement?.closest('[data-testid="mp-card"]'));
  report(inCard, `the card takes the focus when opened from the keyboard (focus on ${await focused(page)})`);
  await shot(page, 'palace-card-dates.png');
  await page.keyboard.press('Escape');
  await page.waitForTimeout(200);
  report((await card.count()) === 0, `Escape closes the node card (card still open: ${(await card.count()) > 0})`);
  // Closing the card by its button: where does the focus go?
  if (await card.count()) {
    await card.locator('button[aria-label="Close"]').focus();
    await page.keyboard.press('Enter');
    await page.waitForTimeout(200);
    report(!(await focused(page)).startsWith('body'), `after closing the card the focus is on ${await focused(page)}`);
  }
} finally {
  await close();
}
