import { describe, expect, it } from 'vitest';
import { bandOf, glyphOf, shortDate } from './atlas';

describe('atlas helpers', () => {
  it.each([
    [0.92, '✶'],
    [0.75, '✶'],
    [0.74, '◌'],
    [0.5, '◌'],
    [0.49, '·'],
    [0, '·'],
  ])('glyph of %s is %s', (s, g) => expect(glyphOf(s)).toBe(g));

  it('bands do not overlap and cover 0..1', () => {
    expect(bandOf('injected')).toEqual({ min: 0.75 });
    expect(bandOf('middle').min).toBe(0.5);
    expect(bandOf('middle').max!).toBeLessThan(0.75);
    expect(bandOf('low').max!).toBeLessThan(0.5);
    expect(bandOf('')).toEqual({});
  });

  it('formats dates and rejects missing ones', () => {
    expect(shortDate('2026-11-30T12:00:00Z')).toMatch(/^2026-11-(29|30|31)|2026-12-01$/);
    expect(shortDate('')).toBe('');
    expect(shortDate(null)).toBe('');
    expect(shortDate('0001-01-01T00:00:00Z')).toBe('');
    expect(shortDate('nonsense')).toBe('');
  });
});
