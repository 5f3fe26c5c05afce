// Switches of the whole engine (table engine_flag, migration 0009): a flag is on while its row
// exists. The only one so far is the pause of all scheduling, which every node of a team reads.
import type { Kysely } from 'kysely';
import { type Actor, actorName, actorNote } from '../../api/actor.ts';
import type { SchedulingPause } from '../../api/types.ts';
import { num } from './rows.ts';
import { isUniqueViolation } from './run-queries.ts';
import type { Database } from './schema.ts';

const SCHEDULING_PAUSED = 'scheduling_paused';

export async function getSchedulingPause(db: Kysely<Database>): Promise<SchedulingPause | undefined> {
  const row = await db
    .selectFrom('engine_flag')
    .select(['set_at', 'set_by'])
    .where('name', '=', SCHEDULING_PAUSED)
    .executeTakeFirst();
  return row ? { since: num(row.set_at), by: row.set_by } : undefined;
}

export async function setSchedulingPause(
  db: Kysely<Database>,
  paused: boolean,
  at: number,
  actor: Actor,
): Promise<boolean> {
  try {
    return await db.transaction().execute(async (trx) => {
      if (paused) {
        // The primary key decides between two nodes pausing at once: one row, one audit entry.
        const existing = await trx
          .selectFrom('engine_flag')
          .select('name')
          .where('name', '=', SCHEDULING_PAUSED)
          .executeTakeFirst();
        if (existing) return false;
        await trx
          .insertInto('engine_flag')
          .values({ name: SCHEDULING_PAUSED, set_at: at, set_by: actorName(actor) })
          .execute();
      } else {
        const res = await trx.deleteFrom('engine_flag').where('name', '=', SCHEDULING_PAUSED).executeTakeFirst();
        if (Number(res.numDeletedRows) === 0) return false;
      }
      await trx
        .insertInto('audit_log')
        .values({
          at,
          actor: actorName(actor),
          note: actorNote(actor),
          action: paused ? 'scheduling.pause' : 'scheduling.resume',
          object: 'scheduling',
          detail: paused ? 'no cron fire or event starts a run until resumed' : null,
        })
        .execute();
      return true;
    });
  } catch (err) {
    if (paused && isUniqueViolation(err)) return false;
    throw err;
  }
}
