// The engine process of test/integration/rerun-crash.test.ts: re-runs a task of a run in a
// SQLite file through the RunManager, as `ax rerun` does, and SIGKILLs itself the moment it is
// about to run the statement `kill-at` names (a regular expression of its SQL), so the write
// dies half-way exactly there. Arguments: file, run id, task name, kill-at ('' never kills).
import { nextTurn } from '../../engine/hosts/node/host-defaults.ts';
import { Kysely, SqliteDialect } from 'kysely';
import { MemoryCoordinator } from '../../engine/adapters/memory/memory-coordinator.ts';
import type { Database } from '../../engine/adapters/sql/schema.ts';
import { type SqliteConnection, openSqlite } from '../../engine/adapters/sql/sqlite-driver.ts';
import { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import { systemClock } from '../../engine/adapters/system-clock.ts';
import { RunManager } from '../../engine/core/runs/run-manager.ts';
import { WorkflowCache } from '../../engine/core/workflow/workflow-cache.ts';

const [file, runId, taskName, killAt] = process.argv.slice(2) as [string, string, string, string];
const deadly = killAt ? new RegExp(killAt, 'i') : undefined;

function killing(sqlite: SqliteConnection): SqliteConnection {
  return {
    driver: sqlite.driver,
    exec: (sql) => sqlite.exec(sql),
    close: () => sqlite.close(),
    prepare(sql) {
      const stmt = sqlite.prepare(sql);
      if (!deadly?.test(sql)) return stmt;
      const die = (): never => {
        process.kill(process.pid, 'SIGKILL');
        throw new Error('unreachable: SIGKILL was sent');
      };
      return { reader: stmt.reader, readonly: stmt.readonly, all: die, get: die, run: die, iterate: die };
    },
  };
}

const sqlite = openSqlite(file);
sqlite.exec('PRAGMA journal_mode = WAL');
sqlite.exec('PRAGMA busy_timeout = 10000');
sqlite.exec('PRAGMA foreign_keys = ON');
const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: killing(sqlite) }) });
const store = new SqlStore(db, 'sqlite');
const runs = new RunManager(
  store,
  new MemoryCoordinator(),
  new WorkflowCache(store, Date.now, nextTurn),
  systemClock,
  () => undefined,
);
await runs.rerun(Number(runId), taskName);
await store.close();
process.stdout.write('re-run done\n');
