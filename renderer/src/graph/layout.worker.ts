// The layout off the main thread: a 5,000-task graph is laid out here while the page keeps
// taking input. One request in, one answer out, matched by id.
import { layoutGraph } from './layout.ts';
import type { LayoutDirection, LayoutEdge, LayoutNode, Positions } from './layout-types.ts';

export interface LayoutRequest {
  id: number;
  nodes: LayoutNode[];
  edges: LayoutEdge[];
  direction: LayoutDirection;
  /** the shape (width / height) of the area the graph is fitted in, when known */
  aspect?: number;
}

export type LayoutReply = { id: number; positions: Positions } | { id: number; error: string };

self.onmessage = (event: MessageEvent<LayoutRequest>) => {
  const { id, nodes, edges, direction, aspect } = event.data;
  let reply: LayoutReply;
  try {
    reply = { id, positions: layoutGraph(nodes, edges, direction, aspect) };
  } catch (error) {
    reply = { id, error: error instanceof Error ? error.message : String(error) };
  }
  (self as unknown as Worker).postMessage(reply);
};
