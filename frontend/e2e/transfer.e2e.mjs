// Export and import on the Snapshots page, in a browser tab: the export
// is a download, the import a file the person picks; an import that
// brings something new is undone by the snapshot made just before it.
//
//   HYATLAS_URL   the dashboard sign-in link (a test instance: the check
//                 adds, deletes and imports memories and restores snapshots)
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { check, runChecks } from './checks.mjs';

const call = (page, method, path, body) =>
  page.evaluate(async ([method, path, body]) => {
    const r = await fetch('/api/v1' + path, { method, credentials: 'same-origin', body: body ? JSON.stringify(body) : undefined,
      headers: { 'Content-Type': 'application/json', 'X-HyAtlas-Session': localStorage.getItem('hyatlas.session') ?? '' } });
    return [r.status, await r.json().catch(() => null)];
  }, [method, path, body]);

const dir = mkdtempSync(join(tmpdir(), 'hyatlas-transfer-'));
const texts = ['Mira keeps bees on the roof', 'Mira fixed the old tram in Porto'];
let exportFile = '';
let ids = [];

const exportText = (page) =>
  page.evaluate(async () => {
    const r = await fetch('/api/v1/export', { credentials: 'same-origin',
      headers: { 'X-HyAtlas-Session': localStorage.getItem('hyatlas.session') ?? '' } });
    return r.text();
  });

async function snapshotCount(page) {
  const [, body] = await call(page, 'GET', '/snapshots');
  return body?.snapshots?.length ?? -1;
}

async function message(page) {
  const msg = page.locator('[data-testid="xfer-message"]');
  await page.waitForFunction(() => {
    const m = document.querySelector('[data-testid="xfer-message"]')?.textContent ?? '';
    return (m && !m.endsWith('…')) || document.querySelector('[data-testid="xfer-error"]');
  }, null, { timeout: 30_000 });
  const err = await page.locator('[data-testid="xfer-error"]').allInnerTexts();
  return [await msg.innerText(), err.join(' ')];
}

async function exportEverything(page) {
  for (const text of texts) {
    const [status, body] = await call(page, 'POST', '/memories', { content: text, user_id: 'mira' });
    if (status >= 300) throw new Error(`POST /memories answered ${status}`);
    ids.push(body.id);
  }
  await page.click('[data-testid="nav-snapshots"]');
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-jsonl"]')]);
  exportFile = join(dir, download.suggestedFilename());
  await download.saveAs(exportFile);
  const body = readFileSync(exportFile, 'utf8');
  check(/^hyatlas-export-\d{8}\.jsonl$/.test(download.suggestedFilename()), `the export is named ${download.suggestedFilename()}`);
  check(texts.every((t) => body.includes(t)) && body.trimEnd().endsWith('}') && body.includes('"type":"end"'),
    `the downloaded export lacks a memory or its end record:\n${body.slice(0, 300)}`);
  const [msg, err] = await message(page);
  check(/^Downloaded hyatlas-export-\d{8}\.jsonl \(\d+ KB\)\.$/.test(msg) && !err, `after the export the page says "${msg}" ${err}`);

  const [md] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid="export-markdown"]')]);
  const mdFile = join(dir, md.suggestedFilename());
  await md.saveAs(mdFile);
  check(md.suggestedFilename().endsWith('.md') && readFileSync(mdFile, 'utf8').includes(texts[1]), 'the Markdown export lacks a memory');
}

async function pick(page, file) {
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.click('[data-testid="import"]')]);
  await chooser.setFiles(file);
  return message(page);
}

async function importNothingNew(page) {
  const before = await snapshotCount(page);
  const [msg, err] = await pick(page, exportFile);
  check(/^Nothing new: the 2 memories in the file were here already\.$/.test(msg) && !err, `importing what is here says "${msg}" ${err}`);
  check((await snapshotCount(page)) === before, 'an import that brought nothing new left a snapshot behind');
}

async function importAndUndo(page) {
  const [status] = await call(page, 'DELETE', `/memories/${ids[1]}`);
  if (status >= 300) throw new Error(`DELETE answered ${status}`);
  const before = await snapshotCount(page);
  const [msg, err] = await pick(page, exportFile);
  check(/^Imported 1 of 2 memories; 1 was here already and is left as it is\. .*The snapshot of .+ holds HyAtlas as it was before: Undo the import restores it\.$/.test(msg) && !err,
    `the import says "${msg}" ${err}`);
  const [, back] = await call(page, 'GET', `/memories/${ids[1]}`);
  check(back?.memory?.content === texts[1] || back?.content === texts[1], `the deleted memory is not back after the import: ${JSON.stringify(back).slice(0, 200)}`);
  check((await snapshotCount(page)) === before + 1, 'no snapshot was made before the import');
  // Undo the import, from the keyboard, after its confirmation.
  await page.locator('[data-testid="import-undo"]').focus();
  await page.keyboard.press('Enter');
  await page.locator('[data-testid="import-undo-confirm"]').click();
  await page.locator('[data-testid="xfer-message"]', { hasText: 'Undone' }).waitFor({ timeout: 30_000 });
  const at = await page.evaluate(() => document.activeElement?.getAttribute('data-testid'));
  check(at === 'import', `after Undo the import the focus is on ${at}, not Import`);
  const [gone] = await call(page, 'GET', `/memories/${ids[1]}`);
  check(gone === 404, `restoring the snapshot made before the import did not undo it (GET answered ${gone})`);
}

