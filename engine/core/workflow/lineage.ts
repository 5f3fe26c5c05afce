// The graph across workflows: which tasks of which workflows feed which, whoever owns
// them. Apply uses it to refuse a cycle across workflows (spelled out: a.x → b.y → a.x) and to
// warn about references that lead nowhere; `ax lineage` and the UI draw a task's upstream and
// downstream from it, with owners and today's states. Nodes are `WORKFLOW.TASK`; a whole-workflow
// reference stands for an edge from each of that workflow's tasks. Only the workflows the walk
// reaches are read (a spec, and the stored references naming it), never every workflow.
import { AxError, ValidationError, type ValidationProblem } from '../../api/errors.ts';
import type { LineageEdge, LineageGraph, LineageNode } from '../../api/engine-api.ts';
import type { CrossUpstream, InstanceState, WorkflowSpec } from '../../api/types.ts';
import type { Clock } from '../../ports/clock.ts';
import type { CrossDependencyRow, DefinitionStore, RunStore, InstanceStore } from '../../ports/store.ts';
import { checkCalls } from './call-cycle.ts';
import { refName, splitRef, waitWindow } from './cross-upstream.ts';
import { findCycle, type Edge } from '../model/dag.ts';

const nodeId = (workflow: string, task: string): string => `${workflow}.${task}`;
/** Hops each way `ax lineage` walks unless told. */
export const DEFAULT_LINEAGE_DEPTH = 10;

/** Specs and reverse references, read once per walk; `replace` stands in for its stored version (an apply). */
export class LineageReader {
  private readonly specs = new Map<string, WorkflowSpec | undefined>();
  private readonly dependents = new Map<string, CrossDependencyRow[]>();

  constructor(
    private readonly store: DefinitionStore & RunStore & InstanceStore,
    private readonly replace?: WorkflowSpec,
  ) {}

  async spec(name: string): Promise<WorkflowSpec | undefined> {
    if (this.replace?.name === name) return this.replace;
    if (!this.specs.has(name)) this.specs.set(name, await this.store.getWorkflowSpec(name));
    return this.specs.get(name);
  }

  /** Tasks of other workflows naming `workflow` (a task of it, or all of it); the replaced spec's own stored references are not its. */
  async dependentsOf(workflow: string): Promise<CrossDependencyRow[]> {
    let rows = this.dependents.get(workflow);
    if (!rows) {
      rows = (await this.store.crossDependencies({ upstreamWorkflow: workflow })).filter(
        (r) => r.workflow !== this.replace?.name,
      );
      if (this.replace) {
        for (const t of this.replace.tasks) {
          for (const c of t.crossUpstream ?? []) {
            if (c.workflow === workflow)
              rows.push({
                workflow: this.replace.name,
                task: t.name,
                upstreamWorkflow: c.workflow,
                upstreamTask: c.task ?? null,
                date: c.date,
                upstreamMissing: false,
              });
          }
        }
      }
      this.dependents.set(workflow, rows);
    }
    return rows;
  }

  /** Edges into `workflow.task`: its local upstreams and the tasks its cross references stand for. */
  async upstreamOf(workflow: string, task: string): Promise<LineageEdge[]> {
    const t = (await this.spec(workflow))?.tasks.find((x) => x.name === task);
    if (!t) return [];
    const to = nodeId(workflow, task);
    const out: LineageEdge[] = t.upstream.map((u) => ({ from: nodeId(workflow, u), to, across: false }));
    for (const c of t.crossUpstream ?? []) out.push(...(await this.crossEdges(c, to)));
    return out;
  }

  private async crossEdges(c: CrossUpstream, to: string): Promise<LineageEdge[]> {
    if (c.task !== undefined) return [{ from: nodeId(c.workflow, c.task), to, across: true, date: c.date }];
    const up = await this.spec(c.workflow);
    // A whole workflow not there yet: one node stands for it.
    if (!up) return [{ from: refName(c), to, across: true, date: c.date }];
    return up.tasks.map((x) => ({ from: nodeId(c.workflow, x.name), to, across: true, date: c.date }));
  }

  /** Edges out of `workflow.task`: its local downstream and the tasks of other workflows naming it (or its whole workflow). */
  async downstreamOf(workflow: string, task: string): Promise<LineageEdge[]> {
    const spec = await this.spec(workflow);
    const from = nodeId(workflow, task);
    const out: LineageEdge[] = (spec?.tasks ?? [])
      .filter((x) => x.upstream.includes(task))
      .map((x) => ({ from, to: nodeId(workflow, x.name), across: false }));
    for (const r of await this.dependentsOf(workflow)) {
      if (r.upstreamTask === null || r.upstreamTask === task)
        out.push({ from, to: nodeId(r.workflow, r.task), across: true, date: r.date });
    }
    return out;
  }
}

