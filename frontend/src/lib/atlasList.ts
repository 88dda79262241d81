// How the Atlas reads its list while agents write, edit and retire
// meanwhile. GET /api/v1/list pages by offset (it has no cursor), so the
// rows under an offset move when a row is added or removed above it.
import type { ListItem, ListPage } from './types';

/** The most rows one list request returns (the API's cap). */
export const MAX_LIMIT = 1000;

/**
 * How many rows a next page reads again before where the last one ended:
 * a row retired or deleted above that point moves the rows after it up,
 * and a page read from exactly there would skip the ones that moved past
 * its start (up to OVERLAP removals are caught).
 */
export const OVERLAP = 20;

/** The rows of a read, the list's count then, and the offset after its last row (where the next page starts). */
export interface Rows {
  memories: ListItem[];
  total: number;
  end: number;
}

/** One list request: limit rows from offset. */
export type ReadPage = (offset: number, limit: number) => Promise<ListPage>;

/**
 * listed followed by the rows of more that are not in it: a memory is
 * listed once (the list's rows are keyed by id). A row written above the
 * end moves listed rows down into the next page, and OVERLAP reads some
 * again on purpose.
 */
export function appendNew(listed: ListItem[], more: ListItem[]): ListItem[] {
  const ids = new Set(listed.map((m) => m.memory_id));
  const fresh = more.filter((m) => !ids.has(m.memory_id) && ids.add(m.memory_id));
  return fresh.length ? [...listed, ...fresh] : listed;
}

/**
 * Reads up to size rows after end, starting OVERLAP rows before it (the
 * caller drops those already listed, appendNew). Its end is always past
 * the one before unless the list has no more rows, so reading on ends.
 */
export async function readNext(end: number, size: number, read: ReadPage): Promise<Rows> {
  const from = Math.max(0, end - OVERLAP);
  const page = await read(from, Math.min(MAX_LIMIT, size + end - from));
  return { memories: page.memories, total: page.total, end: from + page.memories.length };
}

/**
 * Reads the list's first count rows again (the rows the list shows, after
 * an action, so a row far down keeps its place), in requests of at most
 * MAX_LIMIT, each overlapping the one before.
 */
export async function readFirst(count: number, read: ReadPage): Promise<Rows> {
  let rows: Rows = { memories: [], total: 0, end: 0 };
  for (;;) {
    const next = await readNext(rows.end, count - rows.end, read);
    const progressed = next.end > rows.end;
    rows = { memories: appendNew(rows.memories, next.memories), total: next.total, end: next.end };
    if (!progressed || rows.end >= count || rows.end >= rows.total) return rows;
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
