import { afterEach, describe, expect, it, vi } from 'vitest';
import { bandOf, closestByMeaning, editChange, onePerRow, undoChange, glyphOf, hasStrength, printable, quote, shortDate, type Band } from './atlas';
import type { SearchAnswer } from './types';

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

describe('dates west of UTC', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('keeps a day with no time on its day, and a time on the viewer\'s day', () => {
    vi.stubEnv('TZ', 'America/New_York');
    expect(new Date('2024-01-10T03:00:00Z').getDate()).toBe(9); // the zone took
    expect(shortDate('2024-01-10T00:00:00Z')).toBe('2024-01-10');
    expect(shortDate('2024-01-10T03:00:00Z')).toBe('2024-01-09');
  });
});

describe('row actions', () => {
  it.each([
    ['l1_profile', true],
    ['l3_fact', true],
    ['l6_schema', true],
    ['l7_intention', true],
    ['l8_entity', true],
    ['l2_raw', false],
    ['l4_summary', false],
    ['l5_knowledge', false],
  ])('a %s row has a strength: %s', (layer, want) => expect(hasStrength(layer)).toBe(want));

  it.each([
    // A raw turn has no category: editing its text must not send an empty one.
    [{ text: 'a', category: '' }, { text: 'b', category: '' }, { content: 'b' }],
    [{ text: 'a', category: 'fact' }, { text: 'a', category: 'preference' }, { category: 'preference' }],
    [{ text: 'a', category: 'fact' }, { text: 'b', category: 'goal' }, { content: 'b', category: 'goal' }],
    [{ text: 'a', category: 'fact' }, { text: 'a', category: ' fact ' }, null],
    [{ text: 'a', category: 'fact' }, { text: 'a', category: 'fact' }, null],
  ])('edit %j -> %j sends %j', (before, after, want) => expect(editChange(before, after)).toEqual(want));

  it.each([
    // A raw turn's text edited: its undo must not send its empty category ("category must not be empty").
    [{ text: 'a', category: '' }, { content: 'b' }, { content: 'a', if_content: 'b' }],
    [{ text: 'a', category: 'fact' }, { category: 'goal' }, { category: 'fact', if_content: 'a' }],
    [{ text: 'a', category: 'fact' }, { content: 'b', category: 'goal' }, { content: 'a', category: 'fact', if_content: 'b' }],
    // A category given to a raw turn cannot be taken away: only the text goes back, or there is no Undo.
    [{ text: 'a', category: '' }, { content: 'b', category: 'note' }, { content: 'a', if_content: 'b' }],
    [{ text: 'a', category: '' }, { category: 'note' }, null],
  ])('the undo of an edit of %j by %j sends %j', (was, change, want) => expect(undoChange(was, change)).toEqual(want));
});

describe('one action at a time per row', () => {
  it('ignores a second action on a memory while one runs (a double click sends once)', async () => {
    const running = new Set<string>();
    let sent = 0;
    let finish!: () => void;
    const restoreA = () => {
      sent++;
      return new Promise<void>((r) => (finish = r));
    };
    const first = onePerRow(running, 'a', restoreA);
    expect(onePerRow(running, 'a', restoreA)).toBeUndefined();
    expect(running.has('a')).toBe(true); // its row says so
    // Another memory's row is not held up.
    await onePerRow(running, 'b', async () => sent++);
    finish();
    await first;
    expect(running.has('a')).toBe(false);
    expect(sent).toBe(2);
    await onePerRow(running, 'a', async () => sent++); // and again once it ended
    expect(sent).toBe(3);
  });
  it('frees the row when the action fails', async () => {
    const running = new Set<string>();
    await expect(onePerRow(running, 'a', () => Promise.reject(new Error('refused')))).rejects.toThrow('refused');
    expect(running.size).toBe(0);
  });
});

