// Copies every row of one SQL store into another of the same schema, keeping ids (so history,
// logs and instance ids read the same afterwards). Used by `ax migrate --to team`: solo SQLite
// into an empty team MySQL.
import type { Kysely } from 'kysely';
import { AxError } from '../../api/errors.ts';
import { chunks } from './rows.ts';
import type { Database } from './schema.ts';

/** Parents before children, so a partial copy never holds an orphan. */
const TABLES = [
  'workflow',
  'task_definition',
  'task_dependency',
  'schedule_plan',
  'workflow_run',
  'task_instance',
  'execution_log',
  'worker',
  'audit_log',
  'engine_flag',
  'alert',
  'alert_delivery',
] as const;
type Table = (typeof TABLES)[number];

const ORDER: Record<Table, string> = {
  workflow: 'id',
  task_definition: 'id',
  task_dependency: 'upstream_task_id',
  schedule_plan: 'id',
  workflow_run: 'id',
  task_instance: 'id',
  execution_log: 'id',
  worker: 'id',
  audit_log: 'id',
  engine_flag: 'name',
  alert: 'id',
  alert_delivery: 'alert_id',
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
  for (const table of TABLES) {
    let copied = 0;
    // Paging by offset is fine here: the source is idle (no engine holds the data dir).
    for (let offset = 0; ; offset += 2_000) {
      const rows = (await source
        .selectFrom(table)
        .selectAll()
        .orderBy(ORDER[table] as never)
        .limit(2_000)
        .offset(offset)
        .execute()) as Record<string, unknown>[];
      if (rows.length === 0) break;
      await target.transaction().execute(async (trx) => {
        for (const part of chunks(rows, 200))
          await trx
            .insertInto(table)
            .values(part as never)
            .execute();
      });
      copied += rows.length;
    }
    counts[table] = copied;
    onTable(table, copied);
  }
  return counts;
}
