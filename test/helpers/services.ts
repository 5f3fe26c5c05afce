// The machine's MariaDB and Redis for team-mode tests. Each test file gets its own database or
// key prefix, so files run in parallel. Without a service the tests skip with a reason — except
// under CI=true, where a missing service is a failure.
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';

export const MYSQL_ADMIN_URL = process.env.AX_TEST_MYSQL_URL ?? 'mysql://root@127.0.0.1:3306/test';
export const REDIS_URL = process.env.AX_TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

const adminConfig = () => {
  const u = new URL(MYSQL_ADMIN_URL);
  return { host: u.hostname, port: Number(u.port || 3306), user: decodeURIComponent(u.username || 'root'), password: decodeURIComponent(u.password) };
};

export async function mysqlAvailable(): Promise<boolean> {
  try {
    const c = await mysql.createConnection({ ...adminConfig(), connectTimeout: 2_000 });
    await c.end();
    return true;
  } catch (err) {
    if (process.env.CI === 'true') throw new Error(`CI=true and MariaDB/MySQL is not reachable at ${MYSQL_ADMIN_URL}: ${String(err)}`);
    return false;
  }
}

export const uniqueName = (prefix: string) => `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;

/** Creates an empty database; returns its URL and a function that drops it. */
export async function createTestDatabase(prefix = 'ax_test'): Promise<{ url: string; name: string; drop(): Promise<void> }> {
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
