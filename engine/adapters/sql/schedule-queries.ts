// A workflow's stamp and lookups, and its schedule's bookkeeping (last fire, error): the small
// single-statement reads and writes the scheduler makes every scan.
import type { Kysely } from 'kysely';
import { ENGINE_START_JSON, hasEngineStart } from './rows.ts';
import type { Database } from './schema.ts';

export async function getWorkflowStamp(
  db: Kysely<Database>,
  workflowId: number,
): Promise<{ version: number; enabled: boolean } | undefined> {
  const row = await db
    .selectFrom('workflow')
    .select(['version', 'enabled'])
    .where('id', '=', workflowId)
    .executeTakeFirst();
  return row ? { version: row.version, enabled: row.enabled === 1 } : undefined;
}

export async function findWorkflowId(db: Kysely<Database>, name: string): Promise<number | undefined> {
  return (await db.selectFrom('workflow').select('id').where('name', '=', name).executeTakeFirst())?.id;
}

export async function workflowsForEvent(db: Kysely<Database>, event: string): Promise<number[]> {
  const rows = await db
    .selectFrom('workflow')
    .select('id')
    .where('on_event', '=', event)
    .where('enabled', '=', 1)
    .orderBy('id')
    .execute();
  return rows.map((r) => r.id);
}

export async function workflowsForEngineStart(db: Kysely<Database>): Promise<number[]> {
  const rows = await db
    .selectFrom('workflow')
    .select(['id', 'spec_json'])
    .where('enabled', '=', 1)
    .where('spec_json', 'like', `%${ENGINE_START_JSON}%`)
    .orderBy('id')
    .execute();
  // LIKE ignores case under MySQL's collations: the exact text decides
  return rows.filter((r) => hasEngineStart(r.spec_json)).map((r) => r.id);
}

export async function setScheduleLastFire(db: Kysely<Database>, scheduleId: number, at: number): Promise<void> {
  // Never backwards: two schedulers racing must not re-open fires already dealt with.
  await db
    .updateTable('schedule_plan')
    .set({ last_fire_at: at })
    .where('id', '=', scheduleId)
    .where('last_fire_at', '<', at)
    .execute();
}

/**
 * A schedule's last fire moved from `from` to `to` while it still is `from` (a compare-and-set),
 * back (the clock stepped back) or on (a misfire decision): of two schedulers deciding on the
 * same fires, one moves it and the other is refused.
 */
export async function moveScheduleLastFire(
  db: Kysely<Database>,
  scheduleId: number,
  from: number,
  to: number,
): Promise<boolean> {
  const result = await db
    .updateTable('schedule_plan')
    .set({ last_fire_at: to })
    .where('id', '=', scheduleId)
    .where('last_fire_at', '=', from)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function setScheduleError(db: Kysely<Database>, scheduleId: number, error: string | null): Promise<void> {
  await db.updateTable('schedule_plan').set({ error }).where('id', '=', scheduleId).execute();
}
