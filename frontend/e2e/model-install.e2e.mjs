// Installing the BGE embedding model from Settings, and a
// download that breaks off (a flaky network, a proxy, a mirror that goes down).
//
//   HYATLAS_URL   the dashboard sign-in link of a server started with
//                 HYATLAS_MODELS_BASE=http://127.0.0.1:$MODELS_PORT/
//   MODELS_PORT   where this check serves that mirror (default 47301): it
//                 sends the model slowly for 4 s, then drops the connection
//
// - focus: pressing "Install BGE small" with the keyboard keeps the focus on
//          the model's controls while it downloads and after it failed (the
//          button is swapped for a progress bar and the focus fell to the page);
// - words: the failure is said in words with what to do, as Test connection
//          does ("Nothing answers at …"), not as Go's error ("download
//          bge-small/model.onnx interrupted after 2752512 bytes (…): unexpected EOF",
//          or 'Get "http://…/resolve/ea104…/onnx/model.onnx": dial tcp …'),
//          and it is announced (an alert or a live region);
// - cancel: Cancel stops a download under way, says so (no failure), and
//          gives the focus back to Install.
import { createServer } from 'node:http';
import { check, runChecks } from './checks.mjs';

const PORT = Number(process.env.MODELS_PORT || 47301);

// The mirror: a declared 133 MB file, 64 KB every 200 ms, cut after 4 s.
const mirror = createServer((req, res) => {
  res.writeHead(200, { 'Content-Length': 133_093_490, 'Content-Type': 'application/octet-stream' });
  const chunk = Buffer.alloc(64 * 1024, 7);
  const tick = setInterval(() => res.write(chunk), 200);
  setTimeout(() => { clearInterval(tick); res.destroy(); }, 4_000);
  req.on('close', () => clearInterval(tick));
});
await new Promise((ok, fail) => mirror.once('error', fail).listen(PORT, '127.0.0.1', ok));

const focused = (page) => page.evaluate(() => (document.activeElement === document.body ? 'the page' : document.activeElement?.outerHTML.slice(0, 80)));

async function install(page) {
  await page.click('[data-testid="nav-settings"]');
  const button = page.getByRole('button', { name: /^Install BGE/ });
  await button.waitFor({ timeout: 10_000 });
  await button.focus();
  await page.keyboard.press('Enter');
  await page.locator('.model progress').waitFor({ timeout: 10_000 });
  await page.waitForTimeout(500);
  const during = await focused(page);
  const err = page.locator('.model .err').first();
  await err.waitFor({ timeout: 30_000 });
  await page.waitForTimeout(1_000);
  const after = await focused(page);
  check(during !== 'the page', `while the model downloads the keyboard focus is on ${during}: pressing Install dropped it ` +
    '(SettingsMore.svelte: keep it on the model, e.g. a labelled progress bar or a Cancel button, then back on Install)');
  check(after !== 'the page', `once the download failed the keyboard focus is on ${after} (SettingsMore.svelte)`);
  const text = (await err.innerText()).trim();
  check(!/dial tcp|Get "http|connection refused|no such host|unexpected EOF|after \d{5,} bytes|[0-9a-f]{40}/.test(text),
    `the failed install reads "${text}": Go's error, for a person (SettingsMore.svelte or backend/models: a hint in words, as the connection test ` +
    'gives, e.g. "The download stopped (the connection broke): Install again to resume", with the detail below it)');
  const announced = await err.evaluate((el) => !!el.closest('[role="alert"], [role="status"], [aria-live]'));
  check(announced, 'the failed install is not announced: its line is in no alert or live region (SettingsMore.svelte .model .err)');
}

async function cancel(page) {
  await page.click('[data-testid="nav-settings"]');
  const button = page.getByRole('button', { name: /^Install BGE/ });
  await button.waitFor({ timeout: 10_000 });
  await button.click();
  const stop = page.locator('[data-testid="cancel-bge-small"]');
  await stop.waitFor({ timeout: 10_000 });
  await stop.focus();
  await page.keyboard.press('Enter');
  const note = page.locator('[data-testid="model-note-bge-small"]', { hasText: 'Cancelled' });
  const said = await note.waitFor({ timeout: 10_000 }).then(() => true, () => false);
  check(said, 'after Cancel the page does not say the download was cancelled');
  const failed = await page.locator('.model .err').count();
  check(failed === 0, `a cancelled download is shown as a failure: ${await page.locator('.model .err').allInnerTexts()}`);
  const at = await page.evaluate(() => document.activeElement?.getAttribute('data-testid'));
  check(at === 'install-bge-small', `after Cancel the focus is on ${at}, not Install`);
}

try {
  await runChecks('model install e2e', [['cancel', cancel], ['install', install]]);
} finally {
  mirror.closeAllConnections?.();
  mirror.close();
}
