import { describe, expect, it } from 'vitest';
import { whyParts } from './why';

describe('whyParts', () => {
  it.each([
    [
      'both legs, a boost and strength',
      { keyword: 0.000001, keyword_rank: 1, vector: 0.8912, vector_rank: 3, session: 0.6, strength: 1.05, fused: 2 },
      ['keyword #1', 'meaning 0.89 #3', 'session +0.60', 'strength ×1.05'],
    ],
    ['keyword only, scored outside the leg', { keyword: 2.5, vector: 0, fused: 1, strength: 1 }, ['keyword']],
    ['a cosine outside the vector leg', { keyword: 1, keyword_rank: 2, vector: -0.11, fused: 1, strength: 1 }, ['keyword #2', 'meaning -0.11']],
    ['a date part', { keyword: 0, vector: 0.5, vector_rank: 1, date: 0.8, fused: 1, strength: 1 }, ['meaning 0.50 #1', 'date +0.80']],
    [
      'a line of the speaker the query names, in its session',
      { keyword: 3.1, keyword_rank: 2, vector: 0, speaker: 0.35, session: 0.6, fused: 2, strength: 1 },
      ['keyword #2', 'speaker +0.35', 'session +0.60'],
    ],
    ['nothing counted', { keyword: 0, vector: 0, fused: 0, strength: 1 }, []],
    [
      'a near copy of a better hit, demoted',
      { keyword: 2, keyword_rank: 2, vector: 0.9, vector_rank: 2, fused: 1, strength: 1, duplicate_of: 'm1', demotion: 0.5 },
      ['keyword #2', 'meaning 0.90 #2', 'near copy of a better hit ×0.50'],
    ],
  ])('%s', (_, why, want) => {
    expect(whyParts(why)).toEqual(want);
  });
});
