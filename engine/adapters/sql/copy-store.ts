// Copies every row of one SQL store into another of the same schema, keeping ids (so history,
// logs and instance ids read the same afterwards). Used by `ax migrate --to team`: solo SQLite
// into an empty team MySQL or PostgreSQL.
import { type Kysely, sql } from 'kysely';
import { AxError } from '../../api/errors.ts';
import { isPostgres } from './inserts.ts';
import { chunks } from './rows.ts';
import type { Database } from './schema.ts';

/**
 * Every table of the schema, parents before children, so a partial copy never holds an orphan.
 * The store contract on MySQL empties them in this order's reverse between tests.
 */
export const STORE_TABLES = [
  'workflow',
  'task_definition',
  'task_dependency',
  'cross_dependency',
  'schedule_plan',
  'backfill',
  'workflow_run',
  'task_instance',
  'upstream_wait',
  'execution_log_chunk',
  'worker',
  'audit_log',
  'engine_flag',
  'event_key',
  'alert',
  'alert_delivery',
  // Accounts (migration 0024) are team-only: a solo database has these tables empty, so
  // `ax migrate --to team` copies no rows of them; the first admin is added on the team.
  'ax_user',
  'ax_session',
  'ax_token',
  'ax_group',
] as const;
type Table = (typeof STORE_TABLES)[number];
// A table added to the schema and not to STORE_TABLES would be left behind by `ax migrate`: a type error here.
const everyTable: Exclude<keyof Database, Table> extends never ? true : never = true;
void everyTable;

/** Columns that order each table's rows uniquely, for paging through it. */
const ORDER: Record<Table, readonly string[]> = {
  workflow: ['id'],
  task_definition: ['id'],
  task_dependency: ['upstream_task_id', 'downstream_task_id'],
  cross_dependency: ['task_id', 'position', 'upstream_workflow', 'upstream_task'],
  schedule_plan: ['id'],
  backfill: ['id'],
  workflow_run: ['id'],
  task_instance: ['id'],
  upstream_wait: ['id'],
  execution_log_chunk: ['id'],
  worker: ['id'],
  audit_log: ['id'],
  engine_flag: ['name'],
  event_key: ['event', 'idem_key'],
  alert: ['id'],
  alert_delivery: ['alert_id', 'channel'],
  ax_user: ['name'],
  ax_session: ['id_hash'],
  ax_token: ['id'],
  ax_group: ['name'],
};

/** Rows per page and per insert: log chunks carry up to a MiB of text each, the other rows little. */
const PAGE: Partial<Record<Table, { page: number; insert: number }>> = {
  execution_log_chunk: { page: 100, insert: 10 },
};

export async function copyStore(
  source: Kysely<Database>,
  target: Kysely<Database>,
  onTable: (table: string, rows: number) => void = () => undefined,
): Promise<Record<string, number>> {
  const existing = await target
    .selectFrom('workflow')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow();
  if (Number(existing.n) > 0) {
    throw new AxError(
      'conflict',
      `the team database already has ${existing.n} workflow(s): migrate into an empty database`,
    );
  }
  const counts: Record<string, number> = {};
  for (const table of STORE_TABLES) {
    let copied = 0;
    const size = PAGE[table] ?? { page: 2_000, insert: 200 };
    // Paging by offset is fine here: the source is idle (no engine holds the data dir).
    for (let offset = 0; ; offset += size.page) {
      let page = source.selectFrom(table).selectAll();
      for (const column of ORDER[table]) page = page.orderBy(column as never);
      const rows = (await page.limit(size.page).offset(offset).execute()) as Record<string, unknown>[];
      if (rows.length === 0) break;
      await target.transaction().execute(async (trx) => {
        for (const part of chunks(rows, size.insert))
          await trx
            .insertInto(table)
            .values(part as never)
            .execute();
      });
      copied += rows.length;
    }
    counts[table] = copied;
    if (isPostgres(target)) await moveIdentityPast(target, table);
    onTable(table, copied);
  }
  return counts;
}

/**
 * PostgreSQL's identity column does not move past ids written explicitly (MySQL's
 * AUTO_INCREMENT does): set it past the copied ones, or the team's first insert would collide.
 */
async function moveIdentityPast(db: Kysely<Database>, table: Table): Promise<void> {
  if (ORDER[table].join() !== 'id') return;
  const { rows } = await sql<{ seq: string | null }>`select pg_get_serial_sequence(${table}, 'id') as seq`.execute(db);
  const seq = rows[0]?.seq;
  if (!seq) return;
  await sql`select setval(${seq}, coalesce((select max(id) from ${sql.table(table)}), 0) + 1, false)`.execute(db);
}
