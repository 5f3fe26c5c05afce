// A database as an AX before migration 0026 (log chunks) left it: execution_log with a row per
// line, and no execution_log_chunk. Made from a migrated store by taking the migration back out;
// reopening the store runs it again, over the rows the test wrote the old way.
import { type Kysely, sql } from 'kysely';
import type { LogLine } from '../../engine/api/types.ts';
import { autoId, type SqlDialectName, tableEnd, types } from '../../engine/adapters/sql/migration-sql.ts';

export async function asBeforeLogChunks<DB>(store: Kysely<DB>, dialect: SqlDialectName): Promise<void> {
  const db = store as unknown as Kysely<unknown>;
  const t = types(dialect);
  await sql`DROP TABLE execution_log_chunk`.execute(db);
  await db.schema
    .createTable('execution_log')
    .addColumn('id', 'integer', autoId(dialect))
    .addColumn('instance_id', 'integer', (c) => c.notNull())
    .addColumn('seq', 'integer', (c) => c.notNull())
    .addColumn('stream', t.name, (c) => c.notNull())
    .addColumn('ts', t.big, (c) => c.notNull())
    .addColumn('line', t.longText, (c) => c.notNull())
    .modifyEnd(tableEnd(dialect))
    .execute();
  await db.schema.createIndex('execution_log_instance').on('execution_log').columns(['instance_id', 'seq']).execute();
  await db.schema.createIndex('execution_log_ts').on('execution_log').columns(['ts']).execute();
  await sql`DELETE FROM kysely_migration WHERE name = '0026_log_chunks'`.execute(db);
}

/** Lines written the old way: a row each, in the order given. */
export async function insertOldRows<DB>(store: Kysely<DB>, lines: LogLine[]): Promise<void> {
  const db = store as unknown as Kysely<unknown>;
  for (let i = 0; i < lines.length; i += 500) {
    const part = lines.slice(i, i + 500).map((l) => ({
      instance_id: l.instanceId,
      seq: l.seq,
      stream: l.stream,
      ts: l.ts,
      line: l.line,
    }));
    await (db as Kysely<{ execution_log: (typeof part)[number] }>).insertInto('execution_log').values(part).execute();
  }
}
