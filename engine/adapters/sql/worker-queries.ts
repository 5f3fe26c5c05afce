// Workers' rows and the claim that ties a worker id to one process (a compare-and-set on the
// claim seen, so of two nodes taking over one stale id, one wins).
import type { Kysely } from 'kysely';
import type { WorkerRecord } from '../../api/types.ts';
import type { WorkerRegistration } from '../../ports/store.ts';
import { workerFromRow, workerToRow } from './rows.ts';
import { mayCollide } from './inserts.ts';
import { isUniqueViolation } from './run-queries.ts';
import type { Database } from './schema.ts';

export async function upsertWorker(db: Kysely<Database>, worker: WorkerRecord): Promise<void> {
  const row = workerToRow(worker);
  const { id: _id, ...rest } = row;
  const updated = await db.updateTable('worker').set(rest).where('id', '=', worker.id).executeTakeFirst();
  if (Number(updated.numUpdatedRows) === 0) {
    try {
      await mayCollide(db, () => db.insertInto('worker').values(row).execute());
    } catch (err) {
      if (!isUniqueViolation(err)) throw err;
      await db.updateTable('worker').set(rest).where('id', '=', worker.id).execute();
    }
  }
}

export async function listWorkers(db: Kysely<Database>): Promise<WorkerRecord[]> {
  return (await db.selectFrom('worker').selectAll().orderBy('id').execute()).map(workerFromRow);
}

export async function getWorker(db: Kysely<Database>, id: string): Promise<WorkerRegistration | undefined> {
  const row = await db.selectFrom('worker').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? { ...workerFromRow(row), claim: row.claim ?? undefined } : undefined;
}

export async function claimWorker(
  db: Kysely<Database>,
  worker: WorkerRecord,
  claim: string,
  previous: string | null | undefined,
): Promise<boolean> {
  const row = { ...workerToRow(worker), claim };
  if (previous === undefined) {
    try {
      await mayCollide(db, () => db.insertInto('worker').values(row).execute());
      return true;
    } catch (err) {
      if (isUniqueViolation(err)) return false;
      throw err;
    }
  }
  const { id: _id, ...rest } = row;
  const res = await db
    .updateTable('worker')
    .set(rest)
    .where('id', '=', worker.id)
    .where((eb) => (previous === null ? eb('claim', 'is', null) : eb('claim', '=', previous)))
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

export async function beatWorker(db: Kysely<Database>, worker: WorkerRecord, claim: string): Promise<boolean> {
  const { id: _id, ...rest } = workerToRow(worker);
  const res = await db
    .updateTable('worker')
    .set(rest)
    .where('id', '=', worker.id)
    .where('claim', '=', claim)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) > 0) return true;
  // No row at all (removed by hand, a fresh database): the id is free, so it is ours again.
  return (await getWorker(db, worker.id)) === undefined && claimWorker(db, worker, claim, undefined);
}
