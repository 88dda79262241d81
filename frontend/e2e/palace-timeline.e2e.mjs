// The Mind Palace timeline as a user meets it.
//
//   HYATLAS_URL   the dashboard sign-in link (any mode: the graph is put in
//                 through POST /api/v1/import, so lite mode is enough)
//
// It imports one person, one organisation and one relation valid from
// 2020-05-01 (names carry a stamp, so a second run adds its own), in the
// browser's zone America/Los_Angeles, and checks:
// - stale:    a relation that arrives while the page is open (an import, a
//             scheduled or CLI consolidation pass) shows up without leaving the page;
// - timezone: on "what was true then" the playhead's date is the day the
//             relations it shows start ("from 2020-05-01"), not the evening before;
// - axis:     after switching axes the date under the timeline is where the
//             slider is (the playhead is brought into the new axis's range);
// - play:     Play on a freshly opened page (playhead at the end) plays;
// - find:     finding a name that is not there says so;
// - 400%:     with a graph on show, the timeline fits a 320 px window.
import { check, runChecks } from './checks.mjs';

const STAMP = String(Date.now()).slice(-9);
const PERSON = `Dana${STAMP}`;
const ORG = `Initech${STAMP}`;
const VALID_FROM = Date.UTC(2020, 4, 1) / 1000; // 2020-05-01, a date with no time

