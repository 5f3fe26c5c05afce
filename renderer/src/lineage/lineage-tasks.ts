// The lineage across workflows (EngineApi.lineage) as the task graph the shared graph helpers
// draw: one node per WORKFLOW.TASK, its owner on the second line, today's state as its colour.
import type { LineageGraph } from '../../../engine/api/engine-api.ts';
import type { GraphTask } from '../graph/index.ts';

export interface LineageWords {
  /** the second line of a node whose task and workflow name no owner */
  noOwner: string;
  /** the second line of a node named by a dependency but not there (yet) */
  missing: string;
  /** the second line of a node with an owner: e.g. "owner: {{owner}}" */
  owner: (owner: string) => string;
}

export function lineageTasks(graph: LineageGraph, words: LineageWords): GraphTask[] {
  const ups = new Map<string, string[]>();
  for (const e of graph.edges) ups.set(e.to, [...(ups.get(e.to) ?? []), e.from]);
  return graph.nodes.map((n): GraphTask => {
    const task: GraphTask = {
      name: n.id,
      upstream: ups.get(n.id) ?? [],
      detail: n.missing ? words.missing : n.owner ? words.owner(n.owner) : words.noOwner,
    };
    if (n.state) task.state = n.state;
    return task;
  });
}

/** Owners in the lineage, for the legend and the "mine" highlight: each with its nodes. */
export function ownersOf(graph: LineageGraph): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const n of graph.nodes) if (n.owner) out.set(n.owner, [...(out.get(n.owner) ?? []), n.id]);
  return out;
}

/** A file name for the exported picture: lineage-orders.load.png */
export const imageName = (target: string, format: string): string =>
  `lineage-${target.replace(/[^\w.-]+/g, '_')}.${format}`;
