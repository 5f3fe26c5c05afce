// Builders shared by the Store contract files. They go through the port only, so every adapter
// (SQLite now, MySQL later) is seeded the same way.
import type { Updateable } from 'kysely';
import type {
  InstanceRecord,
  InstanceState,
  RunRecord,
  RunState,
  ScheduleSpec,
  TaskSpec,
  WorkflowSpec,
} from '../../engine/api/types.ts';
import type { NewInstance, NewRun, Store, WorkflowGraph } from '../../engine/ports/store.ts';
import { guardedInstanceUpdate } from '../../engine/adapters/sql/instance-writes.ts';
import type { TaskInstanceTable } from '../../engine/adapters/sql/schema.ts';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';

/** A fixed "now": every time in the suite is an offset from it. */
export const T0 = 1_700_000_000_000;

/** Each test gets its own store; contract files read it through this getter. */
export type StoreGetter = () => Store;

export const hourly: ScheduleSpec = { cron: '0 * * * *', timezone: 'UTC', misfire: 'run_once', overlap: 'skip' };

export function task(name: string, upstream: string[] = [], extra: Partial<TaskSpec> = {}): TaskSpec {
  return {
    name,
    command: `echo ${name}`,
    env: {},
    retries: 0,
    retryBackoff: { kind: 'fixed', delayMs: 1000, maxDelayMs: 1000 },
    labels: [],
    upstream,
    ...extra,
  };
}

export function workflow(name: string, tasks: TaskSpec[], extra: Partial<WorkflowSpec> = {}): WorkflowSpec {
  return { name, routing: 'round_robin', tasks, ...extra };
}

export async function graphOf(store: Store, workflowId: number): Promise<WorkflowGraph> {
  const graph = await store.getWorkflowGraph(workflowId);
  if (!graph) throw new Error(`no graph for workflow ${workflowId}`);
  return graph;
}

/** name → task id of a workflow's current definition */
export function taskIds(graph: WorkflowGraph): Map<string, number> {
  return new Map(graph.tasks.map((t) => [t.name, t.id]));
}

/** edges as "upstream>downstream" task names, sorted, so tests compare shapes, not ids */
export function edgeNames(graph: WorkflowGraph): string[] {
  const names = new Map(graph.tasks.map((t) => [t.id, t.name]));
  return graph.edges.map((e) => `${names.get(e.upstreamTaskId)}>${names.get(e.downstreamTaskId)}`).sort();
}

export function manualRun(workflowId: number, extra: Partial<NewRun> = {}): NewRun {
  return {
    workflowId,
    state: 'RUNNING',
    trigger: 'manual',
    triggeredBy: 'alice@laptop',
    logicalTime: T0,
    createdAt: T0,
    ...extra,
  };
}

/** A run alone, no instances (startRun with no roots): what the contract tests build on. */
export async function createRun(store: Store, run: NewRun): Promise<RunRecord | undefined> {
  return (await store.startRun({ run, roots: [] }))?.run;
}

export interface Seeded {
  workflowId: number;
  runId: number;
  /** task id by name */
  tasks: Map<string, number>;
}

/** A workflow with tasks a, b, c (b and c after a) and one running manual run. */
export async function seedRun(store: Store, name = 'etl'): Promise<Seeded> {
  const { workflowId } = await store.applyWorkflow(workflow(name, [task('a'), task('b', ['a']), task('c', ['a'])]), T0);
  const run = await createRun(store, manualRun(workflowId));
  if (!run) throw new Error('seed run was refused');
  return { workflowId, runId: run.id, tasks: taskIds(await graphOf(store, workflowId)) };
}

/** Creates one instance of task `taskName` in the seeded run (WAITING, attempt 1 unless told). */
export async function addInstance(
  store: Store,
  seed: Seeded,
  taskName: string,
  extra: Partial<NewInstance> = {},
): Promise<InstanceRecord> {
  const taskId = seed.tasks.get(taskName);
  if (taskId === undefined) throw new Error(`no task ${taskName}`);
  const created = await store.createInstance({
    runId: seed.runId,
    workflowId: seed.workflowId,
    taskId,
    taskName,
    attempt: 1,
    state: 'WAITING',
    notBefore: T0,
    createdAt: T0,
    ...extra,
  });
  if (!created) throw new Error(`instance of ${taskName} was refused`);
  return created;
}

/** The fields a fixture may set with a state. */
export type Fields = Partial<
  Pick<
    InstanceRecord,
    | 'workerId'
    | 'pid'
    | 'exitCode'
    | 'dispatchedAt'
    | 'startedAt'
    | 'finishedAt'
    | 'heartbeatAt'
    | 'notBefore'
    | 'failedOver'
  >
> & {
  reason?: string | null;
};

const COLUMNS: Record<keyof Fields, keyof TaskInstanceTable> = {
  workerId: 'worker_id',
  pid: 'pid',
  exitCode: 'exit_code',
  reason: 'reason',
  dispatchedAt: 'dispatched_at',
  startedAt: 'started_at',
  finishedAt: 'finished_at',
  heartbeatAt: 'heartbeat_at',
  notBefore: 'not_before',
  failedOver: 'failed_over',
};

/**
 * Puts an instance in a state (with fields) as a test needs it, guarded on its current state,
 * attempt and owner; throws if refused. Below the port, on the SQL adapter's database (every
 * adapter is one): the port has only the named steps, and a fixture must reach states (final but
 * unhandled, DISPATCHED without a claim) that no single step makes.
 */
export async function move(
  store: Store,
  inst: InstanceRecord,
  to: InstanceState,
  fields: Fields = {},
): Promise<InstanceRecord> {
  const values: Record<string, unknown> = { state: to };
  for (const [key, value] of Object.entries(fields))
    if (value !== undefined) values[COLUMNS[key as keyof Fields]] = typeof value === 'boolean' ? Number(value) : value;
  // a reason written here has no code: the stored one goes with the old text, as in the store's own writes
  if (fields.reason !== undefined) values.reason_code = null;
  const ok = await guardedInstanceUpdate((store as SqlStore).db, values as Updateable<TaskInstanceTable>, inst.id, {
    from: [inst.state],
    attempt: inst.attempt,
    workerId: inst.workerId,
  });
  if (!ok) throw new Error(`transition ${inst.state} → ${to} of instance ${inst.id} was refused`);
  return mustGet(store, inst.id);
}

/** Sets a run's state (and finish time) as a test needs it, below the port like `move`. */
export async function setRunState(
  store: Store,
  runId: number,
  state: RunState,
  finishedAt: number | null,
): Promise<void> {
  await (store as SqlStore).db
    .updateTable('workflow_run')
    .set({ state, finished_at: finishedAt })
    .where('id', '=', runId)
    .execute();
}

/** WAITING → DISPATCHED (to workerId) → RUNNING, as a dispatcher and a worker would. */
export async function runOn(store: Store, inst: InstanceRecord, workerId: string, at = T0): Promise<InstanceRecord> {
  const dispatched = await move(store, inst, 'DISPATCHED', { workerId, dispatchedAt: at });
  return move(store, dispatched, 'RUNNING', { startedAt: at, pid: 4242, heartbeatAt: at });
}

export async function mustGet(store: Store, id: number): Promise<InstanceRecord> {
  const inst = await store.getInstance(id);
  if (!inst) throw new Error(`instance ${id} is gone`);
  return inst;
}