async function importGraph(page) {
  const now = new Date().toISOString();
  const mem = `mtl${STAMP}palace0001`;
  const lines = [
    { type: 'header', format: 'hyatlas-export', version: 2, exported_at: now },
    { type: 'memory', memory: { id: mem, layer: 'l3_fact', content: `${PERSON} started at ${ORG}`, owner: { user_id: 'default', agent_id: '' },
      category: 'fact', strength: 0.5, source: 'import', event_at: '2020-05-01T00:00:00Z', created_at: now, updated_at: now } },
    { type: 'graph_node', user_id: 'default', node: { id: `etl${STAMP}p`, label: PERSON, type: 'person', created_at: now } },
    { type: 'graph_node', user_id: 'default', node: { id: `etl${STAMP}o`, label: ORG, type: 'organization', created_at: now } },
    { type: 'graph_relation', user_id: 'default', relation: { id: `rtl${STAMP}`, from: `etl${STAMP}p`, to: `etl${STAMP}o`, relation: 'works at',
      valid_from: '2020-05-01T00:00:00Z', learned_at: now, recorded_at: now, facts: [mem] } },
    { type: 'end', memories: 1, files: 0, nodes: 2, relations: 1, links: 0 },
  ];
  const [status, body] = await page.evaluate(async (text) => {
    const r = await fetch('/api/v1/import', { method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-HyAtlas-Session': localStorage.getItem('hyatlas.session') ?? '' }, body: text });
    return [r.status, await r.text()];
  }, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  if (status !== 200) throw new Error(`the import was refused: ${status} ${body}`);
}

async function openPalace(page) {
  await page.click('[data-testid="nav-atlas"]');
  await page.click('[data-testid="nav-palace"]');
  await page.locator('[data-testid="mp-canvas"], [data-testid="mp-empty"]').first().waitFor();
}

const relationsText = (page) => page.locator('[data-testid="mp-relations"]').innerText().catch(() => '');

/** Sets the playhead (Unix seconds) as a drag of the slider would. */
async function setPlayhead(page, secs) {
  await page.evaluate((s) => {
    const el = document.querySelector('[data-testid="mp-playhead"]');
    el.value = String(s);
    el.dispatchEvent(new Event('input', { bubbles: true }));
  }, secs);
  await page.waitForTimeout(200);
}

async function stale(page) {
  await openPalace(page); // opened before the relation exists
  await importGraph(page); // as a pass (scheduled, or `hyatlas digest`) or an import would add it
  let seen = false;
  for (let i = 0; i < 20 && !seen; i++) {
    await page.waitForTimeout(500);
    seen = (await relationsText(page)).includes(ORG);
    // Step to the newest change, as a user would look for it.
    if (!seen && (await page.locator('[data-testid="mp-next"]').count())) await page.click('[data-testid="mp-next"]');
  }
  check(seen, `a relation added while the Mind Palace is open (${PERSON} works at ${ORG}) never shows without leaving the page: ` +
    'the page reads the history once (MindPalaceView.svelte load(); follow statusStore graph_nodes/graph_edges, as the Atlas follows the counts)');
}

async function timezone(page) {
  await openPalace(page); // a fresh read, so the relation is there
  await page.check('[data-testid="mp-axis-valid"]');
  await setPlayhead(page, VALID_FROM);
  const rel = await relationsText(page);
  check(rel.includes(ORG) && rel.includes('from 2020-05-01'), `the check's relation is not listed at 2020-05-01 on the valid axis: ${rel}`);
  const label = (await page.innerText('[data-testid="mp-date"]')).trim();
  const sameDay = /5\/1\/2020|2020-05-01|May 1,? 2020/.test(label);
  check(sameDay, `on "what was true then" the playhead at the start of "from 2020-05-01" reads "${label}" in Los Angeles, ` +
    'the evening before (MindPalaceView.svelte fmt(): a valid-axis time at midnight UTC is a date, show it as dayOfUnix does)');
}

async function axisSwitch(page) {
  // The playhead is at 2020-05-01 on the valid axis (previous step).
  await page.check('[data-testid="mp-axis-recorded"]');
  await page.waitForTimeout(300);
  // The label is read in the page's zone (the browser's, not this script's).
  const [label, shown, value, min, max] = await page.evaluate(() => {
    const el = document.querySelector('[data-testid="mp-playhead"]');
    const label = document.querySelector('[data-testid="mp-date"]').textContent.trim();
    return [label, Date.parse(label) / 1000, Number(el.value), Number(el.min), Number(el.max)];
  });
  check(Number.isFinite(shown) && Math.abs(shown - value) <= 120,
    `after switching to "what the agent knew then" the date reads "${label}" while the slider sits at ` +
    `${new Date(value * 1000).toLocaleString('en-US')} (its range ${new Date(min * 1000).toLocaleString('en-US')} – ${new Date(max * 1000).toLocaleString('en-US')}): ` +
    'the playhead was left outside the new axis (MindPalaceView.svelte: clamp t into [lo, hi] when the axis changes)');
}

async function play(page) {
  await openPalace(page); // the playhead starts at the end
  const before = (await page.innerText('[data-testid="mp-date"]')).trim();
  await page.click('[data-testid="mp-play"]');
  let moved = false;
  for (let i = 0; i < 15 && !moved; i++) {
    await page.waitForTimeout(200);
    moved = (await page.innerText('[data-testid="mp-date"]')).trim() !== before;
  }
  check(moved, `Play on a freshly opened Mind Palace does nothing (the playhead stays at "${before}" and the button flips back to Play): ` +
    'it starts at the last change (MindPalaceView.svelte: Play at the end should start again from the first change)');
  if ((await page.innerText('[data-testid="mp-play"]')).includes('Pause')) await page.click('[data-testid="mp-play"]');
}

async function find(page) {
  const q = `no-such-entity-${STAMP}`;
  await page.fill('[data-testid="mp-find"]', q);
  await page.press('[data-testid="mp-find"]', 'Enter');
  await page.waitForTimeout(500);
  const text = await page.locator('main').innerText();
  check(/no entit|not found|nothing (is )?(called|named|matches)|no match/i.test(text) || text.includes(`“${q}”`) || text.includes(`"${q}"`),
    `finding "${q}" (nothing has that name) gives no answer at all: the page stays as it was (MindPalaceView.svelte focus(): say that nothing matched, ` +
    'and whether the entity exists at another moment)');
}

async function narrow(page) {
  await page.setViewportSize({ width: 320, height: 200 });
  await page.waitForTimeout(500);
  const [scroll, client, playH, dateH] = await page.evaluate(() => [
    document.documentElement.scrollWidth,
    document.documentElement.clientWidth,
    document.querySelector('[data-testid="mp-play"]').getBoundingClientRect().height,
    document.querySelector('[data-testid="mp-date"]').getBoundingClientRect().height,
  ]);
  check(scroll <= client, `with a graph on show the Mind Palace scrolls sideways at 400% zoom (${scroll} > ${client} CSS px; MindPalaceView.svelte .timeline does not wrap)`);
  check(playH < 60 && dateH < 60, `at 400% zoom the timeline's Play button (${Math.round(playH)} px) and date (${Math.round(dateH)} px) break a letter per line (MindPalaceView.svelte .timeline)`);
  await page.setViewportSize({ width: 1280, height: 800 });
}

await runChecks('palace timeline e2e', [['stale', stale], ['timezone', timezone], ['axis switch', axisSwitch], ['play', play], ['find', find], ['400% zoom', narrow]],
  { timezoneId: 'America/Los_Angeles', locale: 'en-US' });
