// PostgreSQL opener for team mode: the same SqlStore over Kysely's PostgreSQL dialect (a `pg`
// pool), beside mysql-store.ts. Connection problems are reported naming what failed: host,
// credentials or database.
import { readFileSync } from 'node:fs';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { AxError } from '../../api/errors.ts';
import { decodeUrlPart, parseConnectionUrl } from '../connection-url.ts';
import { migrate } from './migrations.ts';
import { redact } from './mysql-store.ts';
import type { Database as Schema } from './schema.ts';
import { SqlStore } from './sql-store.ts';
import { networkProblem } from './connect-errors.ts';

export interface PostgresOptions {
  /** postgres://user:password@host:port/database?ssl=... */
  url: string;
  connectionLimit?: number;
  /** what a long migration is doing (migrations.ts), e.g. for the start's output */
  onNote?: (message: string) => void;
}

const SHAPE = 'postgres://USER:PASSWORD@HOST:5432/DATABASE';
const TLS_KEYS = ['ssl', 'sslmode', 'ssl-ca', 'ssl-cert', 'ssl-key', 'ssl-reject-unauthorized'];

export function parsePostgresUrl(url: string): pg.PoolConfig {
  const what = 'PostgreSQL connection string';
  const u = parseConnectionUrl(url, what, redact(url), SHAPE);
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') {
    throw new AxError('validation', `bad ${what} "${redact(url)}": it must start with postgres://`);
  }
  const database = decodeUrlPart(u.pathname.replace(/^\//, ''), 'database', what, redact(url));
  if (!database)
    throw new AxError('validation', `${what} "${redact(url)}" names no database: add /DATABASE at the end`);
  return {
    host: u.hostname || '127.0.0.1',
    port: u.port ? Number(u.port) : 5432,
    user: decodeUrlPart(u.username || 'postgres', 'user', what, redact(url)),
    password: decodeUrlPart(u.password, 'password', what, redact(url)),
    database,
    ssl: tlsFromQuery(u.searchParams, url),
  };
}

/**
 * TLS from the URL's query: ?ssl=true or ?sslmode=require (verify against the system CAs), or
 * any of ssl-ca=FILE, ssl-cert=FILE, ssl-key=FILE, ssl-reject-unauthorized=false — the same
 * options as a mysql:// URL, plus libpq's sslmode.
 */
function tlsFromQuery(q: URLSearchParams, url: string): pg.PoolConfig['ssl'] {
  for (const key of q.keys()) {
    if (!TLS_KEYS.includes(key))
      throw new AxError(
        'validation',
        `PostgreSQL connection string "${redact(url)}": unknown option "${key}": use ${TLS_KEYS.join(', ')}`,
      );
  }
  const mode = q.get('sslmode');
  if (mode !== null && !['disable', 'require', 'verify-ca', 'verify-full'].includes(mode))
    throw new AxError(
      'validation',
      `PostgreSQL connection string: sslmode=${mode}: use disable, require, verify-ca or verify-full`,
    );
  if (![...q.keys()].length || q.get('ssl') === 'false' || mode === 'disable') return undefined;
  const file = (key: string) => {
    const path = q.get(key);
    if (!path) return undefined;
    try {
      return readFileSync(path, 'utf8');
    } catch {
      throw new AxError('validation', `PostgreSQL connection string: ${key}=${path}: cannot read that file`);
    }
  };
  return {
    ca: file('ssl-ca'),
    cert: file('ssl-cert'),
    key: file('ssl-key'),
    rejectUnauthorized: q.get('ssl-reject-unauthorized') !== 'false',
  };
}

function explain(err: unknown, opts: pg.PoolConfig): AxError {
  const e = err as { code?: string; message?: string };
  const network = networkProblem(e.code, 'PostgreSQL', opts.host, opts.port);
  if (network) return network;
  const where = `${opts.host}:${opts.port}`;
  switch (e.code) {
    // invalid_password, invalid_authorization_specification (no such role, pg_hba refused it)
    case '28P01':
    case '28000':
      return new AxError(
        'unavailable',
        `PostgreSQL at ${where} refused user "${opts.user}": wrong user or password (${e.message})`,
      );
    // invalid_catalog_name
    case '3D000':
      return new AxError(
        'unavailable',
        `PostgreSQL at ${where} has no database "${opts.database}": create it (CREATE DATABASE "${opts.database}") or fix the name`,
      );
    // insufficient_privilege
    case '42501':
      return new AxError('unavailable', `user "${opts.user}" may not use database "${opts.database}" on ${where}`);
    default:
      return new AxError('unavailable', `PostgreSQL at ${where}: ${e.message ?? String(err)}`);
  }
}

/**
 * Epoch milliseconds are BIGINT and counts are BIGINT or NUMERIC; `pg` gives those as strings
 * (they may not fit a double). The store's numbers all fit, and the other dialects give numbers:
 * read them as numbers.
 */
const NUMERIC_OIDS: number[] = [pg.types.builtins.INT8, pg.types.builtins.NUMERIC];
const types: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    NUMERIC_OIDS.includes(oid)
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format ?? 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

export async function openPostgresStore(options: PostgresOptions): Promise<SqlStore> {
  const config: pg.PoolConfig = {
    ...parsePostgresUrl(options.url),
    max: options.connectionLimit ?? 10,
    connectionTimeoutMillis: 5_000,
    keepAlive: true,
    types,
  };
  const pool = new pg.Pool(config);
  // An idle connection the server dropped (a restart, a fail-over) is an 'error' event on the
  // pool, which would end the process unheard; the pool opens a new one for the next query.
  pool.on('error', () => undefined);
  // A connection checked out of the pool has no such listener (the pool takes its own off while
  // the connection is lent): a server that ends it between two statements (a restart, a
  // fail-over: "terminating connection due to unexpected postmaster exit") emits 'error' on the
  // client, which would end the process. Each client keeps a listener of its own; its next query
  // fails and the pool drops it on release (found by test/team-services/postgres-restart.test.ts).
  pool.on('connect', (client) => client.on('error', () => undefined));
  // Fail fast with a message naming host, credentials or database, before migrations run.
  try {
    await pool.query('SELECT 1');
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw explain(err, config);
  }
  const db = new Kysely<Schema>({ dialect: new PostgresDialect({ pool }) });
  await migrate(db as Kysely<unknown>, 'postgres', 'the team database', options.onNote);
  return new SqlStore(db, 'postgres');
}
