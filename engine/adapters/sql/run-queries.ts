// Runs and task instances: their rows, reads and the inserts the compound steps build on (the
// state changes themselves are one file each: start-run.ts, finish-instance.ts, …).
import { sql, type Kysely, type Selectable } from 'kysely';
import type { InstanceLaunch, InstanceRecord, InstanceState, RunRecord } from '../../api/types.ts';
import type { NewInstance, NewRun, RunFilter } from '../../ports/store.ts';
import { memoQuery, slot } from './memo-query.ts';
import { insertedId, mayCollide } from './inserts.ts';
import type { SqlDialectName } from './migrations.ts';
import { chunks, instanceFromRow, reasonColumns, runFromRow } from './rows.ts';
import type { Database, TaskInstanceTable } from './schema.ts';

const ACTIVE: InstanceState[] = ['WAITING', 'DISPATCHED', 'RUNNING'];
const FINAL: InstanceState[] = ['SUCCESS', 'FAILED', 'TIMEOUT', 'CANCELLED', 'UPSTREAM_FAILED', 'SKIPPED'];

/** Every dialect's code for a unique-key violation (PostgreSQL's SQLSTATE 23505). */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code;
  return (
    code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    code === 'ER_DUP_ENTRY' ||
    code === '23505'
  );
}

function runs(db: Kysely<Database>) {
  return db
    .selectFrom('workflow_run')
    .innerJoin('workflow', 'workflow.id', 'workflow_run.workflow_id')
    .selectAll('workflow_run')
    .select('workflow.name as workflow_name');
}

/** The run's id, or undefined when (schedule, logical time) already has one. */
export async function insertRun(db: Kysely<Database>, run: NewRun): Promise<number | undefined> {
  try {
    return await mayCollide(db, () =>
      insertedId(
        db,
        db.insertInto('workflow_run').values({
          workflow_id: run.workflowId,
          state: run.state,
          trigger_type: run.trigger,
          triggered_by: run.triggeredBy,
          logical_time: run.logicalTime,
          schedule_id: run.scheduleId ?? null,
          only_task: run.onlyTask ?? null,
          with_downstream: run.onlyTask !== undefined && run.withDownstream === true ? 1 : 0,
          event_payload: run.eventPayload ?? null,
          params_json: run.params && Object.keys(run.params).length > 0 ? JSON.stringify(run.params) : null,
          backfill_id: run.backfillId ?? null,
          ...reasonColumns(run.reason, run.reasonCode),
          created_at: run.createdAt,
          started_at: run.state === 'RUNNING' ? run.createdAt : null,
          finished_at: run.state === 'SKIPPED' ? run.createdAt : null,
          parent_run_id: run.parentRunId ?? null,
          parent_instance_id: run.parentInstanceId ?? null,
        }),
      ),
    );
  } catch (err) {
    if (isUniqueViolation(err)) return undefined;
    throw err;
  }
}

export async function getRun(db: Kysely<Database>, id: number): Promise<RunRecord | undefined> {
  const [row] = (await memoQuery(db, 'run-by-id', (d) => runs(d).where('workflow_run.id', '=', slot(0)), [id])).rows;
  return row ? runFromRow(row) : undefined;
}

export async function listRuns(db: Kysely<Database>, filter: RunFilter): Promise<RunRecord[]> {
  let q = runs(db)
    .orderBy('workflow_run.id', 'desc')
    .limit(filter.limit ?? 50);
  if (filter.workflowName) q = q.where('workflow.name', '=', filter.workflowName);
  if (filter.states?.length) q = q.where('workflow_run.state', 'in', filter.states);
  if (filter.beforeId !== undefined) q = q.where('workflow_run.id', '<', filter.beforeId);
  if (filter.ids) q = filter.ids.length ? q.where('workflow_run.id', 'in', filter.ids) : q.where(sql<boolean>`1 = 0`);
  if (filter.owner !== undefined) q = q.where('workflow.owner', '=', filter.owner);
  if (filter.triggers?.length) q = q.where('workflow_run.trigger_type', 'in', filter.triggers);
  if (filter.createdFrom !== undefined) q = q.where('workflow_run.created_at', '>=', filter.createdFrom);
  if (filter.createdTo !== undefined) q = q.where('workflow_run.created_at', '<', filter.createdTo);
  return (await q.execute()).map(runFromRow);
}