/** `WORKFLOW.TASK` of a node id, as far as the reader knows the workflow. */
async function parts(reader: LineageReader, id: string): Promise<{ workflow: string; task: string } | undefined> {
  const { workflow, task } = splitRef(id);
  return task !== undefined && (await reader.spec(workflow)) ? { workflow, task } : undefined;
}

/**
 * A cycle through `spec` across workflows, if applying it would make one: walked from its tasks
 * downstream, through other workflows, back to it. Local cycles the workflow file refuses already.
 */
export async function crossCycle(
  store: DefinitionStore & RunStore & InstanceStore,
  spec: WorkflowSpec,
): Promise<string[] | undefined> {
  if (
    !spec.tasks.some((t) => t.crossUpstream?.length) &&
    (await store.crossDependencies({ upstreamWorkflow: spec.name })).length === 0
  )
    return undefined;
  const reader = new LineageReader(store, spec);
  const edges: Edge<string>[] = [];
  const seen = new Set<string>();
  const queue = spec.tasks.map((t) => nodeId(spec.name, t.name));
  for (const id of queue) seen.add(id);
  while (queue.length > 0) {
    const id = queue.shift() as string;
    const p = await parts(reader, id);
    if (!p) continue;
    for (const e of await reader.downstreamOf(p.workflow, p.task)) {
      edges.push([e.from, e.to]);
      if (!seen.has(e.to)) {
        seen.add(e.to);
        queue.push(e.to);
      }
    }
  }
  return findCycle([...seen], edges);
}

/**
 * What applying `spec` over `previous` is refused for (a cycle across workflows) and warned
 * about: references to workflows or tasks that do not exist (yet), and tasks it removes (or
 * renames) that other workflows wait for.
 */
export async function checkAcrossWorkflows(
  store: DefinitionStore & RunStore & InstanceStore,
  spec: WorkflowSpec,
  previous: WorkflowSpec | undefined,
): Promise<string[]> {
  const calls = await checkCalls(spec, (name) => store.getWorkflowSpec(name));
  if (calls.cycle) {
    throw new ValidationError([
      {
        file: `workflow ${spec.name}`,
        path: `tasks.${calls.cycle.task}.call`,
        message: `cycle of calls: ${calls.cycle.path.join(' → ')}: a workflow cannot call itself, directly or through others; remove one of these calls`,
      },
    ]);
  }
  const cycle = await crossCycle(store, spec);
  if (cycle) {
    const problem: ValidationProblem = {
      file: `workflow ${spec.name}`,
      path: 'tasks',
      message: `cycle across workflows: ${cycle.join(' → ')}: remove one of these upstreams`,
    };
    throw new ValidationError([problem]);
  }
  const warnings: string[] = [...calls.warnings];
  const reader = new LineageReader(store, spec);
  for (const t of spec.tasks) {
    for (const c of t.crossUpstream ?? []) {
      const up = await reader.spec(c.workflow);
      const wait = `"${t.name}" waits until it is applied and succeeds (up to its wait_timeout)`;
      if (!up) warnings.push(`tasks.${t.name}.upstream: no workflow "${c.workflow}" yet: ${wait}`);
      else if (c.task !== undefined && !up.tasks.some((x) => x.name === c.task)) {
        warnings.push(
          `tasks.${t.name}.upstream: workflow "${c.workflow}" has no task "${c.task}" (its tasks: ${up.tasks.map((x) => x.name).join(', ')}): ${wait}`,
        );
      }
    }
  }
  const kept = new Set(spec.tasks.map((t) => t.name));
  const gone = (previous?.tasks ?? []).map((t) => t.name).filter((n) => !kept.has(n));
  if (gone.length > 0) {
    const rows = await reader.dependentsOf(spec.name);
    for (const task of gone) {
      const deps = rows.filter((r) => r.upstreamTask === task).map((r) => `${r.workflow}.${r.task}`);
      if (deps.length > 0) {
        warnings.push(
          `task "${task}" is removed (or renamed), but ${deps.join(', ')} depend${deps.length === 1 ? 's' : ''} on ${spec.name}.${task}: they will wait until their wait_timeout; change their upstream`,
        );
      }
    }
  }
  return warnings;
}

