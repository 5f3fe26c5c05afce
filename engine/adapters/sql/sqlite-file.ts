// The solo store's SQLite file as a thing a person can break: made read-only, overwritten,
// deleted or replaced under a running engine, locked by an sqlite3 shell. Each gets one line
// naming the file and the fix instead of a driver stack trace, and a file that is no longer the
// one the engine opened stops every write: they would go on into a file nobody reads again, and
// its -wal beside a new ax.db could be taken for the new file's.
import fs from 'node:fs';
import path from 'node:path';
import { AxError } from '../../api/errors.ts';

const HEADER = 'SQLite format 3\0';
const companions = (file: string) => [file, `${file}-wal`, `${file}-shm`];

/** Why this process cannot write `target`, or undefined when it can (or it does not exist). */
function notWritable(target: string): NodeJS.ErrnoException | undefined {
  try {
    fs.accessSync(target, fs.constants.W_OK);
    return undefined;
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    return e.code === 'ENOENT' ? undefined : e;
  }
}

/** Whose the file is, when not this user's: chmod would not help then. */
function foreignOwner(target: string): number | undefined {
  if (typeof process.getuid !== 'function') return undefined;
  try {
    const uid = fs.statSync(target).uid;
    return uid === process.getuid() ? undefined : uid;
  } catch {
    return undefined;
  }
}

/**
 * Before SQLite opens the file: SQLite would open a read-only ax.db read-only without a word
 * and create its -wal and -shm with the same mode 0444, so that making ax.db writable later
 * still fails on a -shm nobody thought of. This names every file of the three that needs it.
 */
export function checkWritable(file: string): void {
  const dir = path.dirname(file);
  const dirErr = notWritable(dir);
  if (dirErr?.code === 'EROFS')
    throw new AxError('storage', `the data dir ${dir} is on a read-only file system: use another --data-dir`);
  if (dirErr) throw new AxError('storage', fixFor([dir], `the data dir ${dir} is not writable`));
  const readOnly = companions(file).filter((f) => notWritable(f));
  if (readOnly.length)
    throw new AxError(
      'storage',
      fixFor(readOnly, `${readOnly.join(', ')} ${readOnly.length > 1 ? 'are' : 'is'} read-only`),
    );
}

function fixFor(targets: string[], what: string): string {
  const owner = targets.map(foreignOwner).find((uid) => uid !== undefined);
  if (owner !== undefined)
    return `${what} for this user (it belongs to uid ${owner}): run ax as that user, or chown $(id -un) ${targets.join(' ')}`;
  return `${what}: chmod u+w ${targets.join(' ')}`;
}

/**
 * A driver error the user can cause, as a typed error with the fix; any other error unchanged.
 * Locked is a conflict (it passes when the other program lets go); the rest need a person.
 */
export function describeSqliteError(err: unknown, file: string): unknown {
  const cause = (err as { cause?: unknown } | null)?.cause;
  const code = String((err as { code?: unknown } | null)?.code ?? (cause as { code?: unknown } | null)?.code ?? '');
  if (code.startsWith('SQLITE_BUSY')) {
    return new AxError(
      'conflict',
      `${file} is locked by another program (an sqlite3 shell, a backup?) holding a write transaction: close it, then try again`,
    );
  }
  if (code.startsWith('SQLITE_READONLY')) {
    try {
      checkWritable(file);
    } catch (named) {
      return named;
    }
    return new AxError(
      'storage',
      `${file} cannot be written (${code}): check its permissions and those of ${companions(file).slice(1).join(' and ')}`,
    );
  }
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return new AxError(
      'storage',
      `${file} is not an AX database (not an SQLite file, or damaged): restore it from a backup, or move it away and ax starts a new, empty one`,
    );
  }
  if (code.startsWith('SQLITE_CANTOPEN')) {
    return new AxError(
      'storage',
      `${file} cannot be opened: check that ${path.dirname(file)} is a directory you can write, and that ${file} is a file`,
    );
  }
  return err;
}

export type FileLoss = 'deleted' | 'replaced' | 'overwritten';

export function lostMessage(file: string, how: FileLoss): string {
  const what = {
    deleted: 'was deleted',
    replaced: 'was replaced by another file',
    overwritten: 'was overwritten (it is no SQLite file any more)',
  }[how];
  const restart = {
    deleted: 'starts a new, empty database there (put the file back first to keep its workflows and history)',
    replaced: 'opens the file that is there now',
    overwritten:
      'needs a good file there: restore ax.db from a backup first, or move it away to start a new, empty one',
  }[how];
  return `the database ${file} ${what} while the engine ran: this engine takes no more work and records nothing more; restarting it (ax serve) ${restart}`;
}

/**
 * Watches that the file is still the one opened: its device and inode before every write (one
 * stat) and, on a timer, its header too (a copy over it keeps the inode). Once lost, it stays
 * lost: every later write is refused with the same error, and `onLost` hears of it once.
 */
export class SqliteFileGuard {
  private readonly dev: number;
  private readonly ino: number;
  private lost: AxError | undefined;
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly file: string,
    private readonly onLost: (error: AxError) => void = () => undefined,
    everyMs = 2_000,
  ) {
    const st = fs.statSync(file);
    this.dev = st.dev;
    this.ino = st.ino;
    this.timer = setInterval(() => {
      try {
        this.check(true);
      } catch {
        // reported through onLost
      }
    }, everyMs);
    // A one-shot command must be able to exit with the store open.
    this.timer.unref();
  }

  /** Throws the storage error once the file is gone, replaced or overwritten. */
  check(readHeader = false): void {
    if (this.lost) throw this.lost;
    const how = this.probe(readHeader);
    if (!how) return;
    this.lost = new AxError('storage', lostMessage(this.file, how));
    clearInterval(this.timer);
    const error = this.lost;
    // Not from inside the statement that found it: the host stops the engine, which writes.
    setImmediate(() => this.onLost(error));
    throw error;
  }

  close(): void {
    clearInterval(this.timer);
  }

  private probe(readHeader: boolean): FileLoss | undefined {
    let st: fs.Stats;
    try {
      st = fs.statSync(this.file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // The file or its data dir gone; anything else (a permission changed) is not a loss.
      return code === 'ENOENT' || code === 'ENOTDIR' ? 'deleted' : undefined;
    }
    if (st.dev !== this.dev || st.ino !== this.ino) return 'replaced';
    if (!readHeader) return undefined;
    const head = Buffer.alloc(HEADER.length);
    let read = 0;
    try {
      const fd = fs.openSync(this.file, 'r');
      try {
        read = fs.readSync(fd, head, 0, head.length, 0);
      } finally {
        fs.closeSync(fd);
      }
    } catch {
      return undefined;
    }
    // The header is written when the file is created (before WAL mode starts), never removed.
    return read < HEADER.length || head.toString('latin1') !== HEADER ? 'overwritten' : undefined;
  }
}
