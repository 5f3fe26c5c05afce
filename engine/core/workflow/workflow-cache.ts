// Workflow graphs with their adjacency, loaded once per workflow and reused by every event:
// dependency advance must cost O(downstream), not a reload or a scan. The graph work is
// dag.ts's, the one graph module (the designer and the workflow-file edge check in workflow-edges.ts use it too).
import type { DefinitionStore, TaskDefinition, WorkflowGraph } from '../../ports/store.ts';
import type { InstanceRecord } from '../../api/types.ts';
import { Adjacency, type Edge, topologicalOrder } from '../model/dag.ts';
import { SharedLoads } from '../support/shared-loads.ts';

export interface CachedWorkflow {
  graph: WorkflowGraph;
  tasks: Map<number, TaskDefinition>;
  byName: Map<string, TaskDefinition>;
  downstream: Map<number, number[]>;
  upstream: Map<number, number[]>;
  roots: TaskDefinition[];
  loadedAt: number;
}

/** How many tasks or edges are indexed between two turns of the event loop. */
const SLICE = 5_000;

/**
 * Lets the host's event loop run what is due (timers, I/O) before the caller goes on: a
 * microtask would not. The host gives it (core has no event loop of its own to name).
 */
export type NextTurn = () => Promise<void>;

/**
 * The graph's indexes, built a slice at a time with a turn of the event loop between slices, so
 * a 100k-task graph never holds up the engine's timers, exits and heartbeats for long; a small
 * graph is indexed in one go.
 */
export async function indexWorkflow(graph: WorkflowGraph, now: number, turn: NextTurn): Promise<CachedWorkflow> {
  const downstream = new Adjacency<number>('downstream');
  const upstream = new Adjacency<number>('upstream');
  const tasks = new Map<number, TaskDefinition>();
  const byName = new Map<string, TaskDefinition>();
  const roots: TaskDefinition[] = [];
  for (let i = 0; i < graph.edges.length; i += SLICE) {
    if (i > 0) await turn();
    const edges = graph.edges.slice(i, i + SLICE).map((e): Edge<number> => [e.upstreamTaskId, e.downstreamTaskId]);
    downstream.add(edges);
    upstream.add(edges);
  }
  for (let i = 0; i < graph.tasks.length; i += SLICE) {
    if (i > 0 || graph.edges.length > SLICE) await turn();
    for (const t of graph.tasks.slice(i, i + SLICE)) {
      tasks.set(t.id, t);
      byName.set(t.name, t);
      if (!upstream.map.has(t.id)) roots.push(t);
    }
  }
  return { graph, tasks, byName, downstream: downstream.map, upstream: upstream.map, roots, loadedAt: now };
}

const ranks = new WeakMap<CachedWorkflow, Map<string, number>>();

/** Each task's place in the workflow's topological order (dag.ts), computed once per loaded graph. */
function taskRanks(w: CachedWorkflow): Map<string, number> {
  let rank = ranks.get(w);
  if (!rank) {
    const name = (id: number) => w.tasks.get(id)?.name ?? '';
    const order = topologicalOrder(
      w.graph.tasks.map((t) => t.name),
      w.graph.edges.map((e): Edge<string> => [name(e.upstreamTaskId), name(e.downstreamTaskId)]),
    );
    rank = new Map(order.map((n, i) => [n, i]));
    ranks.set(w, rank);
  }
  return rank;
}

/**
 * A run's instances as its views list them: by the task's topological place (ties by name; a
 * task no longer in the workflow last, by name), then attempt.
 */
export function inTaskOrder(instances: readonly InstanceRecord[], w: CachedWorkflow | undefined): InstanceRecord[] {
  const rank = w ? taskRanks(w) : new Map<string, number>();
  const at = (i: InstanceRecord) => rank.get(i.taskName) ?? Number.MAX_SAFE_INTEGER;
  return [...instances].sort(
    (a, b) =>
      at(a) - at(b) ||
      (a.taskName < b.taskName ? -1 : a.taskName > b.taskName ? 1 : 0) ||
      a.attempt - b.attempt ||
      a.id - b.id,
  );
}

export class WorkflowCache {
  private readonly entries = new Map<number, CachedWorkflow>();
  /**
   * Loads under way: the callers that miss together share one (a worker's batch of dispatches of
   * a 2,000-task workflow read and indexed it once per dispatch: 20 at once, 40 times a burst).
   */
  private readonly loading = new SharedLoads<number, CachedWorkflow | undefined>();
  /** bumped by invalidate: a load begun before it does not put back what it forgot */
  private generation = 0;

  constructor(
    private readonly store: DefinitionStore,
    private readonly now: () => number,
    private readonly nextTurn: NextTurn,
    /** other engines may change definitions (team mode); re-read after this long */
    private readonly maxAgeMs = 10_000,
  ) {}

  async get(workflowId: number): Promise<CachedWorkflow | undefined> {
    const hit = this.entries.get(workflowId);
    if (hit && this.now() - hit.loadedAt < this.maxAgeMs) return hit;
    const generation = this.generation;
    return this.loading.get(workflowId, () => this.load(workflowId, hit, generation));
  }

  private async load(
    workflowId: number,
    hit: CachedWorkflow | undefined,
    generation: number,
  ): Promise<CachedWorkflow | undefined> {
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
      if (generation === this.generation) this.entries.delete(workflowId);
      return undefined;
    }
    const entry = await indexWorkflow(graph, this.now(), this.nextTurn);
    if (generation === this.generation) this.entries.set(workflowId, entry);
    return entry;
  }

  /** a workflow's id by name (a call: task names the workflow it calls), read each time: names are few and cheap */
  findId(name: string): Promise<number | undefined> {
    return this.store.findWorkflowId(name);
  }

  invalidate(workflowId?: number): void {
    this.generation += 1;
    if (workflowId === undefined) this.entries.clear();
    else this.entries.delete(workflowId);
    this.loading.forget(workflowId);
  }
}
