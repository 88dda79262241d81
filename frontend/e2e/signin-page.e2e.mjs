// The tray's "Open in browser": the browser is given a local page (a
// file in the download folder), never the sign-in link, and that page takes
// it on to the dashboard, signed in.
//
//   HYATLAS_URL   file:// address of the page SignInPage wrote
import { check, runChecks } from './checks.mjs';

await runChecks('sign-in page', [
  ['signed in from the local page', async (page) => {
    check(/^http:\/\/127\.0\.0\.1:\d+\/dashboard\//.test(page.url()), `the page led to ${page.url()}, not the dashboard`);
    check(!page.url().includes('code='), 'the code is still in the address');
    const session = await page.evaluate(() => localStorage.getItem('hyatlas.session') ?? '');
    check(session.length > 0, 'the dashboard holds no session');
    await page.waitForTimeout(2500); // a status poll or two
    check((await page.locator('[data-testid="error-banner"]').count()) === 0, 'the dashboard shows an error or sign-in banner');
  }],
]);
