// Workflow graphs with their adjacency, loaded once per workflow and reused by every event:
// dependency advance must cost O(downstream), not a reload or a scan. The graph work is
// dag.ts's, the one graph module (the designer and the workflow-file edge check in workflow-edges.ts use it too).
import type { Store, TaskDefinition, WorkflowGraph } from '../ports/store.ts';
import { downstreamMap, type Edge, roots, upstreamMap } from './dag.ts';

export interface CachedWorkflow {
  graph: WorkflowGraph;
  tasks: Map<number, TaskDefinition>;
  byName: Map<string, TaskDefinition>;
  downstream: Map<number, number[]>;
  upstream: Map<number, number[]>;
  roots: TaskDefinition[];
  loadedAt: number;
}

export function indexWorkflow(graph: WorkflowGraph, now: number): CachedWorkflow {
  const edges = graph.edges.map((e): Edge<number> => [e.upstreamTaskId, e.downstreamTaskId]);
  const ids = graph.tasks.map((t) => t.id);
  const tasks = new Map(graph.tasks.map((t) => [t.id, t]));
  return {
    graph,
    tasks,
    byName: new Map(graph.tasks.map((t) => [t.name, t])),
    downstream: downstreamMap(edges),
    upstream: upstreamMap(edges),
    roots: roots(ids, edges).map((id) => tasks.get(id) as TaskDefinition),
    loadedAt: now,
  };
}

export class WorkflowCache {
  private readonly entries = new Map<number, CachedWorkflow>();

  constructor(
    private readonly store: Store,
    private readonly now: () => number,
    /** other engines may change definitions (team mode); re-read after this long */
    private readonly maxAgeMs = 10_000,
  ) {}

  async get(workflowId: number): Promise<CachedWorkflow | undefined> {
    const hit = this.entries.get(workflowId);
    if (hit && this.now() - hit.loadedAt < this.maxAgeMs) return hit;
    if (hit) {
      // Re-reading a 100k-task graph takes seconds: only when its version or switch changed.
      const stamp = await this.store.getWorkflowStamp(workflowId);
      if (stamp && stamp.version === hit.graph.version && stamp.enabled === hit.graph.enabled) {
        hit.loadedAt = this.now();
        return hit;
      }
    }
    const graph = await this.store.getWorkflowGraph(workflowId);
    if (!graph) {
      this.entries.delete(workflowId);
      return undefined;
    }
    const entry = indexWorkflow(graph, this.now());
    this.entries.set(workflowId, entry);
    return entry;
  }

  invalidate(workflowId?: number): void {
    if (workflowId === undefined) this.entries.clear();
    else this.entries.delete(workflowId);
  }
}
