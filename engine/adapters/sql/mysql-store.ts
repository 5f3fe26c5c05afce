// MySQL / MariaDB opener for team mode: the same SqlStore over Kysely's MySQL dialect (mysql2
// pool). Connection problems are reported naming what failed: host, credentials or database.
import { Kysely, MysqlDialect } from 'kysely';
import { createPool, type PoolOptions } from 'mysql2';
import { AxError } from '../../api/errors.ts';
import { migrate } from './migrations.ts';
import type { Database as Schema } from './schema.ts';
import { SqlStore } from './sql-store.ts';

export interface MysqlOptions {
  /** mysql://user:password@host:port/database?ssl=... */
  url: string;
  /** TLS options passed through to mysql2 (ca, cert, key, rejectUnauthorized) */
  ssl?: PoolOptions['ssl'];
  connectionLimit?: number;
}

export function parseMysqlUrl(url: string): PoolOptions {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new AxError('validation', `bad MySQL connection string "${redact(url)}": write mysql://USER:PASSWORD@HOST:PORT/DATABASE`);
  }
  if (u.protocol !== 'mysql:' && u.protocol !== 'mariadb:') {
    throw new AxError('validation', `bad MySQL connection string "${redact(url)}": it must start with mysql://`);
  }
  const database = decodeURIComponent(u.pathname.replace(/^\//, ''));
  if (!database) throw new AxError('validation', `MySQL connection string "${redact(url)}" names no database: add /DATABASE at the end`);
  return {
    host: u.hostname || '127.0.0.1',
    port: u.port ? Number(u.port) : 3306,
    user: decodeURIComponent(u.username || 'root'),
    password: decodeURIComponent(u.password),
    database,
  };
}

/** The connection string without its password, for messages. */
export function redact(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}

function explain(err: unknown, opts: PoolOptions): AxError {
  const e = err as { code?: string; message?: string };
  const where = `${opts.host}:${opts.port}`;
  switch (e.code) {
    case 'ECONNREFUSED':
      return new AxError('unavailable', `cannot reach MySQL at ${where}: connection refused (is the server running, is the port right?)`);
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new AxError('unavailable', `cannot resolve the MySQL host "${opts.host}"`);
    case 'ETIMEDOUT':
      return new AxError('unavailable', `MySQL at ${where} did not answer in time`);
    case 'ER_ACCESS_DENIED_ERROR':
      return new AxError('unavailable', `MySQL at ${where} refused user "${opts.user}": wrong user or password`);
    case 'ER_BAD_DB_ERROR':
      return new AxError('unavailable', `MySQL at ${where} has no database "${opts.database}": create it (CREATE DATABASE \`${opts.database}\`) or fix the name`);
    case 'ER_DBACCESS_DENIED_ERROR':
      return new AxError('unavailable', `user "${opts.user}" may not use database "${opts.database}" on ${where}`);
    default:
      return new AxError('unavailable', `MySQL at ${where}: ${e.message ?? String(err)}`);
  }
}

export async function openMysqlStore(options: MysqlOptions): Promise<SqlStore> {
  const config: PoolOptions = {
    ...parseMysqlUrl(options.url),
    ssl: options.ssl,
    connectionLimit: options.connectionLimit ?? 10,
    // Epoch milliseconds fit in a double; keep numbers numbers.
    supportBigNumbers: true,
    bigNumberStrings: false,
    charset: 'utf8mb4',
    connectTimeout: 5_000,
    enableKeepAlive: true,
  };
  const pool = createPool(config);
  // Fail fast with a message naming host, credentials or database, before migrations run.
  try {
    await pool.promise().query('SELECT 1');
  } catch (err) {
    await pool.promise().end().catch(() => undefined);
    throw explain(err, config);
  }
  const db = new Kysely<Schema>({ dialect: new MysqlDialect({ pool }) });
  await migrate(db as Kysely<unknown>, 'mysql');
  return new SqlStore(db);
}
