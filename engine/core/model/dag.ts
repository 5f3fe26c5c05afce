// Graph helpers over task names or ids. Edges point upstream → downstream.
// Everything here is iterative: workflows with 100k tasks must not overflow the call stack.

export type NodeKey = string | number;
export type Edge<K extends NodeKey> = readonly [from: K, to: K];

/**
 * from → its direct downstream nodes (or to → its direct upstream ones), in edge order, without
 * repeats; edges may come in parts (a big graph is indexed a slice at a time, between turns of the
 * event loop), the map is the same as from all of them at once.
 */
export class Adjacency<K extends NodeKey> {
  readonly map = new Map<K, K[]>();
  // A Set per node costs more than the lists themselves; only long lists get one.
  private readonly seen = new Map<K[], Set<K>>();
  private readonly a: 0 | 1;
  private readonly b: 0 | 1;

  constructor(direction: 'downstream' | 'upstream') {
    [this.a, this.b] = direction === 'downstream' ? [0, 1] : [1, 0];
  }

  add(edges: readonly Edge<K>[]): this {
    for (const edge of edges) {
      const key = edge[this.a];
      const value = edge[this.b];
      const list = this.map.get(key);
      if (!list) {
        this.map.set(key, [value]);
        continue;
      }
      let set = this.seen.get(list);
      if (!set && list.length >= 16) {
        set = new Set(list);
        this.seen.set(list, set);
      }
      if (set ? set.has(value) : list.includes(value)) continue;
      list.push(value);
      set?.add(value);
    }
    return this;
  }
}

/**
 * A cycle as a path whose first node is repeated at the end (['a', 'b', 'a']), or undefined.
 * Deterministic: the search starts from the nodes in the given order and follows edges in
 * the given order, so the same graph always reports the same cycle.
 */
export function findCycle<K extends NodeKey>(nodes: readonly K[], edges: readonly Edge<K>[]): K[] | undefined {
  const down = new Adjacency<K>('downstream').add(edges).map;
  const none: K[] = [];
  // node → its index on the current DFS path, or DONE once fully explored
  const DONE = -1;
  const state = new Map<K, number>();
  const path: K[] = [];
  const children: K[][] = [];
  const next: number[] = []; // per path entry: index of the next child to follow
  // Edge endpoints missing from `nodes` are still searched, after the listed nodes.
  for (const start of [...nodes, ...edges.map((e) => e[0])]) {
    if (state.has(start)) continue;
    state.set(start, 0);
    path.push(start);
    children.push(down.get(start) ?? none);
    next.push(0);
    while (path.length > 0) {
      const top = path.length - 1;
      const kids = children[top] as K[];
      const i = next[top] as number;
      if (i >= kids.length) {
        state.set(path.pop() as K, DONE);
        children.pop();
        next.pop();
        continue;
      }
      next[top] = i + 1;
      const child = kids[i] as K;
      const at = state.get(child);
      if (at === DONE) continue;
      if (at !== undefined) return [...path.slice(at), child];
      state.set(child, path.length);
      path.push(child);
      children.push(down.get(child) ?? none);
      next.push(0);
    }
  }
  return undefined;
}

/** Nodes with no edge at all (the designer flags them as probably forgotten). */
export function isolated<K extends NodeKey>(nodes: readonly K[], edges: readonly Edge<K>[]): K[] {
  const linked = new Set<K>();
  for (const [from, to] of edges) {
    linked.add(from);
    linked.add(to);
  }
  return nodes.filter((n) => !linked.has(n));
}

/** Every node reachable downstream of `start`, breadth first, excluding `start` itself. */
export function downstreamClosure<K extends NodeKey>(start: K, down: ReadonlyMap<K, readonly K[]>): K[] {
  const seen = new Set<K>([start]);
  const out: K[] = [];
  const queue: K[] = [start];
  for (let head = 0; head < queue.length; head++) {
    for (const child of down.get(queue[head] as K) ?? []) {
      if (seen.has(child)) continue;
      seen.add(child);
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

/**
 * The nodes in topological order, read in levels: every node after all of its upstreams, each at
 * its depth (the longest path from a root), and within a depth by name (code-unit order, so
 * every machine gives the same order). Nodes on a cycle, which a stored workflow cannot have,
 * come last, by name. Edge endpoints not in `nodes` are ignored.
 */
export function topologicalOrder(nodes: readonly string[], edges: readonly Edge<string>[]): string[] {
  const known = new Set(nodes);
  const inside = edges.filter(([from, to]) => known.has(from) && known.has(to) && from !== to);
  const down = new Adjacency<string>('downstream').add(inside).map;
  const waiting = new Map<string, number>(nodes.map((n) => [n, 0]));
  for (const [from, kids] of down)
    for (const kid of kids) if (from !== kid) waiting.set(kid, (waiting.get(kid) ?? 0) + 1);
  const depth = new Map<string, number>();
  const queue = nodes.filter((n) => waiting.get(n) === 0);
  for (const n of queue) depth.set(n, 0);
  for (let head = 0; head < queue.length; head++) {
    const n = queue[head] as string;
    const d = (depth.get(n) ?? 0) + 1;
    for (const kid of down.get(n) ?? []) {
      if (d > (depth.get(kid) ?? 0)) depth.set(kid, d);
      const left = (waiting.get(kid) ?? 0) - 1;
      waiting.set(kid, left);
      if (left === 0) queue.push(kid);
    }
  }
  const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const ordered = [...new Set(queue)].sort((a, b) => (depth.get(a) ?? 0) - (depth.get(b) ?? 0) || byName(a, b));
  const placed = new Set(ordered);
  return [...ordered, ...[...new Set(nodes)].filter((n) => !placed.has(n)).sort(byName)];
}

/**
 * A workflow's task names in topological order (see topologicalOrder), from each task's upstreams
 * in the workflow; with a cycle, as given (the file checks report it in the author's order).
 */
export function taskOrder(tasks: readonly { name: string; upstream: readonly string[] }[]): string[] {
  const names = tasks.map((t) => t.name);
  const edges = tasks.flatMap((t) => t.upstream.map((u): Edge<string> => [u, t.name]));
  return findCycle(names, edges) ? names : topologicalOrder(names, edges);
}
