import type { Why } from './types';

/** The boosts a hit's score adds up, in the order they are shown. */
const BOOSTS = ['date', 'entity', 'speaker', 'graph', 'session', 'recency', 'usage', 'intention'] as const;

/**
 * The parts of a hit's score as short labels: the keyword leg by its rank
 * (its raw BM25 means little to a reader and is near 0 in a small store),
 * the cosine (closeness in meaning) with its rank in the vector leg, each boost as "+n", and strength as a factor.
 * Parts that did not count are left out.
 */
export function whyParts(why: Why): string[] {
  const out: string[] = [];
  const num = (part: string): number => (typeof why[part] === 'number' ? (why[part] as number) : 0);
  if (num('keyword_rank')) out.push(`keyword #${num('keyword_rank')}`);
  else if (why.keyword > 0) out.push('keyword');
  if (num('vector_rank')) out.push(`meaning ${why.vector.toFixed(2)} #${num('vector_rank')}`);
  else if (why.vector) out.push(`meaning ${why.vector.toFixed(2)}`);
  for (const b of BOOSTS) {
    const v = num(b);
    if (v) out.push(`${b} +${v.toFixed(2)}`);
  }
  const strength = num('strength');
  if (strength && Math.abs(strength - 1) >= 0.005) out.push(`strength ×${strength.toFixed(2)}`);
  if (why.duplicate_of) out.push(`near copy of a better hit ×${(num('demotion') || 0.5).toFixed(2)}`);
  return out;
}
