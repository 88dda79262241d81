// Pure helpers of the Atlas page.
import type { ListItem, SearchAnswer } from './types';

/** Strength bands of the Atlas: in the prompt (≥ 0.75), middle, low. */
export type Band = '' | 'injected' | 'middle' | 'low';

export const INJECT_AT = 0.75;

/** The list filter's bounds for a band (inclusive; undefined: open). */
export function bandOf(b: Band): { min?: number; max?: number } {
  switch (b) {
    case 'injected':
      return { min: INJECT_AT };
    case 'middle':
      return { min: 0.5, max: 0.749999 };
    case 'low':
      return { max: 0.499999 };
    default:
      return {};
  }
}

/** The glyph by strength: ✶ in the prompt, ◌ middle, · low. */
export function glyphOf(strength: number): string {
  if (strength >= INJECT_AT) return '✶';
  if (strength >= 0.5) return '◌';
  return '·';
}

/**
 * A date as YYYY-MM-DD in the viewer's zone ('' when missing or invalid).
 * Midnight UTC is a date with no time (the server stores "2024-01-10" so):
 * it is that day wherever the viewer is, never the evening before.
 */
export function shortDate(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime()) || d.getUTCFullYear() < 1000) return '';
  const p = (n: number) => String(n).padStart(2, '0');
  if (d.getUTCHours() === 0 && d.getUTCMinutes() === 0 && d.getUTCSeconds() === 0 && d.getUTCMilliseconds() === 0) {
    return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}`;
  }
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/** A time in Unix seconds (search hits', the graph's) as RFC 3339, as the list's ts ('' for 0). */
export function unixToIso(seconds: number | null | undefined): string {
  return seconds ? new Date(seconds * 1000).toISOString().replace('.000Z', 'Z') : '';
}

/** shortDate of a time in Unix seconds (the graph's wire times; 0: ''). */
export function dayOfUnix(seconds: number): string {
  return shortDate(unixToIso(seconds));
}

/** What a row of the Atlas asks its page to do with its memory. */
/**
 * The Atlas rows' heights in CSS px: a row has a fixed height so the list
 * can show only the rows near the screen. In a narrow window (NARROW_ROWS,
 * e.g. 400% zoom) a row stacks its text, details and buttons, so it is
 * taller. AtlasRow.svelte's style uses the same media query.
 */
export const ROW_HEIGHT = 64;
export const NARROW_ROW_HEIGHT = 124;
export const NARROW_ROWS = '(max-width: 36rem)';

/** The row height for a window that does or does not match NARROW_ROWS. */
export function rowHeight(narrow: boolean): number {
  return narrow ? NARROW_ROW_HEIGHT : ROW_HEIGHT;
}

export type RowAction = 'open' | 'promote' | 'demote' | 'edit' | 'retire' | 'restore' | 'delete';

/** The layers whose rows have a strength to promote or demote (the server's CuratedLayers). */
const CURATED = new Set(['l1_profile', 'l3_fact', 'l6_schema', 'l7_intention', 'l8_entity']);

/** Whether a row of this layer has a strength to change. */
export function hasStrength(layer: string): boolean {
  return CURATED.has(layer);
}

/**
 * Runs a row's action on a memory unless one runs for it already (then
 * undefined, and nothing is sent): a double click on Restore or ▲ sends
 * once. running holds the memories with an action on its way (the page's
 * is reactive, so their rows show it); another memory's row is not held up.
 */
export function onePerRow<T>(running: Set<string>, id: string, action: () => Promise<T>): Promise<T> | undefined {
  if (running.has(id)) return undefined;
  running.add(id);
  return action().finally(() => running.delete(id));
}

/**
 * What an edit changes: only the fields that differ from the row, so a
 * raw turn (which has no category) can have its text edited, and an edit
 * that changes nothing sends nothing (null).
 */
export function editChange(
  before: { text: string; category: string },
  after: { text: string; category: string },
): { content?: string; category?: string } | null {
  const change: { content?: string; category?: string } = {};
  if (after.text !== before.text) change.content = after.text;
  if (after.category.trim() !== before.category.trim()) change.category = after.category;
  return Object.keys(change).length ? change : null;
}

/**
 * What the Undo of a saved edit sends: the old value of each field the
 * edit changed, and nothing else (as editChange: a raw turn's text edited
 * back must not send its empty category), only while the memory still
 * reads as the edit left it (if_content). A category given to a memory
 * that had none cannot be taken away (the API keeps a category once set):
 * that part is left out, and with nothing else to undo there is no Undo
 * (null).
 */
export function undoChange(
  was: { text: string; category: string },
  change: { content?: string; category?: string },
): { content?: string; category?: string; if_content: string } | null {
  const undo: { content?: string; category?: string; if_content: string } = { if_content: change.content ?? was.text };
  if (change.content !== undefined) undo.content = was.text;
  if (change.category !== undefined && was.category !== '') undo.category = was.category;
  return undo.content === undefined && undo.category === undefined ? null : undo;
}

/**
 * The Atlas rows of a search answer ("by meaning"), closest first, with the
 * list's other filters applied: the layer (none: everything but raw turns,
 * as the list), the category (as spelt, as the list compares it) and the
 * strength band. A row is dated as the list dates it: when it happened, or
 * when it was written (a hit's gmt_created is in Unix seconds, the list's
 * ts in RFC 3339).
 */
export function closestByMeaning(ans: SearchAnswer, f: { layer: string; category: string; band: Band }): ListItem[] {
  const b = bandOf(f.band);
  const cat = f.category.trim();
  return ans.order
    .flatMap((ch) => ans.memories[ch] ?? [])
    .filter((h) => (f.layer ? h.layer === f.layer : h.layer !== 'l2_raw'))
    .filter((h) => !cat || (h.category ?? '') === cat)
    .filter((h) => (b.min === undefined || h.strength >= b.min) && (b.max === undefined || h.strength <= b.max))
    .map((h) => ({
      memory_id: h.memory_id, content: h.content, layer: h.layer, user_id: '', agent_id: '', session_id: '',
      ts: unixToIso(h.gmt_created), event_at: h.event_at, category: h.category ?? '', strength: h.strength,
    }));
}

/** A memory's text to quote in a message: at most max characters (a
 * long one is cut with an ellipsis), on one line, printable. */
export function quote(text: string, max = 120): string {
  const one = printable(text.replace(/\s+/g, ' ').trim());
  const chars = Array.from(one);
  return chars.length > max ? chars.slice(0, max).join('') + '…' : one;
}

/** Text as it is shown: a control character (other than a line break or
 * a tab), which would draw as nothing or an empty box, is shown by its
 * Unicode picture (ESC as ␛, BEL as ␇, DEL as ␡), and a C1 control or a
 * bidirectional control (which could reorder how the text reads) as �,
 * as the CLI shows them. */
export function printable(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000b-\u001f\u007f]/g, (c) =>
      c === '\u007f' ? '\u2421' : String.fromCharCode(0x2400 + c.charCodeAt(0)),
    )
    .replace(/[\u0080-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '\ufffd');
}
