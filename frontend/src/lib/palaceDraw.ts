// The Mind Palace's canvas drawing: what MindPalaceView shows at the
// playhead, drawn in one pass. Names are drawn printable (control and
// bidirectional characters shown, not obeyed), as the Atlas shows text. Edges and nodes are batched into one path
// per style (a stroke per edge made a 20,000-relation step slow).
import { printable } from './atlas';
import { clearOf, type Box } from './graph';
import type { GraphNode, GraphRecord } from './types';

/** What one frame shows, and where (screen: a node's canvas position). */
export interface Scene {
  visible: GraphRecord[];
  fading: { r: GraphRecord; a: number }[];
  shownNodes: GraphNode[];
  /** The node hovered and its neighbours (empty: none hovered). */
  near: Set<string>;
  kinds: Record<string, string>;
  screen: (id: string) => [number, number];
}

/** Draws the scene on the canvas, in its text colour. */
export function drawGraph(canvas: HTMLCanvasElement, ctx: CanvasRenderingContext2D, scene: Scene) {
  const { visible, fading, shownNodes, near, kinds, screen } = scene;
  const fg = getComputedStyle(canvas).color;
  const hovering = near.size > 0;
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.font = '11px system-ui, sans-serif';
  ctx.strokeStyle = 'rgba(128,128,128,0.7)';
  ctx.setLineDash([4, 4]);
  for (const { r, a } of fading) {
    const [x1, y1] = screen(r.from);
    const [x2, y2] = screen(r.to);
    ctx.globalAlpha = 0.6 * a;
    ctx.beginPath();
    ctx.moveTo(x1, y1);
    ctx.lineTo(x2, y2);
    ctx.stroke();
    ctx.beginPath();
    ctx.fillStyle = 'rgba(128,128,128,0.9)';
    ctx.moveTo(x1 + 3, y1);
    ctx.arc(x1, y1, 3, 0, Math.PI * 2);
    ctx.moveTo(x2 + 3, y2);
    ctx.arc(x2, y2, 3, 0, Math.PI * 2);
    ctx.fill();
  }
  ctx.setLineDash([]);
  for (const lit of hovering ? [false, true] : [true]) {
    ctx.globalAlpha = lit ? 1 : 0.15;
    ctx.beginPath();
    for (const r of visible) {
      if (hovering && (near.has(r.from) && near.has(r.to)) !== lit) continue;
      const [x1, y1] = screen(r.from);
      const [x2, y2] = screen(r.to);
      ctx.moveTo(x1, y1);
      ctx.lineTo(x2, y2);
    }
    ctx.stroke();
  }
  ctx.globalAlpha = 1;
  // A node's name is drawn when there are few nodes, or it is lit.
  const named = shownNodes.filter((n) => shownNodes.length < 400 || near.has(n.id));
  if (visible.length < 300) {
    // A relation's name goes at its middle unless it would cover a
    // node, a node's name or another relation's name.
    const taken: Box[] = [];
    for (const n of shownNodes) {
      const [x, y] = screen(n.id);
      const radius = 4 + Math.min(8, n.degree ?? 0);
      taken.push({ x: x - radius, y: y - radius, w: 2 * radius, h: 2 * radius });
    }
    for (const n of named) {
      const [x, y] = screen(n.id);
      taken.push({ x: x + 8, y: y - 7, w: ctx.measureText(printable(n.label)).width, h: 13 });
    }
    // The lit relations (around the node hovered) first.
    const lit = (r: GraphRecord) => !hovering || (near.has(r.from) && near.has(r.to));
    const order = [...visible.filter(lit), ...visible.filter((r) => !lit(r))];
    const at = order.map((r) => {
      const [x1, y1] = screen(r.from);
      const [x2, y2] = screen(r.to);
      const w = ctx.measureText(printable(r.relation)).width;
      return { x: (x1 + x2) / 2 - w / 2, y: (y1 + y2) / 2 - 7, w, h: 13 };
    });
    const keep = clearOf(taken, at);
    ctx.fillStyle = fg;
    order.forEach((r, i) => {
      if (!keep[i]) return;
      ctx.globalAlpha = lit(r) ? 1 : 0.2;
      ctx.fillText(printable(r.relation), at[i].x, at[i].y + 11);
    });
    ctx.globalAlpha = 1;
  }
  const byKind = new Map<string, GraphNode[]>();
  for (const n of shownNodes) {
    const k = kinds[n.type] ? n.type : 'other';
    (byKind.get(k) ?? byKind.set(k, []).get(k)!).push(n);
  }
  for (const lit of hovering ? [false, true] : [true]) {
    ctx.globalAlpha = lit ? 1 : 0.2;
    for (const [kind, nodes] of byKind) {
      ctx.fillStyle = kinds[kind];
      ctx.beginPath();
      for (const n of nodes) {
        if (hovering && near.has(n.id) !== lit) continue;
        const [x, y] = screen(n.id);
        const radius = 4 + Math.min(8, n.degree ?? 0);
        ctx.moveTo(x + radius, y);
        ctx.arc(x, y, radius, 0, Math.PI * 2);
      }
      ctx.fill();
    }
  }
  ctx.fillStyle = fg;
  for (const n of named) {
    const [x, y] = screen(n.id);
    ctx.globalAlpha = hovering && !near.has(n.id) ? 0.2 : 1;
    ctx.fillText(printable(n.label), x + 8, y + 4);
  }
  ctx.globalAlpha = 1;
}
