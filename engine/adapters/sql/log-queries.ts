// Log lines: read by seq, purged by age (appending is log-insert.ts).
import type { Kysely } from 'kysely';
import type { LogLine } from '../../api/types.ts';
import { logFromRow } from './rows.ts';
import type { Database } from './schema.ts';

export async function readLogs(
  db: Kysely<Database>,
  instanceId: number,
  afterSeq: number,
  limit: number,
): Promise<LogLine[]> {
  const rows = await db
    .selectFrom('execution_log')
    .selectAll()
    .where('instance_id', '=', instanceId)
    .where('seq', '>', afterSeq)
    .orderBy('seq')
    .limit(limit)
    .execute();
  return rows.map(logFromRow);
}

export async function purgeLogs(db: Kysely<Database>, before: number): Promise<number> {
  const res = await db.deleteFrom('execution_log').where('ts', '<', before).executeTakeFirst();
  return Number(res.numDeletedRows);
}
