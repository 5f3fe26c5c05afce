// A fast layered layout for graphs too big for dagre. Dagre's network-simplex ranking and its
// crossing minimisation (with a dummy node per rank an edge spans) take seconds at a few hundred
// nodes; this one ranks by longest path, orders each rank by a few barycentre sweeps (no dummy
// nodes) and packs ranks side by side, so 5,000 tasks take tens of milliseconds. It gives up
// some beauty (more crossings, no edge routing) that nobody can see at that size anyway.
import type { LayoutDirection, LayoutEdge, LayoutNode, Positions } from './layout-types.ts';

export interface LayeredOptions {
  nodesep: number;
  ranksep: number;
  /** a rank with more nodes than this wraps into several rows (1,000 isolated tasks are not one line) */
  maxPerRow: number;
  sweeps: number;
  /** the gap between the rows of one wrapped rank (ranksep when unset) */
  wrapGap?: number;
}

const DEFAULTS: LayeredOptions = { nodesep: 40, ranksep: 70, maxPerRow: 40, sweeps: 4 };

export function layeredLayout(
  nodes: readonly LayoutNode[],
  edges: readonly LayoutEdge[],
  direction: LayoutDirection,
  options: Partial<LayeredOptions> = {},
): Positions {
  const opts = { ...DEFAULTS, ...options };
  return placeLayers(nodes, orderLayers(nodes, edges, opts), direction, opts);
}

/**
 * The layered layout whose wrapping fits an area of the given shape (width / height) best: the
 * ranks are ordered once, then wrapped at several widths, and the one that a fit-to-view shows
 * biggest wins. A 150-task workflow whose ranks hold 25 tasks each is then a block of short rows
 * instead of a 6,000 px wide strip that fits at 3 px text.
 */
export function fittedLayeredLayout(
  nodes: readonly LayoutNode[],
  edges: readonly LayoutEdge[],
  direction: LayoutDirection,
  aspect: number,
  options: Partial<LayeredOptions> = {},
): Positions {
  const opts = { ...DEFAULTS, ...options };
  const layers = orderLayers(nodes, edges, opts);
  const widest = Math.max(1, ...layers.map((l) => l.length));
  let best: { positions: Positions; scale: number } | undefined;
  for (const perRow of wrapWidths(widest)) {
    const positions = placeLayers(nodes, layers, direction, { ...opts, maxPerRow: perRow });
    const scale = fitScale(nodes, positions, aspect);
    if (!best || scale > best.scale * 1.001) best = { positions, scale };
  }
  return best!.positions;
}

/** the row widths worth trying for ranks of up to `widest` tasks */
function wrapWidths(widest: number): number[] {
  const out = new Set<number>();
  for (let w = 2; w < Math.min(widest, 24); w++) out.add(w);
  for (let w = 24; w < widest; w = Math.ceil(w * 1.25)) out.add(w);
  out.add(widest);
  return [...out];
}

/** how big a fit-to-view draws the laid-out graph in an area of shape `aspect` × 1 */
export function fitScale(nodes: readonly LayoutNode[], positions: Positions, aspect: number): number {
  let [x0, y0, x1, y1] = [Infinity, Infinity, -Infinity, -Infinity];
  for (const n of nodes) {
    const p = positions[n.id];
    if (!p) continue;
    x0 = Math.min(x0, p.x);
    y0 = Math.min(y0, p.y);
    x1 = Math.max(x1, p.x + n.width);
    y1 = Math.max(y1, p.y + n.height);
  }
  if (x1 < x0) return 0;
  return Math.min(aspect / (x1 - x0), 1 / (y1 - y0));
}

/** ranks as rows of node indexes, each ordered to keep edges short */
function orderLayers(nodes: readonly LayoutNode[], edges: readonly LayoutEdge[], opts: LayeredOptions): number[][] {
  const n = nodes.length;
  const index = new Map<string, number>();
  nodes.forEach((node, i) => index.set(node.id, i));
  const ups: number[][] = Array.from({ length: n }, () => []);
  const downs: number[][] = Array.from({ length: n }, () => []);
  for (const e of edges) {
    const s = index.get(e.source);
    const t = index.get(e.target);
    if (s === undefined || t === undefined || s === t) continue;
    downs[s]!.push(t);
    ups[t]!.push(s);
  }
  return orderRanks(n, rankNodes(n, ups, downs), ups, downs, opts);
}

