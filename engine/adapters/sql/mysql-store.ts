// MySQL / MariaDB opener for team mode: the same SqlStore over Kysely's MySQL dialect (mysql2
// pool). Connection problems are reported naming what failed: host, credentials or database.
import { readFileSync } from 'node:fs';
import { Kysely, MysqlDialect } from 'kysely';
import { createPool, type PoolOptions } from 'mysql2';
import { AxError } from '../../api/errors.ts';
import { decodeUrlPart, parseConnectionUrl } from '../connection-url.ts';
import { migrate } from './migrations.ts';
import type { Database as Schema } from './schema.ts';
import { SqlStore } from './sql-store.ts';
import { networkProblem } from './connect-errors.ts';

export interface MysqlOptions {
  /** mysql://user:password@host:port/database?ssl=... */
  url: string;
  /** TLS options passed through to mysql2 (ca, cert, key, rejectUnauthorized) */
  ssl?: PoolOptions['ssl'];
  connectionLimit?: number;
  /** what a long migration is doing (migrations.ts), e.g. for the start's output */
  onNote?: (message: string) => void;
}

export function parseMysqlUrl(url: string): PoolOptions {
  const what = 'MySQL connection string';
  const u = parseConnectionUrl(url, what, redact(url), 'mysql://USER:PASSWORD@HOST:PORT/DATABASE');
  if (u.protocol !== 'mysql:' && u.protocol !== 'mariadb:') {
    throw new AxError('validation', `bad MySQL connection string "${redact(url)}": it must start with mysql://`);
  }
  const database = decodeUrlPart(u.pathname.replace(/^\//, ''), 'database', what, redact(url));
  if (!database)
    throw new AxError(
      'validation',
      `MySQL connection string "${redact(url)}" names no database: add /DATABASE at the end`,
    );
  return {
    host: u.hostname || '127.0.0.1',
    port: u.port ? Number(u.port) : 3306,
    user: decodeUrlPart(u.username || 'root', 'user', what, redact(url)),
    password: decodeUrlPart(u.password, 'password', what, redact(url)),
    database,
    ssl: tlsFromQuery(u.searchParams, url),
  };
}

/**
 * TLS from the URL's query: ?ssl=true (verify against the system CAs), or any of
 * ssl-ca=FILE, ssl-cert=FILE, ssl-key=FILE, ssl-reject-unauthorized=false.
 */
function tlsFromQuery(q: URLSearchParams, url: string): PoolOptions['ssl'] {
  const known = ['ssl', 'ssl-ca', 'ssl-cert', 'ssl-key', 'ssl-reject-unauthorized'];
  for (const key of q.keys()) {
    if (!known.includes(key))
      throw new AxError(
        'validation',
        `MySQL connection string "${redact(url)}": unknown option "${key}": use ${known.join(', ')}`,
      );
  }
  if (![...q.keys()].length || q.get('ssl') === 'false') return undefined;
  const file = (key: string) => {
    const path = q.get(key);
    if (!path) return undefined;
    try {
      return readFileSync(path, 'utf8');
    } catch {
      throw new AxError('validation', `MySQL connection string: ${key}=${path}: cannot read that file`);
    }
  };
  return {
    ca: file('ssl-ca'),
    cert: file('ssl-cert'),
    key: file('ssl-key'),
    rejectUnauthorized: q.get('ssl-reject-unauthorized') !== 'false',
  };
}

/** The connection string without its password, for messages. */
export function redact(url: string): string {
  return url.replace(/(\/\/[^:/@]+:)[^@]*@/, '$1***@');
}

function explain(err: unknown, opts: PoolOptions): AxError {
  const e = err as { code?: string; message?: string };
  const network = networkProblem(e.code, 'MySQL', opts.host, opts.port);
  if (network) return network;
  const where = `${opts.host}:${opts.port}`;
  switch (e.code) {
    case 'ER_ACCESS_DENIED_ERROR':
      return new AxError('unavailable', `MySQL at ${where} refused user "${opts.user}": wrong user or password`);
    case 'ER_BAD_DB_ERROR':
      return new AxError(
        'unavailable',
        `MySQL at ${where} has no database "${opts.database}": create it (CREATE DATABASE \`${opts.database}\`) or fix the name`,
      );
    case 'ER_DBACCESS_DENIED_ERROR':
      return new AxError('unavailable', `user "${opts.user}" may not use database "${opts.database}" on ${where}`);
    default:
      return new AxError('unavailable', `MySQL at ${where}: ${e.message ?? String(err)}`);
  }
}

export async function openMysqlStore(options: MysqlOptions): Promise<SqlStore> {
  const config: PoolOptions = {
    ...parseMysqlUrl(options.url),
    ...(options.ssl && { ssl: options.ssl }),
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
    await pool
      .promise()
      .end()
      .catch(() => undefined);
    throw explain(err, config);
  }
  const db = new Kysely<Schema>({ dialect: new MysqlDialect({ pool }) });
  await migrate(db as Kysely<unknown>, 'mysql', 'the team database', options.onNote);
  return new SqlStore(db, 'mysql');
}
