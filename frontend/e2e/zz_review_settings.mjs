// Settings: the key entry and what the page says about the LLM ledger.
//  1. A stand-in OpenAI-compatible endpoint that answers 401 and echoes
//     the Authorization header it got (as some APIs echo the key back,
//     masked or not): after saving it and a key, does Test connection
//     show the key in the page?
//  2. The server stops (SERVER_PID, one this run started): what Settings
//     says about the ledger ("What left this machine") and the embedder.
// Run: SERVER_PID=<pid> HYATLAS_URL=<link> node e2e/zz_review_settings.mjs
import { createServer } from 'node:http';
import { open, shot, report } from './zz_review_lib.mjs';

const SECRET = 'sk-review-SECRET-0123456789abcdef';
const srv = createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.statusCode = 401;
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${(req.headers.authorization ?? '').replace(/^Bearer /, '')}`, type: 'invalid_request_error' } }));
  });
});
await new Promise((ok) => srv.listen(0, '127.0.0.1', ok));
const base = `http://127.0.0.1:${srv.address().port}/v1`;

const { page, close } = await open({ width: 1000, height: 900 });
try {
  await page.click('[data-testid="nav-settings"]');
  await page.fill('[data-testid="set-llm_base"]', base);
  await page.fill('[data-testid="set-llm_model"]', 'gpt-review');
  await page.click('[data-testid="settings-save"]');
  await page.locator('[data-testid="settings-message"]').waitFor();
  await page.fill('[data-testid="key-input"]', SECRET);
  const attrs = await page.evaluate(() => { const i = document.querySelector('[data-testid="key-input"]'); return { type: i.type, autocomplete: i.autocomplete, form: !!i.form, user: !!i.form?.querySelector('input[type=text],input:not([type])') }; });
  console.log('key input:', JSON.stringify(attrs));
  if (await page.locator('[data-testid="no-keyring"]').count()) await page.check('[data-testid="key-memory-only"]');
  await page.click('[data-testid="key-save"]');
  await page.locator('[data-testid="key-state"]', { hasText: 'A key is set' }).waitFor();
  await page.click('[data-testid="test-connection"]');
  await page.locator('[data-testid="test-result"]').waitFor({ timeout: 20_000 });
  await page.waitForTimeout(300);
  const shown = await page.evaluate((s) => document.body.innerText.includes(s), SECRET);
  const result = (await page.locator('[data-testid="test-result"]').textContent()) + ' | ' + (await page.locator('[data-testid="test-detail"]').textContent().catch(() => ''));
  report(!shown, `Test connection result: "${result.replace(/\s+/g, ' ').trim()}" (the key is ${shown ? 'SHOWN' : 'not shown'} in the page)`);
  await page.locator('[data-testid="test-result"]').scrollIntoViewIfNeeded();
  await shot(page, 'settings-test-connection-key.png');
  // the ledger has the test call now
  await page.waitForFunction(() => !document.querySelector('[data-testid="egress-empty"]'), null, { timeout: 10_000 });
  const embedOnline = (await page.locator('h3:has-text("Embedding model") + *').textContent()).trim();
  console.log('embedding section (server up):', embedOnline);

  // 2. the server stops; open Settings again
  await page.click('[data-testid="nav-status"]');
  process.kill(Number(process.env.SERVER_PID), 'SIGTERM');
  await page.locator('[data-testid="connection"][data-state="reconnecting"]').waitFor({ timeout: 15_000 });
  await page.click('[data-testid="nav-settings"]');
  await page.waitForTimeout(1500);
  const ledger = await page.locator('[data-testid="egress-empty"]').textContent().catch(() => '');
  report(!ledger, `with the server down the ledger says: "${ledger}" although a call was made a moment ago`);
  const embedOffline = (await page.locator('h3:has-text("Embedding model") + *').textContent()).trim();
  report(embedOffline === embedOnline, `embedding section with the server down: "${embedOffline}" (server up: "${embedOnline}")`);
  await shot(page, 'settings-offline-ledger.png', true);
} finally {
  await close();
  srv.close();
}
