// Running a consolidation pass from the Mind Palace.
//
//   HYATLAS_URL     the dashboard sign-in link of a fresh server (empty graph) started with
//                   HYATLAS_MODE=ultra HYATLAS_SYNC_EXTRACT=on HYATLAS_LLM_MODEL=m
//                   HYATLAS_LLM_BASE=http://127.0.0.1:$FAKE_LLM_PORT/v1
//   FAKE_LLM_PORT   where this check serves that model (default 47302): the
//                   model of app/e2e_palace_test.go (Alice at Acme, then
//                   Globex), answering after 1.5 s, so a pass takes seconds
//
// - focus:   "Run a pass now" pressed with the keyboard keeps the focus while
//            the pass runs and once the graph replaces the empty state (the
//            button is disabled, then gone: the focus fell to the page);
// - outcome: what the pass did ("Pass done: 2 new relations") is still on
//            the page when the graph appears;
// - again:   with a graph on show a pass can still be asked for (the button
//            exists only while the graph is empty; otherwise the next pass
//            is up to six hours away, or a terminal's `hyatlas digest`).
import { createServer } from 'node:http';
import { check, runChecks } from './checks.mjs';

const PORT = Number(process.env.FAKE_LLM_PORT || 47302);
const FACTS = [
  ['Acme in January', 'Alice started at Acme', '2024-01-10'], ['still at Acme', 'Alice still works at Acme', '2024-02-01'],
  ['Globex in March', 'Alice joined Globex', '2025-03-01'], ['Globex team', 'Alice leads a team at Globex', '2025-03-05'],
];
function answer(system, user) {
  if (system.startsWith('You keep the long-term memory')) {
    const text = user.slice(user.lastIndexOf('<text>'));
    const fact = { label: 'project_state', replaces: [], updates: null, text: 'Alice said something' };
    for (const [key, t, at] of FACTS) if (text.includes(key)) Object.assign(fact, { text: t, event_at: at });
    return { facts: [fact], intentions: [], intentions_done: [], entities: [], experiences: [] };
  }
  if (system.startsWith('You consolidate')) {
    const byOrg = {};
    for (const m of user.matchAll(/^- \[(m\w+)\] \([^)]*\) (.*)$/gm))
      for (const org of ['Acme', 'Globex']) if (m[2].includes(org)) (byOrg[org] ??= []).push(m[1]);
    const edges = Object.entries(byOrg).map(([org, ids]) => ({ from: 'Alice', from_type: 'person', relation: 'works at', to: org,
      to_type: 'organization', exclusive: true, valid_from: null, evidence: ids }));
    return { merges: [], drops: [], schemas: [], edges, arc: null };
  }
  if (system.includes('patterns')) return { patterns: [] };
  return "Alice's work history.";
}
const model = createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => setTimeout(() => {
    let reply = 'OK';
    try {
      const msgs = JSON.parse(body).messages;
      reply = answer(msgs[0].content, msgs[msgs.length - 1].content);
    } catch { /* a test call: OK */ }
    res.setHeader('Content-Type', 'application/json');
    res.end(JSON.stringify({ id: 'x', object: 'chat.completion', model: 'm', choices: [{ index: 0, finish_reason: 'stop',
      message: { role: 'assistant', content: typeof reply === 'string' ? reply : JSON.stringify(reply) } }] }));
  }, 1_500));
});
await new Promise((ok, fail) => model.once('error', fail).listen(PORT, '127.0.0.1', ok));

const focused = (page) => page.evaluate(() => (document.activeElement === document.body ? 'the page' : document.activeElement?.outerHTML.slice(0, 80)));

async function turns(page) {
  for (const text of ['I started at Acme in January.', 'I am still at Acme and like it.', 'I moved to Globex in March.', 'My Globex team is great.']) {
    const status = await page.evaluate(async (text) => (await fetch('/api/v1/add', { method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-HyAtlas-Session': localStorage.getItem('hyatlas.session') ?? '' },
      body: JSON.stringify({ text }) })).status, text);
    if (status >= 300) throw new Error(`add answered ${status}`);
  }
}

async function pass(page) {
  await page.click('[data-testid="nav-palace"]');
  const run = page.locator('[data-testid="mp-digest"]');
  await run.waitFor({ timeout: 10_000 }); // an empty graph, a ready model
  await run.focus();
  await page.keyboard.press('Enter');
  await page.waitForTimeout(500);
  const during = await focused(page);
  await page.locator('[data-testid="mp-canvas"]').waitFor({ timeout: 60_000 });
  await page.waitForTimeout(500);
  const after = await focused(page);
  check(during !== 'the page', `while the pass runs the keyboard focus is on ${during}: the button was disabled under it ` +
    '(MindPalaceView.svelte: aria-disabled, as the other busy buttons)');
  check(after !== 'the page', `once the graph replaced the empty state the focus is on ${after} (MindPalaceView.svelte: move it to the graph or its relations)`);
  const text = await page.locator('main').innerText();
  check(/Pass done|new relation/i.test(text), 'what the pass did ("Pass done: … new relations") vanished with the empty state (MindPalaceView.svelte digestMsg)');
  check((await page.locator('[data-testid="mp-digest"]').count()) > 0 || (await page.getByRole('button', { name: /pass/i }).count()) > 0,
    'with a graph on show there is no way to run a pass from the Mind Palace (MindPalaceView.svelte offers "Run a pass now" only on an empty graph)');
}

try {
  await runChecks('palace pass e2e', [['turns', turns], ['pass', pass]]);
} finally {
  model.closeAllConnections?.();
  model.close();
}
