// Pure helpers of the Atlas page.

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

/** A date as YYYY-MM-DD in the viewer's zone ('' when missing or invalid). */
export function shortDate(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime()) || d.getUTCFullYear() < 1000) return '';
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/** What a row of the Atlas asks its page to do with its memory. */
export type RowAction = 'open' | 'promote' | 'demote' | 'edit' | 'retire' | 'restore' | 'delete';
