// Recall's "nothing came back" tells the user why.
//
//   HYATLAS_URL   the dashboard sign-in link (the check adds one memory by
//                 hand for user recall-<stamp>)
//
// - gate:    an empty answer says "Nothing relevant" once, with the gate's
//            reason only when it adds one;
// - user:    asking for a user who owns nothing (a capital letter too many:
//            user ids are exact) says that user has no memories, instead of
//            "nothing relevant", which sends the user hunting for better words.
import { check, runChecks } from './checks.mjs';

const STAMP = String(Date.now()).slice(-9);
const USER = `recall-${STAMP}`;

async function seed(page) {
  const status = await page.evaluate(async (user) => {
    const r = await fetch('/api/v1/memories', { method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-HyAtlas-Session': localStorage.getItem('hyatlas.session') ?? '' },
      body: JSON.stringify({ content: 'Prefers postgres for every new project', user_id: user, strength: 0.8 }) });
    return r.status;
  }, USER);
  if (status >= 300) throw new Error(`adding the memory answered ${status}`);
}

async function ask(page, query, user) {
  await page.click('[data-testid="nav-recall"]');
  await page.fill('[data-testid="recall-query"]', query);
  await page.fill('[data-testid="recall-user"]', user);
  await page.click('[data-testid="recall-go"]');
  await page.locator('[data-testid="recall-hit"], [data-testid="recall-empty"]').first().waitFor();
  await page.waitForTimeout(300);
}

async function gate(page) {
  await ask(page, 'which database does the user prefer for projects?', `${USER}-nobody`);
  const text = (await page.locator('[data-testid="recall-empty"]').innerText().catch(() => '')).trim();
  check(!/nothing relevant \(nothing relevant\)/i.test(text), `an empty answer reads "${text}" (RecallView.svelte: show the gate only when it adds a reason)`);
}

async function unknownUser(page) {
  await ask(page, 'which database does the user prefer for projects?', USER.toUpperCase());
  const empty = (await page.locator('[data-testid="recall-empty"]').innerText().catch(() => '')).trim();
  check(!empty || (/has no memor|owns no|no user|unknown user/i.test(empty) || empty.includes(USER.toUpperCase())),
    `asking for user "${USER.toUpperCase()}" (who owns nothing; "${USER}" does) answers "${empty}" with no word that this user has no memories ` +
    '(RecallView.svelte: when nothing comes back for a named user, say whether that user owns any memory, e.g. from /list?user_id=…&limit=1)');
  await ask(page, 'which database does the user prefer for projects?', USER);
  check(await page.locator('[data-testid="recall-hit"]').count() > 0, `the memory of ${USER} is not recalled for its owner`);
}

await runChecks('recall e2e', [['seed', seed], ['gate', gate], ['unknown user', unknownUser]]);
