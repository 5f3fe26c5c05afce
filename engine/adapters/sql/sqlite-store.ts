// SQLite opener: the solo mode's store, a single file in the data dir (WAL, so the CLI can read
// while the engine writes).
import Database from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { migrate } from './migrations.ts';
import { cacheStatements } from './statement-cache.ts';
import type { Database as Schema } from './schema.ts';
import { SqlStore } from './sql-store.ts';

export async function openSqliteStore(file: string): Promise<SqlStore> {
  const sqlite = new Database(file);
  sqlite.pragma('journal_mode = WAL');
  // Another process (the CLI, a second command) may hold the write lock for a moment.
  sqlite.pragma('busy_timeout = 10000');
  sqlite.pragma('synchronous = NORMAL');
  const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: cacheStatements(sqlite) }) });
  await migrate(db as Kysely<unknown>, 'sqlite');
  return new SqlStore(db);
}
