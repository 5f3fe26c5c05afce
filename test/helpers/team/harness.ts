// Team mode with real processes: one database (a fresh one on the shared MariaDB, or on the
// shared PostgreSQL with `database: 'postgres'`, unless the test brings its own) and one Redis
// key prefix per team, and `ax` (scheduler and worker nodes, CLI
// commands) as child processes on them, started from a bundle of the current sources
// (team-process.ts). Task commands write a trace of what they really did (trace.ts); a store and
// a coordinator opened in the test process look at the team far cheaper than an `ax --json`
// process per look. Every process of a team, tasks and task launchers included, carries
// AXT_DIR=<its dir> in its environment, so that cleanup finds whatever a failed test left.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'kysely';
import { openTeamStore, teamDatabaseKind } from '../../../engine/adapters/sql/team-store.ts';
import type { WorkerRecord } from '../../../engine/api/types.ts';
import type { EngineConfig } from '../../../engine/core/model/config.ts';
import { openTeamEngine } from '../../../engine/hosts/node/team.ts';
import type { AxResult } from '../ax.ts';
import { tempDir } from '../files.ts';
import { createPostgresDatabase, createTestDatabase, deleteRedisPrefix, REDIS_URL, uniqueName } from '../services.ts';
import { waitFor } from '../wait-for.ts';
import { apiPort, workerToken } from './edge.ts';
import { holdGate, type Gate } from './gate.ts';
import { buildBundle, killMarked, type Role, TeamProcess } from './team-process.ts';
import { TASK_LIB, TASK_LIB_FILE, TRACE_FILE } from './trace.ts';
import { TeamView } from './team-view.ts';

/** Short intervals so that every judgement happens within seconds: a worker is lost 3 s after its last heartbeat. */
export const TEAM_CONFIG: Partial<EngineConfig> = {
  workerHeartbeatMs: 1_000,
  taskHeartbeatMs: 2_000,
  killGraceMs: 1_000,
  tickMs: 200,
  redispatchAfterMs: 5_000,
};

/**
 * Per scenario of test/team: they take 10-25 s, but every `ax` start-up costs seconds on a loaded
 * two-core machine; the waits inside have their own, tighter deadlines.
 */
export const TEST_TIMEOUT_MS = 150_000;

/** Why a team file skips (off CI only): no team database (MariaDB; PostgreSQL in the team-postgres run) or Redis. */
export const SKIP_REASON =
  process.env.AX_TEST_TEAM_DATABASE === 'postgres'
    ? 'needs PostgreSQL at 127.0.0.1:5432 and Redis at 127.0.0.1:6379 (AX_TEST_POSTGRES_URL, AX_TEST_REDIS_URL)'
    : 'needs MariaDB at 127.0.0.1:3306 and Redis at 127.0.0.1:6379 (AX_TEST_MYSQL_URL, AX_TEST_REDIS_URL)';

export interface TeamOptions {
  /** engine settings over TEAM_CONFIG */
  config?: Partial<EngineConfig>;
  /** default the shared Redis */
  redisUrl?: string;
  /** redisUrl is a node of a Redis Cluster (the test's coordinator must know; `ax` nodes ask the server) */
  redisCluster?: boolean;
  /** a database the caller made and drops (mysql:// or postgres://); default a fresh one, dropped on close */
  mysqlUrl?: string;
  /**
   * where the fresh database is: the shared MariaDB, or the shared PostgreSQL; default MariaDB,
   * or what AX_TEST_TEAM_DATABASE says (to run any team test file on PostgreSQL)
   */
  database?: 'mysql' | 'postgres';
}

export interface ServeOptions {
  role: Role;
  /** names the process in messages; default the worker id, else the role */
  name?: string;
  /** a scheduler that runs no tasks itself */
  noWork?: boolean;
  workerId?: string;
  labels?: string[];
  temporary?: boolean;
  accept?: string;
  concurrency?: number;
  /** a worker node holding this many simulated worker identities (ax serve --simulate) */
  simulate?: number;
}

/** a database worker (MySQL + Redis credentials) or an edge worker (a server URL and a token) */
export type WorkerKind = 'database' | 'edge';

export interface EdgeServeOptions {
  /** the API port of the node it connects to */
  port: number;
  token: string;
  /** the worker id its token names */
  workerId: string;
  name?: string;
  labels?: string[];
  concurrency?: number;
  accept?: string;
}

