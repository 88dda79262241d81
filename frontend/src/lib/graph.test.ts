import { describe, expect, it } from 'vitest';
import { changeTimes, clearOf, fadeAt, fadingAt, layout, MAX_ZOOM, MIN_ZOOM, step, stepOrEnd, visibleAt, zoomAt, type View } from './graph';
import type { GraphRecord } from './types';

const rec = (p: Partial<GraphRecord>): GraphRecord => ({
  id: 'r', from: 'a', to: 'b', relation: 'works at', valid_from: 0, valid_to: 0, learned_at: 100, recorded_at: 100, expired_at: 0, ...p,
});

describe('the Mind Palace rules', () => {
  // Acme from 10 until 50 (ended when Globex was learned at 200); Globex from 50.
  const acmeOld = rec({ id: 'acme', to: 'acme', valid_from: 10, recorded_at: 100, learned_at: 100, expired_at: 200 });
  const acme = rec({ id: 'acme', to: 'acme', valid_from: 10, valid_to: 50, recorded_at: 200, learned_at: 100 });
  const globex = rec({ id: 'globex', to: 'globex', valid_from: 50, recorded_at: 200, learned_at: 200 });
  const all = [acmeOld, acme, globex];
  const shown = (axis: 'recorded' | 'valid', t: number) => all.filter((r) => visibleAt(r, axis, t)).map((r) => `${r.to}@${r.recorded_at}`);

  it.each([
    ['recorded', 50, []],
    ['recorded', 150, ['acme@100']],
    ['recorded', 250, ['acme@200', 'globex@200']],
    ['valid', 5, []],
    ['valid', 20, ['acme@200']],
    ['valid', 60, ['globex@200']],
  ] as const)('%s at %d shows %j', (axis, t, want) => expect(shown(axis, t)).toEqual(want));

  it('fades an ended relation out over the span after it ended', () => {
    // Recorded axis: the old Acme belief expired at 200.
    expect(fadeAt(acmeOld, 'recorded', 199, 40)).toBe(0); // not ended yet
    expect(fadeAt(acmeOld, 'recorded', 200, 40)).toBe(1);
    expect(fadeAt(acmeOld, 'recorded', 220, 40)).toBe(0.5);
    expect(fadeAt(acmeOld, 'recorded', 240, 40)).toBe(0);
    // Valid axis: Acme stopped being true at 50; a record no longer believed never fades there.
    expect(fadeAt(acme, 'valid', 60, 40)).toBe(0.75);
    expect(fadeAt(acmeOld, 'valid', 60, 40)).toBe(0);
    expect(fadeAt(globex, 'valid', 60, 40)).toBe(0); // still true
    // A record recorded and expired at once (never believed) never fades in.
    expect(fadeAt(rec({ recorded_at: 300, expired_at: 300 }), 'recorded', 310, 40)).toBe(0);
  });

  it('fades a relation that ended, not one whose closed record took over', () => {
    const fading = (records: GraphRecord[], axis: 'recorded' | 'valid', t: number) => fadingAt(records, axis, t, 40).map(({ r, a }) => `${r.to}@${r.recorded_at}:${a}`);
    // At 200 Acme's open record expired and its closed one (10 to 50) began: still believed, drawn once, not fading.
    expect(fading(all, 'recorded', 220)).toEqual([]);
    // A relation retracted with nothing in its place fades.
    const gone = rec({ id: 'gone', to: 'gone', recorded_at: 100, expired_at: 200 });
    expect(fading([...all, gone], 'recorded', 220)).toEqual(['gone@100:0.5']);
    // On the valid axis Acme stopped being true at 50: it fades after that.
    expect(fading(all, 'valid', 60)).toEqual(['acme@200:0.75']);
  });

  it('steps through the changes of an axis', () => {
    expect(changeTimes(all, 'recorded')).toEqual([100, 200]);
    expect(changeTimes(all, 'valid')).toEqual([10, 50]);
    expect(step([10, 50], 20, 1)).toBe(50);
    expect(step([10, 50], 20, -1)).toBe(10);
    expect(step([10, 50], 60, 1)).toBe(60);
    // The controls go on from the last change to the present, and stay there.
    expect(stepOrEnd([10, 50], 20, 1, 100)).toBe(50);
    expect(stepOrEnd([10, 50], 50, 1, 100)).toBe(100);
    expect(stepOrEnd([10, 50], 100, 1, 100)).toBe(100);
    expect(stepOrEnd([10, 50], 100, -1, 100)).toBe(50);
  });

  it('lays out every node once, deterministically, inside [-1, 1]', () => {
    const nodes = ['a', 'acme', 'globex'].map((id) => ({ id, label: id, type: 'other', created_at: 0, strength: 0.5 }));
    const p1 = layout(nodes, all);
    const p2 = layout(nodes, all);
    expect([...p1.entries()]).toEqual([...p2.entries()]);
    for (const p of p1.values()) {
      expect(Math.abs(p.x)).toBeLessThanOrEqual(1);
      expect(Math.abs(p.y)).toBeLessThanOrEqual(1);
    }
    expect(p1.size).toBe(3);
  });
});

describe('zooming about the pointer', () => {
  // Where a layout point is drawn, relative to the canvas's centre.
  const drawn = (v: View, p: number) => (p + v.pan.x) * v.zoom;
  it.each([
    ['at the centre', 0, 1.2],
    ['left of the centre', -300, 1.2],
    ['right, zooming out', 250, 1 / 1.2],
  ])('keeps what is under the pointer there (%s)', (_, dx, factor) => {
    const v: View = { zoom: 1.5, pan: { x: 40, y: -10 } };
    const under = dx / v.zoom - v.pan.x; // the layout point under the pointer
    const next = zoomAt(v, dx, 0, factor);
    expect(next.zoom).toBeCloseTo(v.zoom * factor);
    expect(drawn(next, under)).toBeCloseTo(dx);
  });
  it('stays within its bounds, and then does not move', () => {
    const v: View = { zoom: MAX_ZOOM, pan: { x: 5, y: 5 } };
    expect(zoomAt(v, 100, 100, 1.2)).toEqual(v);
    expect(zoomAt({ zoom: MIN_ZOOM, pan: { x: 0, y: 0 } }, 100, 0, 1 / 1.2).zoom).toBe(MIN_ZOOM);
  });
});

describe('labels that do not cover names', () => {
  const box = (x: number, y: number, w = 40, h = 12) => ({ x, y, w, h });
  it('drops a label over a name or over a label kept before it', () => {
    const names = [box(100, 100)];
    const labels = [box(110, 105), box(300, 300), box(310, 305), box(-500, 302, 2000, 5)];
    expect(clearOf(names, labels)).toEqual([false, true, false, false]);
  });
  it('keeps labels that only touch', () => {
    expect(clearOf([box(0, 0)], [box(40, 0), box(0, 12)])).toEqual([true, true]);
  });
  it('finds overlaps across grid cells', () => {
    expect(clearOf([box(60, 60, 10, 10)], [box(0, 0, 200, 100)], 16)).toEqual([false]);
  });
});
