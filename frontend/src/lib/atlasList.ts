// How the Atlas reads its list while agents write, edit and retire
// meanwhile. GET /api/v1/list hands each page a `next` cursor (its last
// row's place in the order), so the next page starts right after that row
// however many rows were added or removed above it.
import type { ListItem, ListPage } from './types';

/** The most rows one list request returns (the API's cap). */
export const MAX_LIMIT = 1000;

/** The rows of a read, the list's count then, and where the next page starts ('' when no row follows). */
export interface Rows {
  memories: ListItem[];
  total: number;
  next: string;
}

/** One list request: limit rows after the cursor after ('' for the top). */
export type ReadPage = (after: string, limit: number) => Promise<ListPage>;

/**
 * listed followed by the rows of more that are not in it: a memory is
 * listed once (the list's rows are keyed by id; a row promoted past the
 * cursor of a list sorted by strength comes round again).
 */
export function appendNew(listed: ListItem[], more: ListItem[]): ListItem[] {
  const ids = new Set(listed.map((m) => m.memory_id));
  const fresh = more.filter((m) => !ids.has(m.memory_id) && ids.add(m.memory_id));
  return fresh.length ? [...listed, ...fresh] : listed;
}

/** Reads up to size rows (at most MAX_LIMIT) after the cursor after. */
export async function readNext(after: string, size: number, read: ReadPage): Promise<Rows> {
  const page = await read(after, Math.max(1, Math.min(MAX_LIMIT, size)));
  return { memories: page.memories, total: page.total, next: page.next ?? '' };
}

/**
 * Reads the list's first count rows again (the rows the list shows, after
 * an action, so a row far down keeps its place), in requests of at most
 * MAX_LIMIT, each going on from the one before.
 */
export async function readFirst(count: number, read: ReadPage): Promise<Rows> {
  let rows: Rows = { memories: [], total: 0, next: '' };
  for (;;) {
    const page = await readNext(rows.next, count - rows.memories.length, read);
    rows = { memories: appendNew(rows.memories, page.memories), total: page.total, next: page.next };
    if (!rows.next || rows.memories.length >= count) return rows;
  }
}

/**
 * Follows the store's changes (the status poll's signature) for a list
 * that cannot always read itself again at once: while a form is open, the
 * user is scrolled down or a read is on its way, a change is kept, and
 * read once the list is free again.
 */
export class MissedChanges {
  #seen = '';
  #missed = false;

  /** Notes the store's signature now; the first one only says where it starts. */
  see(sig: string): void {
    if (this.#seen && sig !== this.#seen) this.#missed = true;
    this.#seen = sig;
  }

  /** The list is being read again from its start: what was missed will be in it. */
  caughtUp(): void {
    this.#missed = false;
  }

  /** Whether to read the list again now: a change is unread and the list is free to. */
  due(free: boolean): boolean {
    return this.#missed && free;
  }
}
