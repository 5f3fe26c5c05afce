// Idempotency of event triggers (design.md §12, table event_key, migration 0010): the first request
// with a key claims it by inserting its row (the primary key decides between two nodes at once),
// then records the runs it started; a repeat within the retention gets those runs back and
// starts nothing. A claim whose request never finished (its engine died) is taken over once stale.
import type { Kysely } from 'kysely';
import type { EventKeyClaim } from '../../ports/store.ts';
import { num } from './rows.ts';
import { mayCollide } from './inserts.ts';
import { isUniqueViolation } from './run-queries.ts';
import type { Database } from './schema.ts';

export async function claimEventKey(
  db: Kysely<Database>,
  event: string,
  key: string,
  now: number,
  retentionMs: number,
  staleMs: number,
): Promise<EventKeyClaim> {
  const row = (q: Kysely<Database>) =>
    q
      .selectFrom('event_key')
      .select(['claimed_at', 'run_ids'])
      .where('event', '=', event)
      .where('idem_key', '=', key)
      .executeTakeFirst();
  // A key past its retention is a new key.
  await db
    .deleteFrom('event_key')
    .where('event', '=', event)
    .where('idem_key', '=', key)
    .where('claimed_at', '<', now - retentionMs)
    .execute();
  try {
    await mayCollide(db, () =>
      db.insertInto('event_key').values({ event, idem_key: key, claimed_at: now, run_ids: null }).execute(),
    );
    return { claimed: true };
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
  }
  const existing = await row(db);
  if (!existing) return claimEventKey(db, event, key, now, retentionMs, staleMs);
  if (existing.run_ids !== null) return { claimed: false, runIds: JSON.parse(existing.run_ids) as number[] };
  const claimedAt = num(existing.claimed_at);
  if (now - claimedAt < staleMs) return { claimed: false, since: claimedAt };
  // Stale: taken over by whoever moves its time first.
  const res = await db
    .updateTable('event_key')
    .set({ claimed_at: now })
    .where('event', '=', event)
    .where('idem_key', '=', key)
    .where('claimed_at', '=', claimedAt)
    .where('run_ids', 'is', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0 ? { claimed: true } : { claimed: false, since: now };
}

export async function settleEventKey(
  db: Kysely<Database>,
  event: string,
  key: string,
  runIds: number[] | undefined,
): Promise<void> {
  // undefined: the request failed and started nothing; the key is free for its retry.
  if (runIds === undefined)
    await db
      .deleteFrom('event_key')
      .where('event', '=', event)
      .where('idem_key', '=', key)
      .where('run_ids', 'is', null)
      .execute();
  else
    await db
      .updateTable('event_key')
      .set({ run_ids: JSON.stringify(runIds) })
      .where('event', '=', event)
      .where('idem_key', '=', key)
      .execute();
}

export async function purgeEventKeys(db: Kysely<Database>, before: number): Promise<number> {
  const res = await db.deleteFrom('event_key').where('claimed_at', '<', before).executeTakeFirst();
  return Number(res.numDeletedRows);
}
