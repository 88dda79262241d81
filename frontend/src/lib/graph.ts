// The Mind Palace's pure parts: which records show at a moment on each
// axis (the server's rules, see backend/memory/graph_view.go), the change
// moments a timeline steps through, and a layout computed once.
import type { GraphNode, GraphRecord } from './types';

export type Axis = 'recorded' | 'valid';

/** Whether a record is in the graph at t (Unix seconds) on an axis. */
export function visibleAt(r: GraphRecord, axis: Axis, t: number): boolean {
  if (axis === 'valid') {
    const from = r.valid_from || r.learned_at;
    return r.expired_at === 0 && from <= t && (r.valid_to === 0 || r.valid_to > t);
  }
  return r.recorded_at <= t && (r.expired_at === 0 || r.expired_at > t);
}

/** When a record left the graph on an axis (Unix seconds; 0 = it has not). */
export function endedAt(r: GraphRecord, axis: Axis): number {
  if (axis === 'valid') return r.expired_at === 0 ? r.valid_to : 0;
  return r.expired_at;
}

/**
 * How visible a record that ended before t still is, fading out over span
 * seconds: 1 just after it ended, 0 once span has passed (and for records
 * that have not ended by t).
 */
export function fadeAt(r: GraphRecord, axis: Axis, t: number, span: number): number {
  if (r.expired_at !== 0 && r.expired_at === r.recorded_at) return 0; // never believed (a correction's record)
  const end = endedAt(r, axis);
  if (!end || end > t || span <= 0 || t - end >= span) return 0;
  return 1 - (t - end) / span;
}

/**
 * The records fading out at t (fadeAt), each with how visible it still
 * is. A record whose relation (its id) has a record visible at t is left
 * out: when a relation's open record expires as its closed record starts
 * (an end date learned), the relation is still believed, so its edge is
 * drawn once, not also as ending.
 */
export function fadingAt(records: GraphRecord[], axis: Axis, t: number, span: number): { r: GraphRecord; a: number }[] {
  const out: { r: GraphRecord; a: number }[] = [];
  for (const r of records) {
    const a = fadeAt(r, axis, t, span);
    if (a > 0) out.push({ r, a });
  }
  if (!out.length) return out; // most moments: no need to look at what is visible
  const held = new Set(records.filter((r) => visibleAt(r, axis, t)).map((r) => r.id));
  return out.filter(({ r }) => !held.has(r.id));
}

/** The moments the graph changes on an axis, sorted, unique. */
export function changeTimes(records: GraphRecord[], axis: Axis): number[] {
  const ts = new Set<number>();
  for (const r of records) {
    if (axis === 'valid') {
      if (r.expired_at !== 0) continue;
      ts.add(r.valid_from || r.learned_at);
      if (r.valid_to) ts.add(r.valid_to);
    } else {
      ts.add(r.recorded_at);
      if (r.expired_at) ts.add(r.expired_at);
    }
  }
  return [...ts].filter((t) => t > 0).sort((a, b) => a - b);
}

/** The next (dir 1) or previous (dir -1) change from t; t when none. */
export function step(times: number[], t: number, dir: 1 | -1): number {
  if (dir > 0) return times.find((x) => x > t) ?? t;
  for (let i = times.length - 1; i >= 0; i--) if (times[i] < t) return times[i];
  return t;
}

/** step for the ▶/◀ controls: forward past the last change goes on to
 * end (the present), so the page can always get back to "now". */
export function stepOrEnd(times: number[], t: number, dir: 1 | -1, end: number): number {
  const next = step(times, t, dir);
  return dir > 0 && next === t && t < end ? end : next;
}

export interface Point {
  x: number;
  y: number;
}

/**
 * Positions for every node that ever existed, computed once: a seeded
 * spring layout over all records, so nodes never jump while scrubbing.
 * Deterministic for the same graph. Coordinates are in [-1, 1].
 */
