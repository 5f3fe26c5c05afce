// end-backfill and reopen-backfill, each one transaction: a compare-and-set of a backfill's state.
// In: the backfill, the states it may be in, what it becomes. Out: true when it was in one of them
// and now is the new state; false, nothing written, else.
// Locks (MySQL): the backfill's row, which start-run.ts also locks before it creates a run of it:
// once a cancel commits, no run of the backfill is created after.
import type { Kysely, Updateable } from 'kysely';
import type { BackfillState } from '../../api/backfill.ts';
import type { SqlDialectName } from './migrations.ts';
import type { BackfillTable, Database } from './schema.ts';
import { exclusive, transact } from './transaction.ts';

function moveBackfill(
  db: Kysely<Database>,
  dialect: SqlDialectName,
  id: number,
  from: readonly BackfillState[],
  set: Updateable<BackfillTable>,
): Promise<boolean> {
  return transact(
    db,
    async (trx) => {
      const row = await exclusive(
        trx.selectFrom('backfill').select('state').where('id', '=', id),
        dialect,
      ).executeTakeFirst();
      if (!row || !(from as readonly string[]).includes(row.state)) return false;
      await trx.updateTable('backfill').set(set).where('id', '=', id).execute();
      return true;
    },
    dialect,
  );
}

/** A RUNNING backfill ends SUCCESS, FAILED or CANCELLED, finished at now. */
export const endBackfill = (
  db: Kysely<Database>,
  dialect: SqlDialectName,
  id: number,
  state: Exclude<BackfillState, 'RUNNING'>,
  now: number,
): Promise<boolean> => moveBackfill(db, dialect, id, ['RUNNING'], { state, finished_at: now });

/**
 * A backfill that ended SUCCESS or FAILED is RUNNING again with rerun_at = now: its FAILED runs
 * that ended before then are due to run again.
 */
export const reopenBackfill = (
  db: Kysely<Database>,
  dialect: SqlDialectName,
  id: number,
  now: number,
): Promise<boolean> =>
  moveBackfill(db, dialect, id, ['SUCCESS', 'FAILED'], { state: 'RUNNING', finished_at: null, rerun_at: now });
