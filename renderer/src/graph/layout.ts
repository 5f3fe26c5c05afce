// layoutGraph: positions for a DAG, top-down or left-right. Dagre draws the nicest graphs but
// its cost grows much faster than the graph (seconds at a few hundred nodes on a busy machine),
// so past DAGRE_MAX_NODES the fast layered layout takes over. Both are pure and synchronous;
// layout-async.ts runs them in a Web Worker for anything but small graphs.
import { dagreLayout } from './dagre-layout.ts';
import { layeredLayout } from './layered-layout.ts';
import type { LayoutDirection, LayoutEdge, LayoutNode, Positions } from './layout-types.ts';

export const DAGRE_MAX_NODES = 150;

export function layoutGraph(
  nodes: readonly LayoutNode[],
  edges: readonly LayoutEdge[],
  direction: LayoutDirection,
): Positions {
  if (nodes.length === 0) return {};
  return nodes.length <= DAGRE_MAX_NODES
    ? dagreLayout(nodes, edges, direction)
    : layeredLayout(nodes, edges, direction);
}
