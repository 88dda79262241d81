import { describe, expect, it } from 'vitest';
import { MAX_LIMIT, MissedChanges, appendNew, readFirst, readNext, type ReadPage } from './atlasList';
import type { ListItem } from './types';

const row = (id: string): ListItem => ({
  memory_id: id, content: id, layer: 'l3_fact', user_id: '', agent_id: '', session_id: '', ts: '', category: '', strength: 0.5,
});
const ids = (rows: ListItem[]) => rows.map((m) => m.memory_id);

/**
 * A server list of n rows (m0, m1, ...) that can change between requests,
 * paged as the API pages: `next` names the page's last row, and the next
 * page starts after it (where it would stand: rows keep their order). asked
 * records each request.
 */
function server(n: number) {
  const s = { rows: Array.from({ length: n }, (_, i) => row(`m${i}`)), asked: [] as [string, number][] };
  const order = (id: string) => (id.startsWith('new') ? -1 - Number(id.slice(3)) : Number(id.slice(1)));
  const read: ReadPage = async (after, limit) => {
    expect(limit).toBeLessThanOrEqual(MAX_LIMIT);
    s.asked.push([after, limit]);
    const from = after === '' ? 0 : s.rows.findIndex((m) => order(m.memory_id) > order(after));
    const memories = from < 0 ? [] : s.rows.slice(from, from + limit);
    const more = from >= 0 && from + limit < s.rows.length;
    return { total: s.rows.length, offset: 0, limit, memories, ...(more ? { next: memories[memories.length - 1].memory_id } : {}) };
  };
  return { s, read };
}

describe('a next page', () => {
  it('lists a memory once when an agent wrote above the end', async () => {
    const { s, read } = server(400);
    const first = await readFirst(200, read);
    s.rows.unshift(row('new1'), row('new2'));
    const next = await readNext(first.next, 200, read);
    const all = appendNew(first.memories, next.memories);
    expect(new Set(ids(all)).size).toBe(all.length);
    expect(ids(all).slice(198, 202)).toEqual(['m198', 'm199', 'm200', 'm201']);
  });

  it.each([
    ['above the end', 10, 30],
    ['the last row read, and more above it', 180, 20],
  ])('skips no row when rows %s were removed meanwhile', async (_name, at, count) => {
    const { s, read } = server(400);
    const first = await readFirst(200, read);
    s.rows.splice(at, count);
    const next = await readNext(first.next, 200, read);
    expect(ids(next.memories)).toEqual(ids(s.rows.slice(200 - count, 400 - count)));
  });

  it('says when no row follows', async () => {
    const { read } = server(250);
    const first = await readFirst(200, read);
    const last = await readNext(first.next, 200, read);
    expect([last.memories.length, last.next]).toEqual([50, '']);
  });

  it('appendNew keeps the list as it was when nothing is new', () => {
    const listed = [row('a'), row('b')];
    expect(appendNew(listed, [row('b')])).toBe(listed);
    expect(ids(appendNew(listed, [row('b'), row('c'), row('c')]))).toEqual(['a', 'b', 'c']);
  });
});

describe('reading the list again after an action', () => {
  it('reads every row shown, past the API cap of 1,000, each request going on from the last', async () => {
    const { s, read } = server(2600);
    const rows = await readFirst(2345, read);
    expect(ids(rows.memories)).toEqual(ids(s.rows.slice(0, 2345)));
    expect(rows.total).toBe(2600);
    expect(s.asked).toEqual([['', 1000], ['m999', 1000], ['m1999', 345]]);
  });

  it('stops at the list end, and reads one request for a short list', async () => {
    const { s, read } = server(150);
    const rows = await readFirst(200, read);
    expect([rows.memories.length, rows.next, rows.total]).toEqual([150, '', 150]);
    expect(s.asked).toEqual([['', 200]]);
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
