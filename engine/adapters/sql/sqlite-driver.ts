// The SQLite driver, chosen once per process: Node's built-in `node:sqlite` wherever the runtime
// has it (Node ≥ 22.13, and so Electron's utility process), `better-sqlite3` only where it does
// not (Node 20). A native addon is built for one runtime's ABI: the better-sqlite3 npm built
// under Node 20 cannot load in Electron's Node, so the desktop app must never need it.
// AX_SQLITE_DRIVER=better-sqlite3 | node:sqlite forces one (the benchmarks compare them).
//
// Both are synchronous and both are wrapped into the one shape the rest needs (Kysely's
// SqliteDatabase plus `exec` and a statement's `readonly`); node:sqlite's errors get
// better-sqlite3's codes (SQLITE_BUSY, SQLITE_CONSTRAINT_UNIQUE, ...), which is what the store
// and the data-dir lock look at.
import fs from 'node:fs';
import { createRequire } from 'node:module';
import { AxError } from '../../api/errors.ts';

export type SqliteDriverName = 'node:sqlite' | 'better-sqlite3';
export const SQLITE_DRIVER_ENV = 'AX_SQLITE_DRIVER';

export interface SqliteRunResult {
  changes: number | bigint;
  lastInsertRowid: number | bigint;
}

/** A prepared statement; parameters are positional, passed as one array (Kysely's way). */
export interface SqliteStatement {
  /** it returns rows */
  readonly reader: boolean;
  /** it cannot change the database */
  readonly readonly: boolean;
  all(parameters?: ReadonlyArray<unknown>): unknown[];
  get(parameters?: ReadonlyArray<unknown>): unknown;
  run(parameters?: ReadonlyArray<unknown>): SqliteRunResult;
  iterate(parameters?: ReadonlyArray<unknown>): IterableIterator<unknown>;
}

export interface SqliteConnection {
  readonly driver: SqliteDriverName;
  prepare(sql: string): SqliteStatement;
  exec(sql: string): void;
  close(): void;
}

export interface SqliteOpenOptions {
  /** refuse to create the file (SQLITE_CANTOPEN when it is missing) */
  fileMustExist?: boolean;
}

export interface SqliteDriverInfo {
  name: SqliteDriverName;
  /** the SQLite library's version, e.g. 3.54.1 */
  sqliteVersion: string;
  /** one line for ax settings and the desktop's Settings, e.g. "node:sqlite (SQLite 3.54.1, built into Node 24.1.0)" */
  description: string;
}

interface Driver {
  name: SqliteDriverName;
  open(file: string, options: SqliteOpenOptions): SqliteConnection;
}

let chosen: Driver | undefined;