describe('closestByMeaning', () => {
  const hit = (id: string, layer: string, category: string, strength: number) => ({
    // As the server sends it (wire.go HitJSON): whole Unix seconds.
    memory_id: id, content: id, score: 0.9, layer, category, strength, gmt_created: 1796032800,
  });
  const ans = {
    order: ['profile', 'normal'],
    memories: {
      profile: [hit('p', 'l1_profile', 'fact', 0.9)],
      normal: [hit('g', 'l3_fact', 'Goal', 0.8), hit('raw', 'l2_raw', 'fact', 0.5), hit('low', 'l3_fact', 'fact', 0.2)],
    },
    ranked: [],
  } as unknown as SearchAnswer;
  const ids = (f: { layer?: string; category?: string; band?: Band }) =>
    closestByMeaning(ans, { layer: f.layer ?? '', category: f.category ?? '', band: f.band ?? '' }).map((m) => m.memory_id);

  it.each([
    ['no filter: every channel in order, raw turns left out as in the list', {}, ['p', 'g', 'low']],
    ['a layer', { layer: 'l2_raw' }, ['raw']],
    ['a category, as spelt (as the list compares it)', { category: 'Goal' }, ['g']],
    ['a category in another case', { category: 'goal' }, []],
    ['the prompt band', { band: 'injected' as Band }, ['p', 'g']],
    ['the low band', { band: 'low' as Band }, ['low']],
  ])('%s', (_name, f, want) => {
    expect(ids(f)).toEqual(want);
  });
  it('dates a row as the list does (when it was written, RFC 3339)', () => {
    expect(closestByMeaning(ans, { layer: '', category: '', band: '' })[0].ts).toBe('2026-11-30T10:00:00Z');
  });
  it('dates a row by when it happened, when known, as the list does', () => {
    const at = { order: ['normal'], memories: { normal: [{ ...hit('x', 'l3_fact', 'fact', 0.5), event_at: '2024-01-10T00:00:00Z' }] }, ranked: [] } as unknown as SearchAnswer;
    expect(closestByMeaning(at, { layer: '', category: '', band: '' })[0].event_at).toBe('2024-01-10T00:00:00Z');
  });
  it('leaves a hit with no write time undated', () => {
    const none = { order: ['normal'], memories: { normal: [{ ...hit('x', 'l3_fact', 'fact', 0.5), gmt_created: 0 }] }, ranked: [] } as unknown as SearchAnswer;
    expect(closestByMeaning(none, { layer: '', category: '', band: '' })[0].ts).toBe('');
  });
});

describe('quote', () => {
  it.each([
    ['short text', 'I like tea', 'I like tea'],
    ['lines joined', 'line one\n\nline two', 'line one line two'],
    ['long text cut', 'x'.repeat(130), 'x'.repeat(120) + '…'],
    ['emoji kept whole', '😀'.repeat(121), '😀'.repeat(120) + '…'],
    // A toast or a confirmation quotes it as the row shows it: an override
    // reordered the message around it.
    ['a control and an override shown', 'ctl \u001b[31m and \u202eREVERSED', 'ctl \u241b[31m and \ufffdREVERSED'],
  ])('%s', (_, text, want) => {
    expect(quote(text)).toBe(want);
  });
});

describe('printable', () => {
  it.each([
    ['plain text', 'tea at noon', 'tea at noon'],
    ['lines and tabs kept', 'a\tb\nc', 'a\tb\nc'],
    ['escape and bell', 'x\u001b[31my\u0007', 'x\u241b[31my\u2407'],
    ['delete', 'a\u007fb', 'a\u2421b'],
    ['nul', '\u0000', '\u2400'],
    ['a bidi override', 'abc\u202edef', 'abc\ufffddef'],
    ['a C1 control', 'a\u0085b', 'a\ufffdb'],
    ['right-to-left text kept', 'שלום', 'שלום'],
  ])('%s', (_, text, want) => {
    expect(printable(text)).toBe(want);
  });
});
