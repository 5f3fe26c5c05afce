// The "too large to draw: filter first" path: from a graph too big to draw, the tasks whose name
// or text matches, with their direct upstream and downstream so each match is seen in context.

export interface FilterInput {
  id: string;
  /** what the filter searches besides the id, e.g. the command */
  text?: string;
}

export interface FilterResult {
  /** ids to draw, in input order */
  ids: string[];
  /** how many matched the query themselves */
  matches: number;
  /** true when matches and neighbours were cut at the limit */
  truncated: boolean;
}

export function filterGraph(
  nodes: readonly FilterInput[],
  edges: readonly { source: string; target: string }[],
  query: string,
  limit: number,
): FilterResult {
  const q = query.trim().toLowerCase();
  if (q === '') return { ids: [], matches: 0, truncated: false };
  const matched = new Set<string>();
  for (const n of nodes) {
    if (n.id.toLowerCase().includes(q) || (n.text ?? '').toLowerCase().includes(q)) matched.add(n.id);
  }
  const keep = new Set<string>();
  let truncated = false;
  for (const id of matched) {
    if (keep.size >= limit) {
      truncated = true;
      break;
    }
    keep.add(id);
  }
  const addNeighbour = (kept: string, other: string) => {
    if (!keep.has(kept) || !matched.has(kept) || keep.has(other)) return;
    if (keep.size < limit) keep.add(other);
    else truncated = true;
  };
  for (const e of edges) {
    addNeighbour(e.source, e.target);
    addNeighbour(e.target, e.source);
  }
  return { ids: nodes.filter((n) => keep.has(n.id)).map((n) => n.id), matches: matched.size, truncated };
}