/** References of every workflow to workflows or tasks that do not exist: `ax ls` lists them. */
export async function missingUpstreams(
  store: DefinitionStore & RunStore & InstanceStore,
): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const r of await store.crossDependencies({})) {
    if (!r.upstreamMissing) continue;
    const list = out.get(r.workflow) ?? [];
    const ref = refName({ workflow: r.upstreamWorkflow, ...(r.upstreamTask !== null && { task: r.upstreamTask }) });
    if (!list.includes(ref)) list.push(ref);
    out.set(r.workflow, list);
  }
  return out;
}

/**
 * The lineage of a workflow (all its tasks) or of one task: `up` hops of upstream and `down` hops
 * of downstream, across workflows, each node with its owner (the task's, else its workflow's) and
 * today's state (its latest attempt in its workflow's latest run of today, in the workflow's zone).
 */
export async function lineage(
  store: DefinitionStore & RunStore & InstanceStore,
  clock: Clock,
  target: string,
  depth: { up?: number; down?: number } = {},
): Promise<LineageGraph> {
  const reader = new LineageReader(store);
  let focus: string[];
  const whole = await reader.spec(target);
  if (whole) focus = whole.tasks.map((t) => nodeId(whole.name, t.name));
  else {
    const { workflow, task } = splitRef(target);
    const spec = await reader.spec(workflow);
    if (!spec || task === undefined)
      throw new AxError(
        'not_found',
        `no workflow named "${target}"${spec ? '' : ' (nor a task WORKFLOW.TASK of one)'}: see "ax ls"`,
      );
    if (!spec.tasks.some((t) => t.name === task))
      throw new AxError(
        'not_found',
        `workflow "${workflow}" has no task "${task}": its tasks are ${spec.tasks.map((t) => t.name).join(', ')}`,
      );
    focus = [nodeId(workflow, task)];
  }
  const edges = new Map<string, LineageEdge>();
  const ids = new Set(focus);
  for (const dir of ['up', 'down'] as const) {
    const limit = depth[dir] ?? DEFAULT_LINEAGE_DEPTH;
    let frontier = [...focus];
    const seen = new Set(focus);
    for (let hop = 0; hop < limit && frontier.length > 0; hop++) {
      const next: string[] = [];
      for (const id of frontier) {
        const p = await parts(reader, id);
        if (!p) continue;
        for (const e of dir === 'up'
          ? await reader.upstreamOf(p.workflow, p.task)
          : await reader.downstreamOf(p.workflow, p.task)) {
          edges.set(`${e.from}→${e.to}`, e);
          const other = dir === 'up' ? e.from : e.to;
          ids.add(other);
          if (!seen.has(other)) {
            seen.add(other);
            next.push(other);
          }
        }
      }
      frontier = next;
    }
  }
  const nodes: LineageNode[] = [];
  const today = new Map<string, Map<string, { state: InstanceState; runId: number }>>();
  for (const id of ids) {
    const { workflow, task } = splitRef(id);
    const spec = await reader.spec(workflow);
    const t = spec?.tasks.find((x) => x.name === task);
    if (!spec || !t) {
      nodes.push({ id, workflow, ...(task !== undefined && { task }), missing: true });
      continue;
    }
    if (!today.has(workflow)) today.set(workflow, await todaysStates(store, clock, spec));
    const now = today.get(workflow)?.get(t.name);
    const owner = t.owner ?? spec.owner;
    nodes.push({
      id,
      workflow,
      task: t.name,
      ...(owner !== undefined && { owner }),
      ...(now && { state: now.state, runId: now.runId }),
    });
  }
  nodes.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return { focus, nodes, edges: [...edges.values()] };
}

async function todaysStates(
  store: DefinitionStore & RunStore & InstanceStore,
  clock: Clock,
  spec: WorkflowSpec,
): Promise<Map<string, { state: InstanceState; runId: number }>> {
  const out = new Map<string, { state: InstanceState; runId: number }>();
  const day = waitWindow('same_day', clock.now(), spec.schedule?.timezone ?? 'UTC');
  const [run] = await store.listRuns({ workflowName: spec.name, limit: 1 });
  if (!run || !day || run.logicalTime < day.from) return out;
  // Attempts in order: the latest of each task is the one kept.
  for (const i of await store.listInstances(run.id)) out.set(i.taskName, { state: i.state, runId: run.id });
  return out;
}
