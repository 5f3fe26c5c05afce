// Read models for the UI and the CLI: the run-history grid, the dashboard, search and runtimes
// (a log's extent and search are log-queries.ts). Each answers from an index; none ships a whole table.
import { sql, type Kysely } from 'kysely';
import type { InstanceRecord, InstanceState, RunState } from '../../api/types.ts';
import { HELD_FOR_UPSTREAM, type TaskRuntime, type TaskSearchRow } from '../../ports/store.ts';
import { instanceFromRow, num } from './rows.ts';
import type { Database } from './schema.ts';

/**
 * LIKE pattern for a literal substring: % _ and the escape character itself are escaped. The
 * escape is "!", not a backslash: MySQL reads a backslash in a string literal as an escape, so
 * `escape '\'` does not even parse there.
 */
export function likePattern(text: string): string {
  return `%${text.replace(/[!%_]/g, (c) => `!${c}`).toLowerCase()}%`;
}

export async function instancesOfRuns(db: Kysely<Database>, runIds: number[]): Promise<InstanceRecord[]> {
  if (runIds.length === 0) return [];
  const rows = await db.selectFrom('task_instance').selectAll().where('run_id', 'in', runIds).orderBy('id').execute();
  return rows.map(instanceFromRow);
}

export async function finalFailures(db: Kysely<Database>, runIds: number[]): Promise<InstanceRecord[]> {
  if (runIds.length === 0) return [];
  // (run_id, state) finds the failures; the unique (run_id, task_id, attempt) answers "retried?".
  const rows = await db
    .selectFrom('task_instance as i')
    .selectAll('i')
    .where('i.run_id', 'in', runIds)
    .where('i.state', 'in', ['FAILED', 'TIMEOUT', 'CANCELLED'])
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('task_instance as later')
            .select('later.id')
            .whereRef('later.run_id', '=', 'i.run_id')
            .whereRef('later.task_id', '=', 'i.task_id')
            .whereRef('later.attempt', '>', 'i.attempt'),
        ),
      ),
    )
    .orderBy('i.id')
    .execute();
  return rows.map(instanceFromRow);
}

export async function instancesFinishedSince(
  db: Kysely<Database>,
  states: InstanceState[],
  since: number,
  limit: number,
): Promise<InstanceRecord[]> {
  const rows = await db
    .selectFrom('task_instance')
    .selectAll()
    .where('state', 'in', states)
    .where('finished_at', '>=', since)
    .orderBy('finished_at', 'desc')
    .limit(limit)
    .execute();
  return rows.map(instanceFromRow);
}

/** RUNNING instances per worker: the one count of "running on a worker" every listing reads */
export async function runningCountByWorker(db: Kysely<Database>): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('task_instance')
    .select(['worker_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('state', '=', 'RUNNING')
    .groupBy('worker_id')
    .execute();
  return new Map(rows.filter((r) => r.worker_id !== null).map((r) => [r.worker_id as string, num(r.n)]));
}

/** Each (run, task) pair's latest attempt, in id order. */
export async function latestAttempts(
  db: Kysely<Database>,
  keys: { runId: number; taskId: number }[],
): Promise<InstanceRecord[]> {
  if (keys.length === 0) return [];
  const wanted = new Set(keys.map((k) => `${k.runId}:${k.taskId}`));
  const rows = await db
    .selectFrom('task_instance')
    .selectAll()
    .where('run_id', 'in', [...new Set(keys.map((k) => k.runId))])
    .where('task_id', 'in', [...new Set(keys.map((k) => k.taskId))])
    .orderBy('id')
    .execute();
  const latest = new Map<string, InstanceRecord>();
  for (const i of rows.map(instanceFromRow)) {
    const key = `${i.runId}:${i.taskId}`;
    const seen = latest.get(key);
    if (wanted.has(key) && (!seen || i.attempt > seen.attempt)) latest.set(key, i);
  }
  return [...latest.values()].sort((a, b) => a.id - b.id);
}

export async function runsFinishedSince(
  db: Kysely<Database>,
  since: number,
): Promise<Partial<Record<RunState, number>>> {
  const rows = await db
    .selectFrom('workflow_run')
    .select(['state', (eb) => eb.fn.countAll<number>().as('n')])
    .where('finished_at', '>=', since)
    .groupBy('state')
    .execute();
  return Object.fromEntries(rows.map((r) => [r.state, num(r.n)]));
}

export async function countInstances(
  db: Kysely<Database>,
  states: InstanceState[],
  opts: { queuedOnly?: boolean } = {},
): Promise<number> {
  let q = db
    .selectFrom('task_instance')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('state', 'in', states);
  // instances held for an upstream in another workflow wait for it, not for a worker
  if (opts.queuedOnly) q = q.where('not_before', '<', HELD_FOR_UPSTREAM);
  const row = await q.executeTakeFirst();
  return num(row?.n ?? 0);
}

export async function countRuns(db: Kysely<Database>, states: RunState[]): Promise<number> {
  const row = await db
    .selectFrom('workflow_run')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('state', 'in', states)
    .executeTakeFirst();
  return num(row?.n ?? 0);
}

export async function searchTasks(db: Kysely<Database>, query: string, limit: number): Promise<TaskSearchRow[]> {
  const pattern = likePattern(query);
  const like = (column: 'workflow.name' | 'task_definition.name' | 'task_definition.command') =>
    sql<boolean>`lower(${sql.ref(column)}) like ${pattern} escape '!'`;
  const rows = await db
    .selectFrom('task_definition')
    .innerJoin('workflow', 'workflow.id', 'task_definition.workflow_id')
    .select(['workflow.name as workflow', 'task_definition.name as task', 'task_definition.command as command'])
    .where((eb) => eb.or([like('workflow.name'), like('task_definition.name'), like('task_definition.command')]))
    .orderBy('workflow.name')
    .orderBy('task_definition.position')
    .limit(limit)
    .execute();
  return rows;
}

export async function recentRuntimes(db: Kysely<Database>, workflowId: number, limit: number): Promise<TaskRuntime[]> {
  const rows = await db
    .selectFrom('task_instance')
    .select(['task_name', 'started_at', 'finished_at'])
    .where('workflow_id', '=', workflowId)
    .where('state', '=', 'SUCCESS')
    .where('started_at', 'is not', null)
    .where('finished_at', 'is not', null)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ task: r.task_name, ms: num(r.finished_at as number) - num(r.started_at as number) }));
}
