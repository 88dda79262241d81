// Writes a HyAtlas export (version 2) with a small knowledge graph to
// stdout, for `hyatlas import -`: Alice works at Acme from 2024-01-10 to
// 2025-03-01, then at Globex from 2025-03-01, dated as extraction stores a
// date-only day (backend/extract/parse.go parseDate: midnight UTC); the
// facts carry those days as event_at; plus N filler relations.
//   node e2e/zz_review_graphseed.mjs [N] | hyatlas import -
const N = Number(process.argv[2] ?? 0);
const out = [];
const w = (o) => out.push(JSON.stringify(o));
w({ type: 'header', format: 'hyatlas-export', version: 2 });
const mem = (id, content, at, event_at) => w({ type: 'memory', memory: { id, layer: 'l3_fact', owner: { user_id: 'default' }, content,
  category: 'fact', strength: 0.6, created_at: at, event_at, extraction: 'skipped' } });
mem('mgacme1', 'Alice started at Acme', '2024-01-10T12:00:00Z', '2024-01-10T00:00:00Z');
mem('mgglobex1', 'Alice joined Globex', '2025-03-01T03:00:00Z', '2025-03-01T00:00:00Z');
const node = (id, label, type, at = '2024-01-10T12:00:00Z') => w({ type: 'graph_node', user_id: 'default', node: { id, label, type, created_at: at } });
node('ealice', 'Alice', 'person');
node('eacme', 'Acme', 'organization');
node('eglobex', 'Globex', 'organization', '2025-03-01T03:00:00Z');
const Z = '0001-01-01T00:00:00Z';
const rel = (r) => w({ type: 'graph_relation', user_id: 'default', relation: { valid_to: Z, expired_at: Z, facts: [], turns: [], exclusive: false, ...r } });
rel({ id: 'racme', from: 'ealice', to: 'eacme', relation: 'works at', exclusive: true, valid_from: '2024-01-10T00:00:00Z',
  valid_to: '2025-03-01T00:00:00Z', learned_at: '2024-01-10T12:00:00Z', recorded_at: '2024-01-10T12:00:00Z', facts: ['mgacme1'] });
rel({ id: 'rglobex', from: 'ealice', to: 'eglobex', relation: 'works at', exclusive: true, valid_from: '2025-03-01T00:00:00Z',
  learned_at: '2025-03-01T03:00:00Z', recorded_at: '2025-03-01T03:00:00Z', facts: ['mgglobex1'] });
let nodes = 3;
for (let i = 0; i < N; i++) {
  const a = `ef${i}`, b = `eg${i}`;
  node(a, `Filler person ${i}`, 'person'); node(b, `Filler tool ${i}`, 'tool'); nodes += 2;
  rel({ id: `rf${i}`, from: a, to: b, relation: 'uses', valid_from: '2024-06-01T00:00:00Z', learned_at: '2024-06-01T00:00:00Z', recorded_at: '2024-06-01T00:00:00Z' });
}
w({ type: 'end', memories: 2, files: 0, nodes, relations: 2 + N, links: 0 });
process.stdout.write(out.join('\n') + '\n');
