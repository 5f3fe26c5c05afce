// Backfills: their rows, the progress read with them, their runs and the insert of a new one
// (its state changes, compare-and-sets, are move-backfill.ts; a backfill's runs
// are created by start-run.ts).
import type { Kysely, Selectable } from 'kysely';
import type { BackfillState } from '../../api/backfill.ts';
import type { ParamValue, RunRecord } from '../../api/types.ts';
import type { BackfillRow, NewBackfill } from '../../ports/store.ts';
import { num, runFromRow } from './rows.ts';
import { insertedId } from './inserts.ts';
import type { BackfillTable, Database } from './schema.ts';

const LIVE = ['QUEUED', 'RUNNING'];
const ENDED = ['SUCCESS', 'FAILED', 'SKIPPED', 'CANCELLED'];

type Progress = { done: number; failed: number; running: number };

function backfillFromRow(r: Selectable<BackfillTable>, p: Progress): BackfillRow {
  return {
    id: r.id,
    workflowId: r.workflow_id,
    workflowName: r.workflow_name,
    from: num(r.from_time),
    to: num(r.to_time),
    state: r.state as BackfillState,
    maxParallel: r.max_parallel,
    ...(r.params_json !== null && { params: JSON.parse(r.params_json) as Record<string, ParamValue> }),
    total: r.total,
    ...p,
    createdBy: r.created_by,
    createdAt: num(r.created_at),
    ...(r.finished_at !== null && { finishedAt: num(r.finished_at) }),
    ...(r.every !== null && { every: r.every }),
    rerunExisting: r.rerun_existing === 1,
    ...(r.rerun_at !== null && { rerunAt: num(r.rerun_at) }),
  };
}

/** done/failed/running of each backfill, from its runs' states */
async function progressOf(db: Kysely<Database>, ids: number[]): Promise<Map<number, Progress>> {
  const out = new Map<number, Progress>(ids.map((id) => [id, { done: 0, failed: 0, running: 0 }]));
  if (ids.length === 0) return out;
  const rows = await db
    .selectFrom('workflow_run')
    .select(['backfill_id', 'state', (eb) => eb.fn.countAll<number | string>().as('n')])
    .where('backfill_id', 'in', ids)
    .groupBy(['backfill_id', 'state'])
    .execute();
  for (const r of rows) {
    const p = out.get(Number(r.backfill_id));
    if (!p) continue;
    const n = Number(r.n);
    if (LIVE.includes(r.state)) p.running += n;
    if (ENDED.includes(r.state)) p.done += n;
    if (r.state === 'FAILED') p.failed += n;
  }
  return out;
}

async function withProgress(db: Kysely<Database>, rows: Selectable<BackfillTable>[]): Promise<BackfillRow[]> {
  const progress = await progressOf(
    db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => backfillFromRow(r, progress.get(r.id) ?? { done: 0, failed: 0, running: 0 }));
}

export async function createBackfill(db: Kysely<Database>, b: NewBackfill): Promise<BackfillRow> {
  const id = await insertedId(
    db,
    db.insertInto('backfill').values({
      workflow_id: b.workflowId,
      workflow_name: b.workflowName,
      from_time: b.from,
      to_time: b.to,
      every: b.every ?? null,
      times_json: JSON.stringify(b.times),
      total: b.times.length,
      params_json: b.params === undefined ? null : JSON.stringify(b.params),
      max_parallel: b.maxParallel,
      rerun_existing: b.rerunExisting ? 1 : 0,
      state: 'RUNNING',
      created_by: b.createdBy,
      created_at: b.createdAt,
    }),
  );
  return (await getBackfill(db, id)) as BackfillRow;
}

export async function getBackfill(db: Kysely<Database>, id: number): Promise<BackfillRow | undefined> {
  const row = await db.selectFrom('backfill').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? (await withProgress(db, [row]))[0] : undefined;
}

export async function listBackfills(
  db: Kysely<Database>,
  filter: { workflowName?: string; states?: BackfillState[]; limit?: number },
): Promise<BackfillRow[]> {
  let q = db
    .selectFrom('backfill')
    .selectAll()
    .orderBy('id', 'desc')
    .limit(filter.limit ?? 50);
  if (filter.workflowName !== undefined) q = q.where('workflow_name', '=', filter.workflowName);
  if (filter.states?.length) q = q.where('state', 'in', filter.states);
  return withProgress(db, await q.execute());
}

export async function backfillTimes(db: Kysely<Database>, id: number): Promise<number[]> {
  const row = await db.selectFrom('backfill').select('times_json').where('id', '=', id).executeTakeFirst();
  return row ? (JSON.parse(row.times_json) as number[]) : [];
}

export async function backfillRuns(db: Kysely<Database>, id: number): Promise<RunRecord[]> {
  const rows = await db
    .selectFrom('workflow_run')
    .innerJoin('workflow', 'workflow.id', 'workflow_run.workflow_id')
    .selectAll('workflow_run')
    .select('workflow.name as workflow_name')
    .where('workflow_run.backfill_id', '=', id)
    .orderBy('workflow_run.logical_time')
    .execute();
  return rows.map(runFromRow);
}

export async function runLogicalTimes(
  db: Kysely<Database>,
  workflowId: number,
  from: number,
  to: number,
): Promise<number[]> {
  const rows = await db
    .selectFrom('workflow_run')
    .select('logical_time')
    .distinct()
    .where('workflow_id', '=', workflowId)
    .where('logical_time', '>=', from)
    .where('logical_time', '<=', to)
    .execute();
  return rows.map((r) => num(r.logical_time));
}