export class Team extends TeamView {
  /** A team with its own prefix, and its database migrated here (so no two nodes race to create the schema). */
  static async open(name: string, o: TeamOptions = {}): Promise<Team> {
    const dir = tempDir(`ax-team-${name}-`);
    let bundle: string | undefined;
    let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
    try {
      bundle = await buildBundle();
      const kind = o.database ?? (process.env.AX_TEST_TEAM_DATABASE === 'postgres' ? 'postgres' : 'mysql');
      const create = kind === 'postgres' ? createPostgresDatabase : createTestDatabase;
      if (!o.mysqlUrl) database = await create(`axt_${name.replace(/\W/g, '_')}`);
      const mysqlUrl = o.mysqlUrl ?? (database?.url as string);
      const store = await openTeamStore(mysqlUrl, { connectionLimit: 2 });
      fs.writeFileSync(path.join(dir, TASK_LIB_FILE), TASK_LIB);
      fs.writeFileSync(path.join(dir, TRACE_FILE), '');
      const prefix = `${uniqueName(`axt_${name}`)}:`;
      return new Team(
        dir,
        prefix,
        mysqlUrl,
        o.redisUrl ?? REDIS_URL,
        store,
        { ...TEAM_CONFIG, ...o.config },
        bundle,
        database?.drop.bind(database),
        o.redisCluster === true,
      );
    } catch (err) {
      await database?.drop();
      if (bundle) fs.rmSync(bundle, { force: true });
      fs.rmSync(dir, { recursive: true, force: true });
      throw err;
    }
  }

  /** The environment of every `ax` of this team; AXT_DIR also marks its processes and their tasks. */
  env(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
    const env: NodeJS.ProcessEnv = {};
    // Nothing of the test runner's AX_* settings leaks in; times print in UTC.
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AX_') && !k.startsWith('AXT_')) env[k] = v;
    return {
      ...env,
      TZ: 'UTC',
      NO_COLOR: '1',
      FORCE_COLOR: '0',
      AX_MODE: 'team',
      ...this.databaseEnv(),
      AX_REDIS_URL: this.redisUrl,
      AX_REDIS_PREFIX: this.prefix,
      AX_ENGINE_CONFIG: JSON.stringify(this.config),
      AX_DATA_DIR: this.dataDir,
      AXT_DIR: this.dir,
      ...extra,
    };
  }

  /** The team database's variable: AX_MYSQL_URL, or AX_POSTGRES_URL on PostgreSQL. */
  databaseEnv(): Record<string, string> {
    return { [teamDatabaseKind(this.mysqlUrl) === 'postgres' ? 'AX_POSTGRES_URL' : 'AX_MYSQL_URL']: this.mysqlUrl };
  }

  /** Starts `ax ARGS` in the background. */
  spawn(
    name: string,
    args: string[],
    extraEnv: Record<string, string> = {},
    node?: { role: Role; workerId?: string },
  ): TeamProcess {
    const p = new TeamProcess(name, args, this.bundle, this.env(extraEnv), this.dir, node?.role, node?.workerId);
    this.processes.push(p);
    return p;
  }

  async ax(args: string[], timeoutMs = 120_000): Promise<AxResult> {
    return this.spawn(`ax ${args[0] ?? ''}`, args).result(timeoutMs);
  }

  /** Runs `ax ARGS` with `input` on its stdin (a secret's value, a password), to its end. */
  axWithInput(args: string[], input: string): { code: number | null; stdout: string; stderr: string } {
    const r = spawnSync(process.execPath, [this.bundle, ...args], {
      cwd: this.dir,
      env: this.env(),
      input,
      encoding: 'utf8',
      timeout: 120_000,
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr };
  }

  /** Runs `ax --json ARGS`, expects exit 0, and parses stdout. */
  async axJson<T>(args: string[]): Promise<T> {
    const r = await this.ax(['--json', ...args]);
    if (r.code !== 0) throw new Error(`ax --json ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return JSON.parse(r.stdout) as T;
  }

  /** Starts `ax serve` and waits until its engine runs (a worker is registered by then). */
  async serve(o: ServeOptions): Promise<TeamProcess> {
    const args = ['serve', '--role', o.role];
    if (o.noWork) args.push('--no-work');
    if (o.workerId) args.push('--worker-id', o.workerId);
    if (o.labels) args.push('--labels', o.labels.join(','));
    if (o.temporary) args.push('--temporary');
    if (o.accept) args.push('--accept', o.accept);
    if (o.concurrency) args.push('--concurrency', String(o.concurrency));
    if (o.simulate) args.push('--simulate', String(o.simulate));
    const name = o.name ?? o.workerId ?? o.role;
    const p = this.spawn(name, args, { AXT_WORKER: o.workerId ?? name }, { role: o.role, workerId: o.workerId });
    try {
      await p.waitForLine(/^ax serve: team /, 90_000);
    } catch (err) {
      // A start that hangs: what the database was doing then is the first thing to know.
      throw new Error(
        `${(err as Error).message}\n--- the database's sessions then:\n${await this.databaseSessions()}\n${await p.diagnose()}`,
        { cause: err },
      );
    }
    return p;
  }

