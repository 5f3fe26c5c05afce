// Viewport culling for big graphs: React Flow is handed only the tasks near the screen (and the
// tasks at the other end of their edges, so every edge that crosses the screen is drawn), not
// all 5,000. Its per-update work (visibility of every node and edge, lookups, selectors) then
// scales with the screen, not with the workflow; onlyRenderVisibleElements alone still does
// that work for every node on every update.
import type { Edge, Node } from '@xyflow/react';

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** the flow-coordinate rectangle a viewport shows in a canvas of width × height px */
export function viewRect(viewport: { x: number; y: number; zoom: number }, width: number, height: number): Rect {
  return {
    x: -viewport.x / viewport.zoom,
    y: -viewport.y / viewport.zoom,
    width: width / viewport.zoom,
    height: height / viewport.zoom,
  };
}

/** the rectangle grown by `margin` times its size on every side */
export function grow(r: Rect, margin: number): Rect {
  return {
    x: r.x - r.width * margin,
    y: r.y - r.height * margin,
    width: r.width * (1 + 2 * margin),
    height: r.height * (1 + 2 * margin),
  };
}

export function cullGraph<N extends Node, E extends Edge>(
  nodes: readonly N[],
  edges: readonly E[],
  rect: Rect,
  keep?: ReadonlySet<string>,
): { nodes: N[]; edges: E[] } {
  const near = new Set<string>();
  for (const n of nodes) {
    const w = n.measured?.width ?? n.width ?? n.initialWidth ?? 0;
    const h = n.measured?.height ?? n.height ?? n.initialHeight ?? 0;
    const { x, y } = n.position;
    if (
      (x + w >= rect.x && x <= rect.x + rect.width && y + h >= rect.y && y <= rect.y + rect.height) ||
      n.selected ||
      keep?.has(n.id)
    )
      near.add(n.id);
  }
  const shown = new Set(near);
  const outEdges: E[] = [];
  for (const e of edges) {
    if (!near.has(e.source) && !near.has(e.target)) continue;
    shown.add(e.source);
    shown.add(e.target);
    outEdges.push(e);
  }
  return { nodes: nodes.filter((n) => shown.has(n.id)), edges: outEdges };
}
