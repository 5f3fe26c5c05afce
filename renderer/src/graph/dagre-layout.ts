// Dagre as in React Flow's dagre example: a fresh graph per call (a shared one would keep the
// nodes of earlier calls), the measured node sizes, and dagre's node centres converted to the
// top-left corners React Flow positions nodes by.
import dagre from '@dagrejs/dagre';
import type { LayoutDirection, LayoutEdge, LayoutNode, Positions } from './layout-types.ts';

export function dagreLayout(
  nodes: readonly LayoutNode[],
  edges: readonly LayoutEdge[],
  direction: LayoutDirection,
): Positions {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: direction, nodesep: 40, ranksep: 70, marginx: 0, marginy: 0 });
  g.setDefaultEdgeLabel(() => ({}));
  for (const node of nodes) g.setNode(node.id, { width: node.width, height: node.height });
  for (const edge of edges) {
    if (edge.source !== edge.target && g.hasNode(edge.source) && g.hasNode(edge.target))
      g.setEdge(edge.source, edge.target);
  }
  dagre.layout(g);
  const out: Positions = {};
  for (const node of nodes) {
    const { x, y } = g.node(node.id) as { x: number; y: number };
    out[node.id] = { x: x - node.width / 2, y: y - node.height / 2 };
  }
  return out;
}
