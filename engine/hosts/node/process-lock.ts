// A lock the kernel holds for this process and drops the moment the process dies (kill -9,
// crash, power loss), whatever its pid later becomes: a pid in a file cannot be that (a dead
// engine is a zombie for a moment, and pids are reused after a container restart). Node has no
// flock, so the lock is SQLite's: an open EXCLUSIVE transaction on an (empty) database file,
// which SQLite takes as a POSIX record lock. The file itself is never deleted: a process that
// opened it just before the unlink would lock a file nobody else looks at any more.
import { type SqliteConnection, openSqlite } from '../../adapters/sql/sqlite-driver.ts';
import { AxError } from '../../api/errors.ts';

/** Locks held by this process: referenced here, so a collected handle never drops a lock. */
const held = new Set<ProcessLock>();

export class ProcessLock {
  private constructor(
    readonly file: string,
    private db: SqliteConnection | undefined,
  ) {}

  /**
   * Takes the lock on `file` (created if missing), or returns undefined when another process
   * (or another handle in this one) holds it. `waitMs` rides over someone else's short probe.
   */
  static tryAcquire(file: string, waitMs = 500): ProcessLock | undefined {
    const db = openSqlite(file);
    try {
      db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.round(waitMs))}`);
      db.exec('BEGIN EXCLUSIVE');
    } catch (err) {
      db.close();
      if (isBusy(err)) return undefined;
      throw err;
    }
    const lock = new ProcessLock(file, db);
    held.add(lock);
    return lock;
  }

  /** Whether some live process holds the lock on `file` (false when the file does not exist). */
  static isHeld(file: string): boolean {
    let db: SqliteConnection;
    try {
      db = openSqlite(file, { fileMustExist: true });
    } catch (err) {
      // No SQLite driver in this runtime is no answer: say so instead of "not held".
      if (err instanceof AxError) throw err;
      return false;
    }
    try {
      db.exec('PRAGMA busy_timeout = 0');
      // A shared lock is refused while someone holds the exclusive one; taken, it is let go at once.
      db.exec('BEGIN');
      db.prepare('SELECT count(*) FROM sqlite_master').get();
      db.exec('ROLLBACK');
      return false;
    } catch (err) {
      if (isBusy(err)) return true;
      throw err;
    } finally {
      db.close();
    }
  }

  release(): void {
    const db = this.db;
    this.db = undefined;
    held.delete(this);
    if (!db) return;
    try {
      db.exec('ROLLBACK');
    } finally {
      db.close();
    }
  }
}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: string } | null)?.code ?? '';
  return code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED');
}