export async function createInstance(db: Kysely<Database>, i: NewInstance): Promise<InstanceRecord | undefined> {
  try {
    const id = await mayCollide(db, () =>
      insertedId(
        db,
        db.insertInto('task_instance').values({
          run_id: i.runId,
          workflow_id: i.workflowId,
          task_id: i.taskId,
          task_name: i.taskName,
          attempt: i.attempt,
          state: i.state,
          ...reasonColumns(i.reason, i.reasonCode),
          not_before: i.notBefore,
          created_at: i.createdAt,
          finished_at: FINAL.includes(i.state) ? i.createdAt : null,
          handled: i.handled ? 1 : 0,
          failovers: i.failovers ?? 0,
        }),
      ),
    );
    return getInstance(db, id);
  } catch (err) {
    if (isUniqueViolation(err)) return undefined;
    throw err;
  }
}

export async function getInstance(db: Kysely<Database>, id: number): Promise<InstanceRecord | undefined> {
  const [row] = (
    await memoQuery(db, 'instance-by-id', (d) => d.selectFrom('task_instance').selectAll().where('id', '=', slot(0)), [
      id,
    ])
  ).rows;
  return row && withLaunch(row);
}

/** An instance with what its attempt ran: the launch (a few KB of environment) is for the instance page, not for lists. */
function withLaunch(row: Selectable<TaskInstanceTable>): InstanceRecord {
  const inst = instanceFromRow(row);
  return typeof row.launch_json === 'string'
    ? { ...inst, launch: JSON.parse(row.launch_json) as InstanceLaunch }
    : inst;
}

/** getInstance of several ids, one query per chunk of ids: each found instance by its id. */
export async function getInstances(db: Kysely<Database>, ids: number[]): Promise<Map<number, InstanceRecord>> {
  const found = new Map<number, InstanceRecord>();
  for (const chunk of chunks(ids)) {
    const rows = await memoQuery(
      db,
      `instances-by-id:${chunk.length}`,
      (d) =>
        d
          .selectFrom('task_instance')
          .selectAll()
          .where(
            'id',
            'in',
            chunk.map((_, i) => slot(i)),
          ),
      chunk,
    );
    for (const row of rows.rows) found.set(Number(row.id), withLaunch(row));
  }
  return found;
}

export async function listInstances(db: Kysely<Database>, runId: number): Promise<InstanceRecord[]> {
  const rows = await db.selectFrom('task_instance').selectAll().where('run_id', '=', runId).orderBy('id').execute();
  return rows.map(instanceFromRow);
}

export async function instancesInStates(
  db: Kysely<Database>,
  states: InstanceState[],
  limit = 10_000,
): Promise<InstanceRecord[]> {
  // `IN ()` is valid SQLite but a MySQL syntax error.
  if (states.length === 0) return [];
  const rows = await db
    .selectFrom('task_instance')
    .selectAll()
    .where('state', 'in', states)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(instanceFromRow);
}

export async function dueWaiting(
  db: Kysely<Database>,
  now: number,
  limit: number,
  after?: { notBefore: number; id: number },
): Promise<InstanceRecord[]> {
  const { rows } = await memoQuery(
    db,
    after ? 'due-waiting-after' : 'due-waiting',
    (d) => {
      let q = d
        .selectFrom('task_instance')
        .selectAll()
        .where('state', '=', 'WAITING')
        .where('not_before', '<=', slot(0));
      if (after) {
        q = q.where((eb) =>
          eb.or([eb('not_before', '>', slot(2)), eb.and([eb('not_before', '=', slot(2)), eb('id', '>', slot(3))])]),
        );
      }
      return q.orderBy('not_before').orderBy('id').limit(slot(1));
    },
    [now, limit, after?.notBefore, after?.id],
  );
  return rows.map(instanceFromRow);
}

export async function nextWaitingAt(db: Kysely<Database>): Promise<number | undefined> {
  const row = await db
    .selectFrom('task_instance')
    .select((eb) => eb.fn.min('not_before').as('at'))
    .where('state', '=', 'WAITING')
    .executeTakeFirst();
  return row?.at === null || row?.at === undefined ? undefined : Number(row.at);
}

