// Workflow graphs with their adjacency, loaded once per workflow and reused by every event:
// dependency advance must cost O(downstream), not a reload or a scan.
import type { Store, TaskDefinition, WorkflowGraph } from '../ports/store.ts';

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
  const downstream = new Map<number, number[]>();
  const upstream = new Map<number, number[]>();
  for (const e of graph.edges) {
    (downstream.get(e.upstreamTaskId) ?? downstream.set(e.upstreamTaskId, []).get(e.upstreamTaskId)!).push(e.downstreamTaskId);
    (upstream.get(e.downstreamTaskId) ?? upstream.set(e.downstreamTaskId, []).get(e.downstreamTaskId)!).push(e.upstreamTaskId);
  }
  return {
    graph,
    tasks: new Map(graph.tasks.map((t) => [t.id, t])),
    byName: new Map(graph.tasks.map((t) => [t.name, t])),
    downstream,
    upstream,
    roots: graph.tasks.filter((t) => !upstream.has(t.id)),
    loadedAt: now,
  };
}

/** All tasks downstream of start, transitively (not start itself). */
export function downstreamClosure(wf: CachedWorkflow, start: number): number[] {
  const seen = new Set<number>();
  const stack = [...(wf.downstream.get(start) ?? [])];
  while (stack.length) {
    const id = stack.pop() as number;
    if (seen.has(id)) continue;
    seen.add(id);
    stack.push(...(wf.downstream.get(id) ?? []));
  }
  return [...seen];
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