  /** The team database's sessions that are not idle, and what they wait on (for a start that hangs). */
  async databaseSessions(): Promise<string> {
    try {
      const postgres = teamDatabaseKind(this.mysqlUrl) === 'postgres';
      const { rows } = await (
        postgres
          ? sql`select pid, state, wait_event_type, wait_event, now() - query_start as for, query from pg_stat_activity where state <> 'idle' and datname = current_database()`
          : // every database's: a server-wide lock (GET_LOCK) held for another test's database shows here
            sql`select id, db, command, time, state, left(info, 200) as info from information_schema.processlist where command not in ('Sleep', 'Daemon') limit 50`
      ).execute(this.store.db);
      return rows.map((r) => JSON.stringify(r)).join('\n') || '(none busy)';
    } catch (err) {
      return `(could not ask: ${(err as Error).message})`;
    }
  }

  /**
   * Starts an edge worker (`ax serve --role worker --server URL`, token in AX_TOKEN) on a data dir
   * of its own, with an environment that holds no MySQL or Redis setting at all, and waits until
   * it has joined through the server.
   */
  async serveEdge(o: EdgeServeOptions): Promise<TeamProcess> {
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(this.env())) if (!/^AX_(MYSQL|POSTGRES|REDIS|MODE)/.test(k)) env[k] = v;
    const name = o.name ?? o.workerId;
    const args = ['serve', '--role', 'worker', '--server', `http://127.0.0.1:${o.port}`, '--drain-timeout', '5'];
    if (o.labels) args.push('--labels', o.labels.join(','));
    if (o.concurrency) args.push('--concurrency', String(o.concurrency));
    if (o.accept) args.push('--accept', o.accept);
    const dataDir = path.join(this.dir, `edge-${name}`);
    const p = new TeamProcess(
      name,
      args,
      this.bundle,
      { ...env, AX_DATA_DIR: dataDir, AX_TOKEN: o.token, AXT_WORKER: name },
      this.dir,
      'worker',
      o.workerId,
    );
    this.processes.push(p);
    await p.waitForLine(/^ax serve: team edge worker/, 90_000);
    return p;
  }

  /** Several nodes started at the same time (each waits for its own start line). */
  serveAll(list: ServeOptions[]): Promise<TeamProcess[]> {
    return Promise.all(list.map((o) => this.serve(o)));
  }

  /**
   * A scheduler that runs no tasks, and workers with the given ids, started in parallel: database
   * workers, or edge workers (a URL and a worker token each, connected to the scheduler's
   * /worker, taking unlabelled tasks as database workers do) for the fault tests run on both kinds.
   */
  async cluster(
    workerIds: string[],
    kind: WorkerKind = 'database',
  ): Promise<{ scheduler: TeamProcess; workers: Map<string, TeamProcess> }> {
    if (kind === 'edge') {
      const scheduler = await this.serve({ role: 'scheduler', name: 'scheduler', noWork: true });
      const port = await apiPort(scheduler);
      const tokens = await Promise.all(workerIds.map((id) => workerToken(this, id, [])));
      const edges = await Promise.all(
        workerIds.map((id, i) =>
          this.serveEdge({ port, token: tokens[i] as string, workerId: id, accept: 'unlabelled' }),
        ),
      );
      await this.waitWorkersOnline(workerIds);
      return { scheduler, workers: new Map(workerIds.map((id, i) => [id, edges[i] as TeamProcess])) };
    }
    const [scheduler, ...workers] = await this.serveAll([
      { role: 'scheduler', name: 'scheduler', noWork: true },
      ...workerIds.map((id) => ({ role: 'worker' as const, workerId: id })),
    ]);
    await this.waitWorkersOnline(workerIds);
    return {
      scheduler: scheduler as TeamProcess,
      workers: new Map(workerIds.map((id, i) => [id, workers[i] as TeamProcess])),
    };
  }

  /** Waits until the dispatcher can see every one of these workers online. */
  async waitWorkersOnline(ids: string[], timeoutMs = 20_000): Promise<WorkerRecord[]> {
    return this.waitFor(
      async () => {
        const live = await this.coordinator().listWorkers();
        return ids.every((id) => live.some((w) => w.id === id && w.status === 'online')) ? live : undefined;
      },
      { timeoutMs, intervalMs: 100, message: `workers ${ids.join(', ')} to all register` },
    );
  }

  /** Writes a workflow file into the team's dir (YAML, or JSON, which `ax` reads alike); returns its path. */
  writeWorkflow(file: string, text: string): string {
    const p = path.join(this.dir, file);
    fs.writeFileSync(p, text);
    return p;
  }

  /** Writes a workflow spec as JSON and applies it with `ax apply`. */
  async apply(spec: object, file = 'workflow.json'): Promise<void> {
    const r = await this.ax(['apply', this.writeWorkflow(file, JSON.stringify(spec, null, 2))]);
    if (r.code !== 0) throw new Error(`ax apply exited ${r.code}: ${r.stderr}`);
  }

  /** `ax run FILE|NAME` (a file is applied first); returns the run id. */
  async startRun(target: string): Promise<number> {
    const r = await this.ax(['run', target]);
    const m = /^started run #(\d+) of /m.exec(r.stdout);
    if (r.code !== 0 || !m) throw new Error(`ax run ${target} exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
    return Number(m[1]);
  }

  /**
   * Starts a run as `ax run` does (a client engine on the team's MySQL and Redis), but in this
   * process: for tests that start runs while the machine is loaded, where an `ax` start-up costs
   * seconds. Returns its id.
   */
  async startRunInProcess(workflow: string): Promise<number> {
    this.clientEngine ??= openTeamEngine({
      mysqlUrl: this.mysqlUrl,
      redisUrl: this.redisUrl,
      redisPrefix: this.prefix,
      redisCluster: this.redisCluster,
      role: 'client',
    });
    return (await (await this.clientEngine).runWorkflow(workflow, { actor: 'team test' })).id;
  }

  /** A gate that tasks wait at (its `wait` command) until the test opens it; see gate.ts. */
  async gate(name: string): Promise<Gate> {
    const gate = await holdGate(this.dir, name, this.env());
    this.gates.push(gate);
    return gate;
  }

  /**
   * SIGKILLs every `ax` of this team (stopped ones too; a test that wants a drain stops nodes
   * itself) and its gates, then whatever else carries its mark: tasks, task launchers.
   */
  async killAll(): Promise<void> {
    const left = this.processes.filter((p) => p.running);
    for (const p of left) p.kill('SIGKILL');
    await Promise.all(left.map((p) => p.exited));
    for (const g of this.gates.splice(0)) g.holder.kill('SIGKILL');
    await waitFor(() => killMarked(this.dir) === 0, {
      timeoutMs: 10_000,
      intervalMs: 100,
      message: `processes marked AXT_DIR=${this.dir} survive SIGKILL`,
    });
  }

  /** Kills everything (killAll), closes the connections, drops the database (if the team made it) and the prefix, removes the dir. */
  async close(): Promise<void> {
    this.stopReporting();
    await this.killAll();
    await this.coordinatorInstance?.close().catch(() => undefined);
    await (await this.clientEngine?.catch(() => undefined))?.dispose().catch(() => undefined);
    await this.store.close().catch(() => undefined);
    await this.dropDatabase?.().catch(() => undefined);
    // A cluster is the test's own and goes whole; its keys are not under the plain prefix anyway.
    if (!this.redisCluster) await deleteRedisPrefix(this.prefix, this.redisUrl).catch(() => undefined);
    fs.rmSync(this.bundle, { force: true });
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** What a test's context offers to clean up after that test alone (vitest's TestContext). */
export interface TestFinish {
  onTestFinished(fn: () => Promise<void>, timeoutMs?: number): void;
}

/**
 * Opens a team for one test that runs beside others of its file (`it.concurrent`), closed when
 * that test finishes, through its own context (a file's afterEach cannot tell concurrent tests
 * apart). Scenarios that spend their time waiting on real time (cron fires, leases) overlap that
 * way, each on its own database, prefix and processes.
 */
export async function teamForTest(ctx: TestFinish, name: string, o: TeamOptions = {}): Promise<Team> {
  const team = await Team.open(name, o);
  ctx.onTestFinished(() => team.close(), 60_000);
  return team;
}
