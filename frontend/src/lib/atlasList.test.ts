import { describe, expect, it } from 'vitest';
import { MAX_LIMIT, MissedChanges, OVERLAP, appendNew, readFirst, readNext, type ReadPage } from './atlasList';
import type { ListItem } from './types';

const row = (id: string): ListItem => ({
  memory_id: id, content: id, layer: 'l3_fact', user_id: '', agent_id: '', session_id: '', ts: '', category: '', strength: 0.5,
});
const ids = (rows: ListItem[]) => rows.map((m) => m.memory_id);

/** A server list of n rows (m0, m1, ...) that can change between requests; asked records each request. */
function server(n: number) {
  const s = { rows: Array.from({ length: n }, (_, i) => row(`m${i}`)), asked: [] as [number, number][] };
  const read: ReadPage = async (offset, limit) => {
    expect(limit).toBeLessThanOrEqual(MAX_LIMIT);
    s.asked.push([offset, limit]);
    return { total: s.rows.length, offset, limit, memories: s.rows.slice(offset, offset + limit) };
  };
  return { s, read };
}

describe('a next page', () => {
  it('lists a memory once when an agent wrote above the end (the rows moved down)', async () => {
    const { s, read } = server(400);
    const first = await readFirst(200, read);
    s.rows.unshift(row('new1'), row('new2'));
    const next = await readNext(first.end, 200, read);
    const all = appendNew(first.memories, next.memories);
    expect(new Set(ids(all)).size).toBe(all.length);
    expect(ids(all).slice(198, 202)).toEqual(['m198', 'm199', 'm200', 'm201']);
  });

  it('skips no row when rows above the end were retired meanwhile', async () => {
    const { s, read } = server(400);
    const first = await readFirst(200, read);
    s.rows.splice(10, 3); // m10..m12 retired: m200.. moved up by three
    const next = await readNext(first.end, 200, read);
    const all = appendNew(first.memories, next.memories);
    expect(ids(all)).toContain('m200');
    expect(ids(all).slice(200)).toEqual(ids(s.rows.slice(197)));
  });

  it('always ends further on, so reading on stops', async () => {
    const { s, read } = server(250);
    s.rows.unshift(...Array.from({ length: 300 }, (_, i) => row(`new${i}`))); // more written than a page
    const next = await readNext(200, 200, read);
    expect(next.end).toBe(400);
    expect(s.asked).toEqual([[200 - OVERLAP, 200 + OVERLAP]]);
  });

  it('appendNew keeps the list as it was when nothing is new', () => {
    const listed = [row('a'), row('b')];
    expect(appendNew(listed, [row('b')])).toBe(listed);
    expect(ids(appendNew(listed, [row('b'), row('c'), row('c')]))).toEqual(['a', 'b', 'c']);
  });
});

describe('reading the list again after an action', () => {
  it('reads every row shown, past the API cap of 1,000, in overlapping requests', async () => {
    const { s, read } = server(2600);
    const rows = await readFirst(2345, read);
    expect(rows.memories.length).toBe(2345);
    expect(ids(rows.memories)).toEqual(ids(s.rows.slice(0, 2345)));
    expect(rows.total).toBe(2600);
    expect(s.asked[0]).toEqual([0, 1000]);
    expect(s.asked.length).toBe(3);
  });

  it('stops at the list end, and reads one request for a short list', async () => {
    const { s, read } = server(150);
    const rows = await readFirst(200, read);
    expect([rows.memories.length, rows.end, rows.total]).toEqual([150, 150, 150]);
    expect(s.asked).toEqual([[0, 200]]);
  });
});

describe('changes seen while the list is busy', () => {
  it('are read once the list is free, and only once', () => {
    const c = new MissedChanges();
    c.see('3:0:1');
    expect(c.due(true)).toBe(false); // the first signature is where it starts
    c.see('4:0:2'); // an agent wrote while a form was open
    expect(c.due(false)).toBe(false);
    c.see('4:0:2');
    expect(c.due(true)).toBe(true); // the form closed: read again
    c.caughtUp();
    expect(c.due(true)).toBe(false);
  });

  it('a change during a read is read after it', () => {
    const c = new MissedChanges();
    c.see('a');
    c.caughtUp(); // a read starts
    c.see('b'); // a change while it runs
    expect(c.due(false)).toBe(false);
    expect(c.due(true)).toBe(true);
  });
});