export function layout(nodes: GraphNode[], records: GraphRecord[], iterations = 120): Map<string, Point> {
  const idx = new Map(nodes.map((n, i) => [n.id, i]));
  const n = nodes.length;
  const xs = new Float64Array(n);
  const ys = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    // A golden-angle spiral: even, deterministic start.
    const a = i * 2.399963;
    const r = Math.sqrt((i + 0.5) / Math.max(1, n));
    xs[i] = r * Math.cos(a);
    ys[i] = r * Math.sin(a);
  }
  const links: [number, number][] = [];
  const seen = new Set<string>();
  for (const r of records) {
    const a = idx.get(r.from);
    const b = idx.get(r.to);
    const key = `${r.from}|${r.to}`;
    if (a !== undefined && b !== undefined && !seen.has(key)) {
      seen.add(key);
      links.push([a, b]);
    }
  }
  const k = 1 / Math.sqrt(Math.max(1, n));
  const repelAll = n <= 1500; // beyond that, only springs (O(n) per round)
  for (let it = 0; it < iterations; it++) {
    const heat = 0.1 * (1 - it / iterations);
    const dx = new Float64Array(n);
    const dy = new Float64Array(n);
    if (repelAll) {
      for (let i = 0; i < n; i++) {
        for (let j = i + 1; j < n; j++) {
          let ex = xs[i] - xs[j];
          let ey = ys[i] - ys[j];
          const d2 = ex * ex + ey * ey + 1e-9;
          const f = (k * k) / d2;
          ex *= f;
          ey *= f;
          dx[i] += ex;
          dy[i] += ey;
          dx[j] -= ex;
          dy[j] -= ey;
        }
      }
    }
    for (const [a, b] of links) {
      const ex = xs[a] - xs[b];
      const ey = ys[a] - ys[b];
      const d = Math.sqrt(ex * ex + ey * ey) + 1e-9;
      const f = d / k;
      dx[a] -= (ex / d) * f * d;
      dy[a] -= (ey / d) * f * d;
      dx[b] += (ex / d) * f * d;
      dy[b] += (ey / d) * f * d;
    }
    for (let i = 0; i < n; i++) {
      const d = Math.sqrt(dx[i] * dx[i] + dy[i] * dy[i]) + 1e-9;
      const m = Math.min(d, heat);
      xs[i] += (dx[i] / d) * m;
      ys[i] += (dy[i] / d) * m;
    }
  }
  // Fit into [-1, 1].
  let max = 1e-9;
  for (let i = 0; i < n; i++) max = Math.max(max, Math.abs(xs[i]), Math.abs(ys[i]));
  const out = new Map<string, Point>();
  nodes.forEach((node, i) => out.set(node.id, { x: xs[i] / max, y: ys[i] / max }));
  return out;
}

/** How the canvas shows the layout: a point p (canvas pixels from the centre) is drawn at centre + (p + pan) × zoom. */
export interface View {
  zoom: number;
  pan: { x: number; y: number };
}

export const MIN_ZOOM = 0.3;
export const MAX_ZOOM = 8;

/**
 * Zooms by factor about the pointer (dx, dy: canvas pixels from the
 * canvas's centre), so what is under the pointer stays under it. The
 * zoom stays within MIN_ZOOM and MAX_ZOOM.
 */
export function zoomAt(v: View, dx: number, dy: number, factor: number): View {
  const zoom = Math.max(MIN_ZOOM, Math.min(MAX_ZOOM, v.zoom * factor));
  return { zoom, pan: { x: v.pan.x + dx / zoom - dx / v.zoom, y: v.pan.y + dy / zoom - dy / v.zoom } };
}

/** A rectangle on the canvas (x, y its top left corner). */
export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

const overlaps = (a: Box, b: Box) => a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/**
 * Which of the candidates can be drawn without covering anything taken
 * (node names and dots) or a candidate kept before it (they come in order
 * of priority): true for each one kept. A grid of cells keeps it linear
 * for the few hundred labels a view draws.
 */
export function clearOf(taken: Box[], candidates: Box[], cell = 64): boolean[] {
  const grid = new Map<string, Box[]>();
  const cells = (b: Box) => {
    const out: string[] = [];
    for (let i = Math.floor(b.x / cell); i <= Math.floor((b.x + b.w) / cell); i++)
      for (let j = Math.floor(b.y / cell); j <= Math.floor((b.y + b.h) / cell); j++) out.push(`${i},${j}`);
    return out;
  };
  const add = (b: Box) => {
    for (const c of cells(b)) (grid.get(c) ?? grid.set(c, []).get(c)!).push(b);
  };
  taken.forEach(add);
  return candidates.map((b) => {
    if (cells(b).some((c) => grid.get(c)?.some((o) => overlaps(o, b)))) return false;
    add(b);
    return true;
  });
}