/**
 * Coordinates: ranks stacked along the main axis, a rank wider than maxPerRow wrapped into
 * several rows set closer together (wrapGap) than ranks are (ranksep), so a wrapped rank still
 * reads as one group; each row centred across.
 */
function placeLayers(
  nodes: readonly LayoutNode[],
  layers: readonly number[][],
  direction: LayoutDirection,
  opts: LayeredOptions,
): Positions {
  const main = (node: LayoutNode) => (direction === 'TB' ? node.height : node.width);
  const cross = (node: LayoutNode) => (direction === 'TB' ? node.width : node.height);
  const out: Positions = {};
  let offset = 0;
  for (const layer of layers) {
    if (layer.length === 0) continue;
    for (let k = 0; k < layer.length; k += opts.maxPerRow) {
      const row = layer.slice(k, k + opts.maxPerRow);
      let depth = 0;
      let span = 0;
      for (const i of row) {
        depth = Math.max(depth, main(nodes[i]!));
        span += cross(nodes[i]!);
      }
      span += opts.nodesep * Math.max(0, row.length - 1);
      let at = -span / 2;
      for (const i of row) {
        const node = nodes[i]!;
        // centred on the row's axis, like dagre's rank alignment
        const m = offset + (depth - main(node)) / 2;
        out[node.id] = direction === 'TB' ? { x: at, y: m } : { x: m, y: at };
        at += cross(node) + opts.nodesep;
      }
      offset += depth + (k + opts.maxPerRow < layer.length ? (opts.wrapGap ?? opts.ranksep) : opts.ranksep);
    }
  }
  return out;
}

/** Longest path from the roots; a root is then pulled down next to its first downstream. */
function rankNodes(n: number, ups: number[][], downs: number[][]): Int32Array {
  const rank = new Int32Array(n);
  const pending = new Int32Array(n);
  const queue: number[] = [];
  for (let i = 0; i < n; i++) {
    pending[i] = ups[i]!.length;
    if (pending[i] === 0) queue.push(i);
  }
  const order: number[] = [];
  for (let head = 0; head < queue.length || order.length < n; head++) {
    if (head >= queue.length) {
      // a cycle (the designer refuses them, but be safe): release the first stuck node
      const stuck = pending.findIndex((p) => p > 0);
      pending[stuck] = 0;
      queue.push(stuck);
    }
    const i = queue[head]!;
    order.push(i);
    for (const d of downs[i]!) {
      rank[d] = Math.max(rank[d]!, rank[i]! + 1);
      if (--pending[d]! === 0) queue.push(d);
    }
  }
  for (let k = order.length - 1; k >= 0; k--) {
    const i = order[k]!;
    if (ups[i]!.length > 0 || downs[i]!.length === 0) continue;
    let min = Infinity;
    for (const d of downs[i]!) min = Math.min(min, rank[d]!);
    rank[i] = min - 1;
  }
  return rank;
}

/** Nodes per rank ordered by barycentre sweeps. */
function orderRanks(
  n: number,
  rank: Int32Array,
  ups: number[][],
  downs: number[][],
  opts: Pick<LayeredOptions, 'sweeps'>,
): number[][] {
  let ranks = 0;
  for (let i = 0; i < n; i++) ranks = Math.max(ranks, rank[i]! + 1);
  const layers: number[][] = Array.from({ length: ranks }, () => []);
  for (let i = 0; i < n; i++) layers[rank[i]!]!.push(i);
  // position of a node inside its rank, normalised to 0..1 so ranks of different sizes compare
  const pos = new Float64Array(n);
  const place = (layer: number[]) =>
    layer.forEach((i, k) => (pos[i] = layer.length > 1 ? k / (layer.length - 1) : 0.5));
  layers.forEach(place);
  const sortBy = (layer: number[], neighbours: number[][]) => {
    const key = new Map<number, number>();
    for (const i of layer) {
      const list = neighbours[i]!;
      if (list.length === 0) key.set(i, pos[i]!);
      else {
        let sum = 0;
        for (const j of list) sum += pos[j]!;
        key.set(i, sum / list.length);
      }
    }
    layer.sort((a, b) => key.get(a)! - key.get(b)! || a - b);
    place(layer);
  };
  for (let s = 0; s < opts.sweeps; s++) {
    for (let r = 1; r < ranks; r++) sortBy(layers[r]!, ups);
    for (let r = ranks - 2; r >= 0; r--) sortBy(layers[r]!, downs);
  }
  return layers;
}
