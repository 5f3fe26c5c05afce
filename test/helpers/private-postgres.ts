// A PostgreSQL 15 cluster of the test's own (initdb into a temp dir, a free port on 127.0.0.1,
// trust authentication), for tests that take the database away from running engines: the
// postmaster is killed with -9 and started again on the same port and data (crash recovery).
// Nothing here touches the shared 5432 server (its settings are in services.ts).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import { freePort, killChild } from './private-servers.ts';
import { waitFor } from './wait-for.ts';

const BIN = process.env.AX_TEST_POSTGRES_BIN ?? '/usr/lib/postgresql/15/bin';
const INITDB = path.join(BIN, 'initdb');
const POSTGRES = path.join(BIN, 'postgres');
/** A private PostgreSQL can be made here (off CI a test without one skips; on CI it fails). */
export const hasPostgresServer = fs.existsSync(INITDB) && fs.existsSync(POSTGRES);
export const NO_POSTGRES_REASON = `no ${INITDB} / ${POSTGRES} (set AX_TEST_POSTGRES_BIN to PostgreSQL's bin dir)`;

/**
 * initdb and postgres refuse to run as root: as root they run as the `postgres` user (the
 * package's), which then owns the cluster's dir.
 */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' });
  const uid = id('-u');
  const gid = id('-g');
  if (uid.status !== 0 || gid.status !== 0)
    throw new Error('running as root, and there is no "postgres" user to run initdb and postgres as');
  return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
}

export class PrivatePostgres {
  private child: ChildProcess | undefined;
  private output = '';
  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly user: { uid: number; gid: number } | undefined,
  ) {}

  /** initdb into ROOT/postgres (ROOT is made traversable for the server's user) and starts it. */
  static async create(root: string): Promise<PrivatePostgres> {
    if (!hasPostgresServer) throw new Error(NO_POSTGRES_REASON);
    const user = serverUser();
    const dir = path.join(root, 'postgres');
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (user) {
      fs.chmodSync(root, 0o755);
      fs.chownSync(dir, user.uid, user.gid);
    }
    const init = spawnSync(
      INITDB,
      ['-D', path.join(dir, 'data'), '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'],
      { encoding: 'utf8', timeout: 120_000, ...user },
    );
    if (init.status !== 0) throw new Error(`initdb failed (${init.status}): ${init.stderr}\n${init.stdout}`);
    const db = new PrivatePostgres(dir, await freePort(), user);
    await db.start();
    return db;
  }

  /** postgres://… for a database on this server */
  url(database: string): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  private async query(sql: string): Promise<void> {
    const c = new pg.Client({ connectionString: this.url('postgres'), connectionTimeoutMillis: 2_000 });
    c.on('error', () => undefined);
    try {
      await c.connect();
      await c.query(sql);
    } finally {
      await c.end().catch(() => undefined);
    }
  }

  /**
   * Starts (again) on the same port and data dir; resolves once it accepts connections. After a
   * kill -9 the old postmaster's backends may hold its shared memory for a moment, and the new
   * one refuses to start until they are gone: it is started again until it stays up.
   */
  async start(): Promise<void> {
    const args = [
      '-D',
      path.join(this.dir, 'data'),
      '-p',
      String(this.port),
      '-k',
      this.dir,
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'max_connections=300',
      '-c',
      'shared_buffers=32MB',
      // the machine does not crash, the server does: what it wrote is in the OS's cache
      '-c',
      'fsync=off',
    ];
    const launch = () => {
      const child = spawn(POSTGRES, args, { stdio: ['ignore', 'pipe', 'pipe'], ...this.user });
      this.output = '';
      const keep = (b: Buffer) => (this.output = (this.output + b.toString()).slice(-4_000));
      child.stdout?.on('data', keep);
      child.stderr?.on('data', keep);
      this.child = child;
      return child;
    };
    let child = launch();
    let failed: Error | undefined;
    child.on('error', (err) => (failed = err));
    await waitFor(
      async () => {
        if (failed) throw failed;
        if (child.exitCode !== null) {
          if (!/pre-existing shared memory block|lock file .* already exists/.test(this.output))
            throw new Error(`postgres exited ${child.exitCode}: ${this.output}`);
          child = launch();
          child.on('error', (err) => (failed = err));
          return false;
        }
        await this.query('SELECT 1');
        return true;
      },
      {
        timeoutMs: 60_000,
        intervalMs: 200,
        message: `the private postgres on port ${this.port} to accept connections`,
      },
    );
  }

  /** The postmaster's pid (the process kill() ends), while it runs. */
  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** kill -9 of the postmaster (a crash: what was committed survives, its backends end, connections drop). */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    await killChild(child);
  }

  async createDatabase(name: string): Promise<string> {
    await this.query(`CREATE DATABASE "${name}"`);
    return this.url(name);
  }

  /** Stops it (its backends follow the postmaster) and deletes its files. */
  async destroy(): Promise<void> {
    await this.kill();
    await waitFor(() => !this.running(), { timeoutMs: 20_000, intervalMs: 100, message: 'postgres backends to end' });
    fs.rmSync(this.dir, { recursive: true, force: true });
  }

  /** Whether any process of this cluster still runs (its backends outlive a killed postmaster briefly). */
  private running(): boolean {
    const r = spawnSync('pgrep', ['-f', `postgres: .*`], { encoding: 'utf8' });
    if (r.status !== 0) return false;
    return r.stdout
      .split('\n')
      .filter(Boolean)
      .some((pid) => {
        try {
          return fs.readlinkSync(`/proc/${pid}/cwd`).startsWith(path.join(this.dir, 'data'));
        } catch {
          return false;
        }
      });
  }
}
