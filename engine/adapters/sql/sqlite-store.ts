// SQLite opener: the solo mode's store, a single file in the data dir (WAL, so the CLI can read
// while the engine writes). The file is guarded (sqlite-file.ts): a file a person broke gets a
// one-line error with the fix, and one deleted or replaced under the engine takes no writes.
import { Kysely, SqliteDialect } from 'kysely';
import type { AxError } from '../../api/errors.ts';
import { migrate } from './migrations.ts';
import { type SqliteConnection, type SqliteStatement, openSqlite } from './sqlite-driver.ts';
import { checkWritable, describeSqliteError, SqliteFileGuard } from './sqlite-file.ts';
import { cacheStatements } from './statement-cache.ts';
import type { Database as Schema } from './schema.ts';
import { SqlStore } from './sql-store.ts';

export interface SqliteStoreOptions {
  /** the file was deleted, replaced or overwritten while open: every write is refused from now on */
  onLost?: (error: AxError) => void;
  /** what a long migration is doing (migrations.ts), e.g. for the start's output */
  onNote?: (message: string) => void;
}

export async function openSqliteStore(file: string, options: SqliteStoreOptions = {}): Promise<SqlStore> {
  checkWritable(file);
  let sqlite: SqliteConnection | undefined;
  let guard: SqliteFileGuard;
  try {
    sqlite = openSqlite(file);
    // Set here, not left to each driver's build: the two differ (cache 16 MB / 2 MB, WAL sync).
    sqlite.exec('PRAGMA journal_mode = WAL');
    // Another process (the CLI, a second command) may hold the write lock for a moment.
    sqlite.exec('PRAGMA busy_timeout = 10000');
    sqlite.exec('PRAGMA synchronous = NORMAL');
    sqlite.exec('PRAGMA foreign_keys = ON');
    sqlite.exec('PRAGMA cache_size = -16000');
    guard = new SqliteFileGuard(file, options.onLost);
  } catch (err) {
    sqlite?.close();
    throw describeSqliteError(err, file);
  }
  const db = new Kysely<Schema>({ dialect: new SqliteDialect({ database: guarded(cacheStatements(sqlite), guard) }) });
  const close = async () => {
    guard.close();
    await db.destroy();
  };
  try {
    await migrate(db as Kysely<unknown>, 'sqlite', file, options.onNote);
  } catch (err) {
    await close();
    throw describeSqliteError(err, file);
  }
  return new SqlStore(db, 'sqlite', close);
}

/**
 * Every statement that writes first checks that the file is still the one opened; every driver
 * error a person can cause comes out as a typed error with the fix. Kysely's driver uses only
 * `reader`, `all`, `run` and `iterate` of a statement.
 */
function guarded(sqlite: SqliteConnection, guard: SqliteFileGuard): SqliteConnection {
  const prepare = sqlite.prepare.bind(sqlite);
  const wrapped = new WeakMap<SqliteStatement, SqliteStatement>();
  const described = <T>(call: () => T): T => {
    try {
      return call();
    } catch (err) {
      throw describeSqliteError(err, guard.file);
    }
  };
  return {
    driver: sqlite.driver,
    exec: (sql) => described(() => sqlite.exec(sql)),
    close: () => sqlite.close(),
    prepare(sql) {
      const stmt = described(() => prepare(sql));
      if (!stmt.readonly) guard.check();
      let w = wrapped.get(stmt);
      if (!w) {
        w = {
          reader: stmt.reader,
          readonly: stmt.readonly,
          all: (params) => described(() => stmt.all(params)),
          get: (params) => described(() => stmt.get(params)),
          run: (params) => described(() => stmt.run(params)),
          iterate: (params) => described(() => stmt.iterate(params)),
        };
        wrapped.set(stmt, w);
      }
      return w;
    },
  };
}
