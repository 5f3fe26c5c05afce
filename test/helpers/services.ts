// The machine's MariaDB, PostgreSQL and Redis for team-mode tests. Each test file gets its own database or
// key prefix, so files run in parallel. Without a service the tests skip with a reason — except
// under CI=true, where a missing service is a failure.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import pg from 'pg';

/** Under CI=true a missing service or program is a failure, not a reason to skip. */
export const CI = process.env.CI === 'true';

export const MYSQL_ADMIN_URL = process.env.AX_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
export const REDIS_URL = process.env.AX_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const adminConfig = () => {
  const u = new URL(MYSQL_ADMIN_URL);
  return {
    host: u.hostname,
    port: Number(u.port || 3306),
    user: decodeURIComponent(u.username || 'root'),
    password: decodeURIComponent(u.password),
  };
};

export async function mysqlAvailable(): Promise<boolean> {
  try {
    const c = await mysql.createConnection({ ...adminConfig(), connectTimeout: 2_000 });
    await c.end();
    return true;
  } catch (err) {
    if (CI) throw new Error(`CI=true and MariaDB/MySQL is not reachable at ${MYSQL_ADMIN_URL}: ${String(err)}`);
    return false;
  }
}

export async function redisAvailable(url = REDIS_URL): Promise<boolean> {
  // One attempt, no reconnects: this asks "is it there", it does not wait for it.
  const r = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2_000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  // ioredis rejects connect() with "Connection is closed"; the 'error' event has the cause.
  let cause: unknown;
  r.on('error', (err) => (cause = err));
  try {
    await r.connect();
    await r.ping();
    return true;
  } catch (err) {
    if (CI) throw new Error(`CI=true and Redis is not reachable at ${url}: ${String(cause ?? err)}`);
    return false;
  } finally {
    r.disconnect();
  }
}

/**
 * Whether the team database (MariaDB, or PostgreSQL when AX_TEST_TEAM_DATABASE=postgres, as in the
 * vitest project team-postgres) and Redis are there. Under CI=true a missing one throws (a failure,
 * not a skip); elsewhere the caller skips with the reason.
 */
export async function teamServicesAvailable(): Promise<boolean> {
  const database = process.env.AX_TEST_TEAM_DATABASE === 'postgres' ? postgresAvailable : mysqlAvailable;
  const [db, redis] = await Promise.all([database(), redisAvailable()]);
  return db && redis;
}

/** Deletes every key under a test's prefix (SCAN + DEL; never FLUSHALL on a shared Redis). */
export async function deleteRedisPrefix(prefix: string, url = REDIS_URL): Promise<void> {
  const r = new Redis(url, { maxRetriesPerRequest: 0 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`, 'COUNT', 500);
      if (keys.length > 0) await r.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    r.disconnect();
  }
}

export const uniqueName = (prefix: string) => `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;

/** Creates an empty database; returns its URL and a function that drops it. */
export async function createTestDatabase(
  prefix = 'ax_test',
): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = uniqueName(prefix);
  const c = await mysql.createConnection(adminConfig());
  await c.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
  await c.end();
  const a = adminConfig();
  const url = `mysql://${encodeURIComponent(a.user)}${a.password ? `:${encodeURIComponent(a.password)}` : ''}@${a.host}:${a.port}/${name}`;
  return {
    url,
    name,
    async drop() {
      const d = await mysql.createConnection(adminConfig());
      await d.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await d.end();
    },
  };
}

export const POSTGRES_ADMIN_URL = process.env.AX_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** Runs SQL statements on the admin database (CREATE / DROP DATABASE cannot run in a transaction). */
async function postgresAdmin(...statements: string[]): Promise<void> {
  const c = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 2_000 });
  await c.connect();
  try {
    for (const s of statements) await c.query(s);
  } finally {
    await c.end();
  }
}

export async function postgresAvailable(): Promise<boolean> {
  try {
    await postgresAdmin('SELECT 1');
    return true;
  } catch (err) {
    if (CI) throw new Error(`CI=true and PostgreSQL is not reachable at ${POSTGRES_ADMIN_URL}: ${String(err)}`);
    return false;
  }
}

/** Creates an empty PostgreSQL database; returns its URL and a function that drops it. */
export async function createPostgresDatabase(
  prefix = 'ax_t',
): Promise<{ url: string; name: string; drop(): Promise<void> }> {
  const name = uniqueName(prefix);
  await postgresAdmin(`CREATE DATABASE "${name}"`);
  const u = new URL(POSTGRES_ADMIN_URL);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    name,
    // WITH (FORCE): a connection a killed test process left open must not keep the database.
    drop: () => postgresAdmin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  };
}
