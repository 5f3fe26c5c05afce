// Private MariaDB and Redis servers, for tests that take the service away from running engines:
// flushed, killed with -9 and started again on the same port (and, for MariaDB, the same data).
// Nothing here touches the shared 3306/6379 servers (their settings are in services.ts).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import { redisAvailable } from './services.ts';
import { waitFor } from './wait-for.ts';

const runs = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
export const hasRedisServer = runs('redis-server', ['--version']);
const MARIADBD = ['/usr/sbin/mariadbd', '/usr/sbin/mysqld', '/usr/bin/mariadbd', '/usr/bin/mysqld'].find((p) =>
  fs.existsSync(p),
);
// Looked up, not run: mariadb-install-db has no harmless --version (it would install into the default data dir).
const INSTALL_DB = ['mariadb-install-db', 'mysql_install_db'].find((c) => runs('sh', ['-c', `command -v ${c}`]));
/** A private MariaDB can be made here (off CI a test without one skips; on CI it fails). */
export const hasMariadbServer = MARIADBD !== undefined && INSTALL_DB !== undefined;

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function killChild(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (!child || child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}

/**
 * A redis-server of the test's own, so it can be flushed, killed and restarted: no persistence,
 * or with `durable` an append-only file fsynced on every write (as durable as a database commit;
 * bench peer-team's fair BullMQ), in a directory of its own that remove() deletes.
 */
export class PrivateRedis {
  private child: ChildProcess | undefined;
  private constructor(
    readonly port: number,
    private readonly durableDir?: string,
  ) {}

  static async start(options: { durable?: boolean } = {}): Promise<PrivateRedis> {
    const dir = options.durable ? fs.mkdtempSync(path.join(os.tmpdir(), 'ax-private-redis-')) : undefined;
    const r = new PrivateRedis(await freePort(), dir);
    await r.start();
    return r;
  }

  /** kill -9, and its directory (a durable one's append-only file) deleted. */
  async remove(): Promise<void> {
    await this.kill();
    if (this.durableDir) fs.rmSync(this.durableDir, { recursive: true, force: true });
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** the running server's process id (undefined when stopped) */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** Starts (again) on the same port. */
  async start(): Promise<void> {
    const args = [
      '--port',
      String(this.port),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      ...(this.durableDir ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']),
      '--daemonize',
      'no',
      '--dir',
      this.durableDir ?? os.tmpdir(),
    ];
    const child = spawn('redis-server', args, { stdio: 'ignore' });
    let failed: Error | undefined;
    child.on('error', (err) => (failed = err)); // not installed: a failure under CI, stated clearly
    this.child = child;
    await waitFor(
      () => {
        if (failed) throw failed;
        return child.exitCode === null && redisAvailable(this.url);
      },
      { timeoutMs: 20_000, intervalMs: 50, message: `redis-server on port ${this.port} to answer` },
    );
  }

  /** kill -9: everything in it is gone. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    await killChild(child);
  }

  async flushAll(): Promise<void> {
    const admin = new Redis(this.url, { maxRetriesPerRequest: 1 });
    try {
      await admin.flushall();
    } finally {
      admin.disconnect();
    }
  }

  /** Reads one key (e.g. the leader lease); undefined when absent. */
  async get(key: string): Promise<string | undefined> {
    const r = new Redis(this.url, { maxRetriesPerRequest: 1 });
    try {
      return (await r.get(key)) ?? undefined;
    } finally {
      r.disconnect();
    }
  }
}

/**
 * A mariadbd of the test's own: a fresh data dir (mariadb-install-db), bound to 127.0.0.1 on a
 * free port, no grant checks (nobody else can reach it), stopped with kill -9 and started again
 * on the same port and data (InnoDB crash recovery), so a test can take the database away from
 * running engines.
 */
export class PrivateMariaDb {
  private child: ChildProcess | undefined;
  private constructor(
    readonly dir: string,
    readonly port: number,
  ) {}

  static async create(root: string): Promise<PrivateMariaDb> {
    if (!MARIADBD || !INSTALL_DB) throw new Error('no mariadbd / mariadb-install-db on this machine');
    const dir = path.join(root, 'mariadb');
    fs.mkdirSync(dir, { recursive: true });
    const asRoot = process.getuid?.() === 0 ? ['--user=root'] : [];
    const install = spawnSync(
      INSTALL_DB,
      [
        '--no-defaults',
        `--datadir=${path.join(dir, 'data')}`,
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
        '--innodb-log-file-size=8M',
        ...asRoot,
      ],
      { encoding: 'utf8', timeout: 120_000 },
    );
    if (install.status !== 0)
      throw new Error(`${INSTALL_DB} failed (${install.status}): ${install.stderr}\n${install.stdout}`);
    const db = new PrivateMariaDb(dir, await freePort());
    await db.start();
    return db;
  }

  /** mysql://… for a database on this server */
  url(database: string): string {
    return `mysql://root@127.0.0.1:${this.port}/${database}`;
  }

  private get connection() {
    return { host: '127.0.0.1', port: this.port, user: 'root', password: '', connectTimeout: 2_000 };
  }

  /** Starts (again) on the same port and data dir; resolves once it accepts connections. */
  async start(): Promise<void> {
    const dir = this.dir;
    const args = [
      '--no-defaults',
      `--datadir=${path.join(dir, 'data')}`,
      `--port=${this.port}`,
      '--bind-address=127.0.0.1',
      `--socket=${path.join(dir, 'sock')}`,
      `--pid-file=${path.join(dir, 'pid')}`,
      `--log-error=${path.join(dir, 'error.log')}`,
      `--tmpdir=${dir}`,
      '--skip-grant-tables',
      '--skip-name-resolve',
      '--skip-log-bin',
      '--innodb-buffer-pool-size=32M',
      '--innodb-log-file-size=8M',
      '--max-connections=300',
      ...(process.getuid?.() === 0 ? ['--user=root'] : []),
    ];
    const child = spawn(MARIADBD as string, args, { stdio: 'ignore' });
    let failed: Error | undefined;
    child.on('error', (err) => (failed = err));
    this.child = child;
    await waitFor(
      async () => {
        if (failed) throw failed;
        if (child.exitCode !== null) throw new Error(`mariadbd exited ${child.exitCode}: ${this.errorLog()}`);
        const c = await mysql.createConnection(this.connection);
        await c.end();
        return true;
      },
      {
        timeoutMs: 60_000,
        intervalMs: 100,
        message: `the private mariadbd on port ${this.port} to accept connections`,
      },
    );
  }

  /** kill -9 (a crash: whatever was committed survives, connections drop). */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    await killChild(child);
  }

  async createDatabase(name: string): Promise<string> {
    const c = await mysql.createConnection(this.connection);
    try {
      await c.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`);
    } finally {
      await c.end();
    }
    return this.url(name);
  }

  errorLog(): string {
    try {
      return fs.readFileSync(path.join(this.dir, 'error.log'), 'utf8').split('\n').slice(-15).join('\n');
    } catch {
      return '(no error log)';
    }
  }

  /** Stops it and deletes its files. */
  async destroy(): Promise<void> {
    await this.kill();
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
