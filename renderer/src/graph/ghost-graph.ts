// Ghost tasks (ghost-task.ts) joined to a run's graph: each is laid out as one more task, upstream
// of the tasks that wait for it, then drawn by the ghost node type with dashed edges.
import type { Edge } from '@xyflow/react';
import type { GhostFlowNode } from './GhostNode.tsx';
import type { GhostTask } from './ghost-task.ts';
import type { LayoutDirection } from './layout-types.ts';
import type { TaskFlowNode } from './task-node-types.ts';
import type { GraphTask } from './to-flow-graph.ts';

/** the tasks to lay out: the run's own (waiting ones with their ghost upstream) and the ghosts */
export function withGhosts(tasks: readonly GraphTask[], ghosts: readonly GhostTask[] | undefined): GraphTask[] {
  if (!ghosts?.length) return tasks as GraphTask[];
  const own = new Set(tasks.map((t) => t.name));
  const extra = new Map<string, string[]>();
  const shown = ghosts.filter((g) => !own.has(g.id));
  for (const g of shown) for (const w of g.waiting) if (own.has(w)) extra.set(w, [...(extra.get(w) ?? []), g.id]);
  return [
    ...shown.map((g): GraphTask => ({ name: g.id, upstream: [] })),
    ...tasks.map((t) => (extra.has(t.name) ? { ...t, upstream: [...t.upstream, ...extra.get(t.name)!] } : t)),
  ];
}

/** the laid-out nodes and edges with the ghosts' nodes turned into ghost nodes, their edges dashed */
export function drawGhosts(
  nodes: readonly TaskFlowNode[],
  edges: readonly Edge[],
  ghosts: readonly GhostTask[] | undefined,
  direction: LayoutDirection,
): { nodes: (TaskFlowNode | GhostFlowNode)[]; edges: Edge[] } {
  if (!ghosts?.length) return { nodes: nodes as TaskFlowNode[], edges: edges as Edge[] };
  const byId = new Map(ghosts.map((g) => [g.id, g]));
  return {
    nodes: nodes.map((n) => {
      const ghost = byId.get(n.id);
      if (!ghost) return n;
      const label = `${ghost.workflow}.${ghost.task}${ghost.state ? `: ${ghost.state}` : ''}`;
      return { ...n, type: 'ghost', data: { ghost, direction }, ariaLabel: label } as GhostFlowNode;
    }),
    edges: edges.map((e) => (byId.has(e.source) ? { ...e, className: 'ax-edge--ghost' } : e)),
  };
}