/** The driver this process uses (loaded on first call); an `environment` AxError when none can load. */
export function sqliteDriver(): SqliteDriverInfo {
  const driver = loadDriver();
  let sqliteVersion = '?';
  const db = driver.open(':memory:', {});
  try {
    sqliteVersion = String((db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v);
  } finally {
    db.close();
  }
  const where =
    driver.name === 'node:sqlite'
      ? `built into Node ${process.versions.node}`
      : `addon ${betterSqliteVersion()}, Node ${process.versions.node}`;
  return { name: driver.name, sqliteVersion, description: `${driver.name} (SQLite ${sqliteVersion}, ${where})` };
}

export function openSqlite(file: string, options: SqliteOpenOptions = {}): SqliteConnection {
  return loadDriver().open(file, options);
}

function loadDriver(): Driver {
  if (chosen) return chosen;
  const forced = process.env[SQLITE_DRIVER_ENV];
  if (forced !== undefined && forced !== '' && forced !== 'node:sqlite' && forced !== 'better-sqlite3') {
    throw new AxError(
      'environment',
      `${SQLITE_DRIVER_ENV}=${forced}: use node:sqlite or better-sqlite3 (or leave it unset: node:sqlite where this Node has it)`,
    );
  }
  const builtIn = forced === 'better-sqlite3' ? undefined : nodeSqlite();
  if (builtIn) return (chosen = builtIn);
  if (forced === 'node:sqlite') {
    throw new AxError(
      'environment',
      `${SQLITE_DRIVER_ENV}=node:sqlite, but Node ${process.versions.node} has no node:sqlite: use Node 22.13 or later, or unset ${SQLITE_DRIVER_ENV}`,
    );
  }
  return (chosen = betterSqlite(forced === 'better-sqlite3'));
}

// ---- node:sqlite -------------------------------------------------------------------------------

// The little of node:sqlite used here (its types are in @types/node ≥ 22; this project's are 20's).
interface NodeStatement {
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
  run(...params: unknown[]): SqliteRunResult;
  iterate(...params: unknown[]): IterableIterator<unknown>;
  columns?(): unknown[];
}
interface NodeDatabase {
  readonly isOpen: boolean;
  prepare(sql: string): NodeStatement;
  exec(sql: string): void;
  close(): void;
}
interface NodeSqliteModule {
  DatabaseSync: new (file: string) => NodeDatabase;
}

/** node:sqlite, or undefined where this Node has none (Node 20; 22 before 22.13 without its flag). */
function nodeSqlite(): Driver | undefined {
  const getBuiltin = (process as { getBuiltinModule?: (id: string) => unknown }).getBuiltinModule;
  if (typeof getBuiltin !== 'function') return undefined;
  // Node 22 marks node:sqlite experimental and says so on stderr at its first load: noise to a
  // user of ax or the app, who did not choose it. Only that warning is held back.
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === 'string' ? warning : warning.message;
    if (/SQLite is an experimental feature/i.test(text)) return;
    (emit as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  let mod: NodeSqliteModule | undefined;
  try {
    mod = getBuiltin.call(process, 'node:sqlite') as NodeSqliteModule | undefined;
  } catch {
    mod = undefined;
  } finally {
    process.emitWarning = emit;
  }
  if (!mod?.DatabaseSync) return undefined;
  const { DatabaseSync } = mod;
  return {
    name: 'node:sqlite',
    open(file, options) {
      if (options.fileMustExist && file !== ':memory:' && !fs.existsSync(file)) {
        throw Object.assign(new Error(`unable to open database file: ${file} does not exist`), {
          code: 'SQLITE_CANTOPEN',
        });
      }
      const db = withCodes(() => new DatabaseSync(file));
      return new NodeConnection(db);
    },
  };
}

class NodeConnection implements SqliteConnection {
  readonly driver = 'node:sqlite' as const;
  constructor(private readonly db: NodeDatabase) {}
  prepare(sql: string): SqliteStatement {
    return new NodeSqliteStatement(
      withCodes(() => this.db.prepare(sql)),
      sql,
    );
  }
  exec(sql: string): void {
    withCodes(() => this.db.exec(sql));
  }
  close(): void {
    if (this.db.isOpen) this.db.close();
  }
}

const READ_ONLY_SQL = /^\s*(select|explain)\b/i;
const READER_SQL = /^\s*(select|with|pragma|values|explain)\b|\breturning\b/i;

class NodeSqliteStatement implements SqliteStatement {
  readonly reader: boolean;
  readonly readonly: boolean;
  constructor(
    private readonly stmt: NodeStatement,
    sql: string,
  ) {
    // columns() (Node ≥ 22.16) is what SQLite says; before it, the statement's first word.
    this.reader = typeof stmt.columns === 'function' ? stmt.columns().length > 0 : READER_SQL.test(sql);
    this.readonly = READ_ONLY_SQL.test(sql) && !/\breturning\b/i.test(sql);
  }
  all(parameters: ReadonlyArray<unknown> = []): unknown[] {
    return withCodes(() => this.stmt.all(...parameters));
  }
  get(parameters: ReadonlyArray<unknown> = []): unknown {
    return withCodes(() => this.stmt.get(...parameters));
  }
  run(parameters: ReadonlyArray<unknown> = []): SqliteRunResult {
    return withCodes(() => this.stmt.run(...parameters));
  }
  iterate(parameters: ReadonlyArray<unknown> = []): IterableIterator<unknown> {
    const it = withCodes(() => this.stmt.iterate(...parameters)) as IterableIterator<unknown>;
    return {
      next: () => withCodes(() => it.next()),
      return: (value?: unknown) => it.return?.(value) ?? { done: true, value },
      [Symbol.iterator]() {
        return this;
      },
    } as IterableIterator<unknown>;
  }
}

/** SQLite's result codes by number, as better-sqlite3 names them (the ones AX looks at, and their families). */
const PRIMARY: Record<number, string> = {
  1: 'ERROR',
  2: 'INTERNAL',
  3: 'PERM',
  4: 'ABORT',
  5: 'BUSY',
  6: 'LOCKED',
  7: 'NOMEM',
  8: 'READONLY',
  9: 'INTERRUPT',
  10: 'IOERR',
  11: 'CORRUPT',
  12: 'NOTFOUND',
  13: 'FULL',
  14: 'CANTOPEN',
  15: 'PROTOCOL',
  16: 'EMPTY',
  17: 'SCHEMA',
  18: 'TOOBIG',
  19: 'CONSTRAINT',
  20: 'MISMATCH',
  21: 'MISUSE',
  22: 'NOLFS',
  23: 'AUTH',
  24: 'FORMAT',
  25: 'RANGE',
  26: 'NOTADB',
};
const EXTENDED: Record<number, string> = {
  261: 'BUSY_RECOVERY',
  517: 'BUSY_SNAPSHOT',
  773: 'BUSY_TIMEOUT',
  262: 'LOCKED_SHAREDCACHE',
  264: 'READONLY_RECOVERY',
  520: 'READONLY_CANTLOCK',
  776: 'READONLY_ROLLBACK',
  1032: 'READONLY_DBMOVED',
  1288: 'READONLY_CANTINIT',
  1544: 'READONLY_DIRECTORY',
  275: 'CONSTRAINT_CHECK',
  787: 'CONSTRAINT_FOREIGNKEY',
  1299: 'CONSTRAINT_NOTNULL',
  1555: 'CONSTRAINT_PRIMARYKEY',
  2067: 'CONSTRAINT_UNIQUE',
  267: 'CORRUPT_VTAB',
  523: 'CORRUPT_SEQUENCE',
  779: 'CORRUPT_INDEX',
};

export function sqliteCodeName(errcode: number): string {
  const name = EXTENDED[errcode] ?? PRIMARY[errcode & 0xff];
  return name ? `SQLITE_${name}` : `SQLITE_${errcode}`;
}

/** Runs a node:sqlite call; its error comes out with `code` SQLITE_* (the number stays in `errcode`). */
function withCodes<T>(call: () => T): T {
  try {
    return call();
  } catch (err) {
    const e = err as { code?: unknown; errcode?: unknown } | null;
    if (e && typeof e === 'object' && e.code === 'ERR_SQLITE_ERROR' && typeof e.errcode === 'number') {
      try {
        e.code = sqliteCodeName(e.errcode);
      } catch {
        // a frozen error keeps Node's code; describeSqliteError then passes it on unchanged
      }
    }
    throw err;
  }
}

// ---- better-sqlite3 ----------------------------------------------------------------------------

type BetterDatabase = { prepare(sql: string): SqliteStatement; exec(sql: string): void; close(): void; open: boolean };
type BetterConstructor = new (file: string, options?: { fileMustExist?: boolean }) => BetterDatabase;

function betterSqlite(forced: boolean): Driver {
  let Database: BetterConstructor;
  try {
    Database = createRequire(import.meta.url)('better-sqlite3') as BetterConstructor;
    // The addon itself loads at the first open, not at require: try it now, once.
    new Database(':memory:').close();
  } catch (err) {
    throw noDriver(err, forced);
  }
  return {
    name: 'better-sqlite3',
    open(file, options) {
      const db = new Database(file, { fileMustExist: options.fileMustExist === true });
      return {
        driver: 'better-sqlite3',
        // better-sqlite3's statements take Kysely's parameter array as they are.
        prepare: (sql) => db.prepare(sql),
        exec: (sql) => void db.exec(sql),
        close: () => {
          if (db.open) db.close();
        },
      };
    },
  };
}

function betterSqliteVersion(): string {
  try {
    return String((createRequire(import.meta.url)('better-sqlite3/package.json') as { version: string }).version);
  } catch {
    return '?';
  }
}

/** No SQLite here: which runtime this is, what the addon was built for, what to do. */
export function noDriver(err: unknown, forced = false): AxError {
  const message = err instanceof Error ? err.message : String(err);
  const runtime = `Node ${process.versions.node} (module ABI ${process.versions.modules}${process.versions.electron ? `, Electron ${process.versions.electron}` : ''})`;
  const missing =
    (err as { code?: string } | null)?.code === 'MODULE_NOT_FOUND' &&
    /Cannot find module 'better-sqlite3'/.test(message);
  const built = /NODE_MODULE_VERSION (\d+)/.exec(message)?.[1];
  const what = missing
    ? 'better-sqlite3 is not installed'
    : built
      ? `the installed better-sqlite3 was built for module ABI ${built}, not this runtime's`
      : `the installed better-sqlite3 cannot load here (${message.split('\n')[0]})`;
  return new AxError(
    'environment',
    forced
      ? `${SQLITE_DRIVER_ENV}=better-sqlite3, but it cannot load in ${runtime}: ${what}. Unset ${SQLITE_DRIVER_ENV} (this Node has node:sqlite), or run "npm rebuild better-sqlite3" with this Node`
      : `no SQLite driver can load in ${runtime}: this Node has no built-in node:sqlite, and ${what}. ` +
          'Run ax with Node 22.13 or later (node:sqlite is built in), or run "npm rebuild better-sqlite3" with this Node',
  );
}