export async function unhandledFinished(db: Kysely<Database>, limit: number): Promise<InstanceRecord[]> {
  const rows = await db
    .selectFrom('task_instance')
    .selectAll()
    .where('handled', '=', 0)
    .where('state', 'in', FINAL)
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(instanceFromRow);
}

export async function pendingInstanceCount(db: Kysely<Database>, runId: number): Promise<number> {
  // Two counts, each answered by an index on (run_id, …): O(pending), not O(instances of the run).
  const active = await db
    .selectFrom('task_instance')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('run_id', '=', runId)
    .where('state', 'in', ACTIVE)
    .executeTakeFirstOrThrow();
  const unhandled = await db
    .selectFrom('task_instance')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('run_id', '=', runId)
    .where('handled', '=', 0)
    .where('state', 'not in', ACTIVE)
    .executeTakeFirstOrThrow();
  return Number(active.n) + Number(unhandled.n);
}

export async function recordTaskHeartbeats(
  db: Kysely<Database>,
  dialect: SqlDialectName,
  workerId: string,
  beats: { instanceId: number; attempt: number; at: number }[],
): Promise<Set<number>> {
  // Beats of one tick share their time: one UPDATE per distinct (time, attempt), usually one or
  // two. The attempt is part of the fence (design.md §7): a beat for another attempt touches nothing.
  // On PostgreSQL the beat skips the rows another step holds locked (a pid or an outcome write,
  // alone or in a group commit that locks its rows in its own order): waiting for them while
  // holding the others was a deadlock, found only after deadlock_timeout (1 s) each. A beat
  // skipped once is harmless (a task is suspected only after 2.5 intervals without one), and an
  // outcome ends the beats of its row anyway. InnoDB finds deadlocks at once and runs the beat as before.
  const groups = new Map<string, { at: number; attempt: number; ids: number[] }>();
  for (const b of beats) {
    const key = `${b.at}:${b.attempt}`;
    const group = groups.get(key) ?? { at: b.at, attempt: b.attempt, ids: [] };
    group.ids.push(b.instanceId);
    groups.set(key, group);
  }
  for (const { at, attempt, ids } of groups.values()) {
    for (const part of chunks(ids)) {
      const free = db
        .selectFrom('task_instance')
        .select('id')
        .where('id', 'in', part)
        .where('attempt', '=', attempt)
        .where('worker_id', '=', workerId)
        .where('state', '=', 'RUNNING')
        .forUpdate()
        .skipLocked();
      await db
        .updateTable('task_instance')
        .set({ heartbeat_at: at })
        .where('id', 'in', dialect === 'postgres' ? free : part)
        .where('attempt', '=', attempt)
        .where('worker_id', '=', workerId)
        .where('state', '=', 'RUNNING')
        .execute();
    }
  }
  const attemptOf = new Map(beats.map((b) => [b.instanceId, b.attempt]));
  const owned = new Set<number>();
  for (const part of chunks([...attemptOf.keys()])) {
    const rows = await db
      .selectFrom('task_instance')
      .select(['id', 'attempt'])
      .where('id', 'in', part)
      .where('worker_id', '=', workerId)
      .where('state', '=', 'RUNNING')
      .execute();
    for (const r of rows) if (attemptOf.get(r.id) === r.attempt) owned.add(r.id);
  }
  return owned;
}

/** Of ids, those a user cancelled. */
export async function cancelledAmong(db: Kysely<Database>, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('task_instance')
    .select('id')
    .where('id', 'in', ids)
    .where('state', '=', 'CANCELLED')
    .execute();
  return rows.map((r) => r.id);
}

/** DISPATCHED + RUNNING instances per worker. */
export async function activeCountByWorker(db: Kysely<Database>): Promise<Map<string, number>> {
  const { rows } = await memoQuery(
    db,
    'active-count-by-worker',
    (d) =>
      d
        .selectFrom('task_instance')
        .select(['worker_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('state', 'in', ['DISPATCHED', 'RUNNING'])
        .groupBy('worker_id'),
    [],
  );
  return new Map(rows.filter((r) => r.worker_id !== null).map((r) => [r.worker_id as string, Number(r.n)]));
}
