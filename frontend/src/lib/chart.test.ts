import { describe, expect, it } from 'vitest';
import { barsOf, scaleOf } from './chart';

describe('chart helpers', () => {
  it('splits writes into raw and derived and sums calls', () => {
    const bars = barsOf([
      { date: '2026-11-29', added: {}, llm_calls: {} },
      { date: '2026-11-30', added: { l2_raw: 3, l3_fact: 2, l8_entity: 1 }, llm_calls: { extract: 3, now: 1 } },
    ]);
    expect(bars).toEqual([
      { date: '2026-11-29', raw: 0, derived: 0, calls: 0 },
      { date: '2026-11-30', raw: 3, derived: 3, calls: 4 },
    ]);
    expect(scaleOf(bars, (b) => b.raw + b.derived)).toBe(6);
    expect(scaleOf([], (b) => b.calls)).toBe(1);
  });
});
