// layoutGraph: positions for a DAG, top-down or left-right. Dagre draws the nicest graphs but
// its cost grows much faster than the graph (seconds at a few hundred nodes on a busy machine),
// and it never wraps a wide rank: 150 tasks in ranks of 25 become a strip that a fit-to-view
// shows at 3 px text. So past WRAP_FROM tasks the layered layout, wrapped to the shape of the
// area the graph is shown in, competes with dagre (up to DAGRE_MAX_NODES) and the one a fit
// shows bigger wins; past DAGRE_MAX_NODES only the layered one runs. All are pure and
// synchronous; layout-async.ts runs them in a Web Worker for anything but small graphs.
import { dagreLayout } from './dagre-layout.ts';
import { fitScale, fittedLayeredLayout } from './layered-layout.ts';
import type { LayoutDirection, LayoutEdge, LayoutNode, Positions } from './layout-types.ts';

export const DAGRE_MAX_NODES = 150;
/** up to this many tasks dagre alone lays the graph out */
export const WRAP_FROM = 40;
/** the shape (width / height) of the area a graph is usually fitted in: a page-wide box */
export const DEFAULT_ASPECT = 1400 / 600;
/** tighter gaps for wrapped graphs: the space between nodes is what a fit shrinks first */
const WRAPPED = { nodesep: 28, ranksep: 56, wrapGap: 20 };

export function layoutGraph(
  nodes: readonly LayoutNode[],
  edges: readonly LayoutEdge[],
  direction: LayoutDirection,
  aspect: number = DEFAULT_ASPECT,
): Positions {
  if (!(aspect > 0) || !Number.isFinite(aspect)) aspect = DEFAULT_ASPECT;
  if (nodes.length === 0) return {};
  if (nodes.length <= WRAP_FROM) return dagreLayout(nodes, edges, direction);
  const wrapped = fittedLayeredLayout(nodes, edges, direction, aspect, WRAPPED);
  if (nodes.length > DAGRE_MAX_NODES) return wrapped;
  const dagre = dagreLayout(nodes, edges, direction);
  // dagre's edges cross less: it wins unless the wrapped layout is clearly bigger on screen
  return fitScale(nodes, dagre, aspect) * 1.15 >= fitScale(nodes, wrapped, aspect) ? dagre : wrapped;
}