async function importJunk(page) {
  const junk = join(dir, 'notes.jsonl');
  writeFileSync(junk, 'these are my notes, not an export\n');
  const before = await snapshotCount(page);
  const [msg, err] = await pick(page, junk);
  check(/line 1/.test(err) && !/^Imported/.test(msg), `a file that is not an export: message "${msg}", error "${err}"`);
  check((await snapshotCount(page)) === before, 'a refused import left a snapshot behind');
  const focused = await page.evaluate(() => document.activeElement?.getAttribute('data-testid'));
  check(focused === 'import', `after the import the focus is on ${focused}, not the Import button`);
}

// An import that brings only knowledge-graph records (every memory in the
// file is here already) changed HyAtlas: it keeps its undo snapshot and
// does not say "Nothing new".
async function graphOnlyImport(page) {
  const [status] = await call(page, 'POST', '/memories', { content: 'Mira rode the funicular in Porto', user_id: 'mira' });
  if (status >= 300) throw new Error(`POST /memories answered ${status}`);
  // The export of this HyAtlas, with one entity more: its memories are all here.
  const lines = (await exportText(page)).trimEnd().split('\n');
  const end = JSON.parse(lines.pop());
  if (end.type !== 'end') throw new Error('the export has no end record');
  lines.push(JSON.stringify({ type: 'graph_node', user_id: 'mira', agent_id: '',
    node: { id: 'etransferporto01', label: 'Porto', type: 'place', created_at: '2026-01-01T00:00:00Z' } }));
  end.nodes = (end.nodes ?? 0) + 1;
  lines.push(JSON.stringify(end));
  const file = join(dir, 'with-graph.jsonl');
  writeFileSync(file, lines.join('\n') + '\n');

  await page.click('[data-testid="nav-snapshots"]');
  const before = await snapshotCount(page);
  const [chooser] = await Promise.all([page.waitForEvent('filechooser'), page.click('[data-testid="import"]')]);
  await chooser.setFiles(file);
  const [msg, err] = await message(page);
  const [, graph] = await call(page, 'GET', '/graph/history?user_id=mira');
  const added = (graph?.nodes ?? []).some((n) => n.label === 'Porto');
  check(added, `the entity was not imported (test setup): ${JSON.stringify(graph).slice(0, 200)} ${msg} ${err}`);
  check(!/^Nothing new/.test(msg), `an import that added an entity to the graph says "${msg}"`);
  check((await snapshotCount(page)) === before + 1,
    'the snapshot made before an import that changed the graph was deleted: the import cannot be undone');
}

// In the window, Import asks for the file first: no snapshot is made
// while the dialog is open, none at all when it is cancelled, and the one
// made once a file is chosen comes before the import.
async function windowOrder(page) {
  await page.click('[data-testid="nav-snapshots"]');
  const order = [];
  const seen = (r) => {
    if (r.method() === 'POST' && /\/api\/v1\/(snapshots|window\/import(\/choose)?)$/.test(r.url())) order.push(r.url().replace(/.*\/api\/v1\//, ''));
  };
  let choose = { cancelled: true };
  page.on('request', seen);
  await page.route('**/api/v1/window/import/choose', (r) => r.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(choose) }));
  await page.route('**/api/v1/window/import', (r) => r.fulfill({ status: 200, contentType: 'application/json',
    body: JSON.stringify({ path: '/x/e.jsonl', lines: 3, memories: 1, imported: 0, skipped: 1, reembed: 0, files: 0, files_skipped: [] }) }));
  try {
    await page.evaluate(() => (window.runtime = {})); // as in the Wails window
    await page.click('[data-testid="import"]');
    await page.waitForFunction(() => !(document.querySelector('[data-testid="xfer-message"]')?.textContent ?? '').endsWith('…'), null, { timeout: 30_000 });
    check(order.join(' ') === 'window/import/choose', `a cancelled window import sent ${order.join(', ')}: a snapshot for nothing`);
    order.length = 0;
    choose = { cancelled: false, path: '/x/e.jsonl', name: 'e.jsonl', bytes: 300 };
    await page.click('[data-testid="import"]');
    await page.locator('[data-testid="xfer-message"]', { hasText: 'Nothing new' }).waitFor({ timeout: 30_000 });
    check(order.slice(0, 3).join(' ') === 'window/import/choose snapshots window/import',
      `a window import sent ${order.join(', ')}: the file must be chosen before the snapshot, and the snapshot made before the import`);
  } finally {
    await page.evaluate(() => delete window.runtime);
    await page.unrouteAll();
    page.off('request', seen);
  }
}

await runChecks('transfer e2e', [['export', exportEverything], ['nothing new', importNothingNew], ['import and undo', importAndUndo],
  ['junk', importJunk], ['graph only', graphOnlyImport], ['window order', windowOrder]]);
