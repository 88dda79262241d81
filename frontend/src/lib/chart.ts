// Pure helpers of the Overview charts.
import type { Day } from './types';

export interface Bar {
  date: string;
  raw: number; // conversation turns written (L2)
  derived: number; // everything extraction and consolidation wrote
  calls: number; // LLM calls
}

/** Turns a timeline into bars: raw writes, derived memories, LLM calls. */
export function barsOf(days: Day[]): Bar[] {
  return days.map((d) => {
    let derived = 0;
    for (const [layer, n] of Object.entries(d.added)) if (layer !== 'l2_raw') derived += n ?? 0;
    const calls = Object.values(d.llm_calls).reduce((a, b) => a + b, 0);
    return { date: d.date, raw: d.added.l2_raw ?? 0, derived, calls };
  });
}

/** The largest value a chart of these bars must show (at least 1). */
export function scaleOf(bars: Bar[], pick: (b: Bar) => number): number {
  return Math.max(1, ...bars.map(pick));
}
