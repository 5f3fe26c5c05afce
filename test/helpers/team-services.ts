// Team mode under service faults, with real processes: `ax serve` nodes (scheduler, worker) on a
// MariaDB + Redis, private instances of both that a test may flush, kill and restart on the same
// port, a trace that task processes append to (when each attempt really started and ended), and
// the invariants every fault test checks (SPEC §7–§8): no lost instance, at most one live process
// per instance, exactly one recorded outcome per task per run, one run per cron fire.
//
// Nothing here touches the shared 3306/6379 servers beyond a test's own database and key prefix.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import { openMysqlStore } from '../../engine/adapters/sql/mysql-store.ts';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import type { InstanceRecord, RunRecord } from '../../engine/api/types.ts';
import type { EngineConfig } from '../../engine/core/config.ts';
import { ax, axJson, axStart, killStrays, type AxOptions, type AxProcess, type AxResult } from './cli.ts';
import { createTestDatabase, deleteRedisPrefix, mysqlAvailable, redisAvailable, REDIS_URL, uniqueName } from './services.ts';
import { waitFor } from './wait-for.ts';

export const CI = process.env.CI === 'true';

const runs = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
export const hasRedisServer = runs('redis-server', ['--version']);
const MARIADBD = ['/usr/sbin/mariadbd', '/usr/sbin/mysqld', '/usr/bin/mariadbd', '/usr/bin/mysqld'].find((p) => fs.existsSync(p));
const INSTALL_DB = ['mariadb-install-db', 'mysql_install_db'].find((c) => runs(c, ['--help']));
/** A private MariaDB can be made here (off CI a test without one skips; on CI it fails). */
export const hasMariadbServer = MARIADBD !== undefined && INSTALL_DB !== undefined;

/** Short intervals so that every judgement happens within seconds (keys of engine/core/config.ts). */
export const TEAM_CONFIG: Partial<EngineConfig> = {
  workerHeartbeatMs: 1_000,
  taskHeartbeatMs: 2_000,
  killGraceMs: 1_000,
  tickMs: 200,
  redispatchAfterMs: 5_000,
};

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function killChild(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill(signal);
  await exited;
}

/** A redis-server of the test's own (no persistence), so it can be flushed, killed and restarted. */
export class PrivateRedis {
  private child: ChildProcess | undefined;
  private constructor(readonly port: number) {}

  static async start(): Promise<PrivateRedis> {
    const r = new PrivateRedis(await freePort());
    await r.start();
    return r;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  /** Starts (again) on the same port. */
  async start(): Promise<void> {
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--dir', os.tmpdir()];
    const child = spawn('redis-server', args, { stdio: 'ignore' });
    this.child = child;
    await waitFor(() => child.exitCode === null && redisAvailable(this.url), { timeoutMs: 20_000, intervalMs: 50, message: `redis-server on port ${this.port} to answer` });
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
    return getKey(this.url, key);
  }
}

export async function getKey(url: string, key: string): Promise<string | undefined> {
  const r = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    return (await r.get(key)) ?? undefined;
  } finally {
    r.disconnect();
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
      ['--no-defaults', `--datadir=${path.join(dir, 'data')}`, '--auth-root-authentication-method=normal', '--skip-test-db', '--innodb-log-file-size=8M', ...asRoot],
      { encoding: 'utf8', timeout: 120_000 },
    );
    if (install.status !== 0) throw new Error(`${INSTALL_DB} failed (${install.status}): ${install.stderr}\n${install.stdout}`);
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
    this.child = child;
    await waitFor(
      async () => {
        if (child.exitCode !== null) throw new Error(`mariadbd exited ${child.exitCode}: ${this.errorLog()}`);
        const c = await mysql.createConnection(this.connection);
        await c.end();
        return true;
      },
      { timeoutMs: 60_000, intervalMs: 100, message: `the private mariadbd on port ${this.port} to accept connections` },
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

/** Whether the shared services are there (false off CI skips; on CI a missing one throws). */
export async function sharedServicesAvailable(): Promise<{ mysql: boolean; redis: boolean }> {
  return { mysql: await mysqlAvailable(), redis: await redisAvailable() };
}

export interface TeamSetup {
  /** a temp dir for this team: data dir (the marker killStrays uses), workflow files, trace */
  root: string;
  mysqlUrl: string;
  redisUrl: string;
  prefix: string;
  config?: Partial<EngineConfig>;
}

export interface ServeOptions {
  /** a scheduler that runs no tasks (--no-work) */
  noWork?: boolean;
  workerId?: string;
  concurrency?: number;
}

/** A running `ax serve` node of the team. */
export interface TeamNode {
  proc: AxProcess;
  role: 'scheduler' | 'worker';
  workerId: string;
  /** what the node holds the leader lease as: "<workerId>:<pid>" */
  nodeId: string;
}

/**
 * One team: `ax` processes on one database and prefix, a store opened in the test process for
 * cheap polling (far cheaper than an `ax --json` process per look), and cleanup of all of it.
 */
export class Team {
  readonly nodes: TeamNode[] = [];
  readonly dataDir: string;
  readonly trace: string;
  private observer: Promise<SqlStore> | undefined;

  constructor(readonly setup: TeamSetup) {
    this.dataDir = path.join(setup.root, 'data');
    this.trace = path.join(setup.root, 'trace.log');
    fs.mkdirSync(this.dataDir, { recursive: true });
    fs.writeFileSync(this.trace, '');
  }

  get env(): Record<string, string> {
    const s = this.setup;
    return {
      AX_MODE: 'team',
      AX_MYSQL_URL: s.mysqlUrl,
      AX_REDIS_URL: s.redisUrl,
      AX_REDIS_PREFIX: s.prefix,
      AX_ENGINE_CONFIG: JSON.stringify({ ...TEAM_CONFIG, ...s.config }),
    };
  }

  get axOptions(): AxOptions {
    return { dataDir: this.dataDir, cwd: this.setup.root, env: this.env, timeoutMs: 120_000 };
  }

  /** Starts `ax serve --role ROLE` and waits until it says it runs. */
  async serve(role: 'scheduler' | 'worker', options: ServeOptions = {}): Promise<TeamNode> {
    const args = ['serve', '--role', role];
    if (options.noWork) args.push('--no-work');
    if (options.workerId) args.push('--worker-id', options.workerId);
    if (options.concurrency) args.push('--concurrency', String(options.concurrency));
    const proc = axStart(args, this.axOptions);
    const node: TeamNode = { proc, role, workerId: options.workerId ?? os.hostname(), nodeId: `${options.workerId ?? os.hostname()}:${proc.pid}` };
    this.nodes.push(node);
    await waitFor(
      () => {
        if (!proc.running) throw new Error(`exited ${proc.exit?.code ?? proc.exit?.signal}`);
        return proc.lines.some((l) => l.stream === 'stdout' && l.text.startsWith('ax serve: team '));
      },
      { timeoutMs: 90_000, intervalMs: 50, message: `ax ${args.join(' ')} to start` },
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}\n--- stdout:\n${proc.stdout}\n--- stderr:\n${proc.stderr}`);
    });
    return node;
  }

  /** Several nodes started at the same time (each waits for its own start line). */
  serveAll(specs: { role: 'scheduler' | 'worker'; options?: ServeOptions }[]): Promise<TeamNode[]> {
    return Promise.all(specs.map((s) => this.serve(s.role, s.options)));
  }

  ax(args: string[]): Promise<AxResult> {
    return ax(args, this.axOptions);
  }

  axJson<T>(args: string[]): Promise<T> {
    return axJson<T>(args, this.axOptions);
  }

  /** Writes a workflow (as JSON, which `ax apply` reads like YAML) and applies it. */
  async apply(spec: object, file = 'workflow.json'): Promise<void> {
    const p = path.join(this.setup.root, file);
    fs.writeFileSync(p, JSON.stringify(spec, null, 2));
    const r = await this.ax(['apply', p]);
    if (r.code !== 0) throw new Error(`ax apply exited ${r.code}: ${r.stderr}`);
  }

  /** Starts a run through the CLI (the team's workers run it); returns its id. */
  async startRun(workflow: string): Promise<number> {
    return (await this.axJson<RunRecord>(['run', workflow])).id;
  }

  /** The team's database, opened in the test process (the pool reconnects after a restart). */
  store(): Promise<SqlStore> {
    this.observer ??= openMysqlStore({ url: this.setup.mysqlUrl, connectionLimit: 2 });
    return this.observer;
  }

  /** A command that appends "S|E runId task instanceId attempt shellPid epochMs" to the trace around BODY. */
  traced(body: string): string {
    const line = (mark: string) => `echo "${mark} $AX_RUN_ID $AX_TASK $AX_INSTANCE_ID $AX_ATTEMPT $$ $(date +%s%3N)" >> "${this.trace}"`;
    return `${line('S')}; ${body}; rc=$?; ${line('E')}; exit $rc`;
  }

  executions(): Execution[] {
    return readTrace(this.trace);
  }

  /** Stderr of every node, for failure messages. */
  nodeLogs(): string {
    return this.nodes.map((n) => `--- ${n.role} ${n.workerId} pid ${n.proc.pid} (${n.proc.running ? 'running' : `exited ${n.proc.exit?.code ?? n.proc.exit?.signal}`}):\n${n.proc.stderr.split('\n').slice(-40).join('\n')}`).join('\n');
  }

  /**
   * Kills every node (SIGKILL; a test that wants a drain stops nodes itself) and every task
   * process they left, closes the observer; the caller drops the database and prefix.
   */
  async stop(): Promise<void> {
    for (const n of this.nodes) n.proc.kill('SIGKILL');
    await Promise.all(this.nodes.map((n) => n.proc.exited));
    killStrays(this.setup.root);
    const observer = this.observer;
    this.observer = undefined;
    await (await observer?.catch(() => undefined))?.close().catch(() => undefined);
  }
}

/** A team on the shared MariaDB (own database) and a given Redis (own prefix), with cleanup. */
export async function sharedTeam(root: string, redisUrl = REDIS_URL, config?: Partial<EngineConfig>): Promise<{ team: Team; cleanup(): Promise<void> }> {
  const db = await createTestDatabase('ax_team');
  const prefix = `${uniqueName('axteam')}:`;
  const team = new Team({ root, mysqlUrl: db.url, redisUrl, prefix, config });
  return {
    team,
    async cleanup() {
      await team.stop();
      await db.drop().catch(() => undefined);
      await deleteRedisPrefix(prefix, redisUrl).catch(() => undefined);
    },
  };
}

/** One process a task attempt ran as, from the trace. */
export interface Execution {
  runId: number;
  task: string;
  instanceId: number;
  attempt: number;
  pid: number;
  start: number;
  /** undefined: it never wrote its end line (killed, or still running) */
  end?: number;
}

export function readTrace(file: string): Execution[] {
  const open = new Map<string, Execution>();
  const all: Execution[] = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    const [mark, runId, task, instanceId, attempt, pid, at] = line.trim().split(' ');
    if ((mark !== 'S' && mark !== 'E') || at === undefined) continue;
    const key = `${instanceId}:${pid}`;
    if (mark === 'S') {
      const e: Execution = { runId: Number(runId), task: task as string, instanceId: Number(instanceId), attempt: Number(attempt), pid: Number(pid), start: Number(at) };
      open.set(key, e);
      all.push(e);
    } else {
      const e = open.get(key);
      if (e) e.end = Number(at);
    }
  }
  return all;
}

export interface InvariantOptions {
  /** task names every run must have succeeded in */
  tasks: string[];
  /** no instance may end TIMEOUT */
  noTimeout?: boolean;
  /** no instance may have been failed over (a false judgement of a live worker) */
  noFailover?: boolean;
  /** each task ran as exactly one process per run (nothing was executed twice) */
  singleExecution?: boolean;
}

/**
 * The fault tests' invariants over the database and the trace; returns every violation (an
 * empty list when all hold), so a failure shows all of them at once.
 */
export async function checkInvariants(team: Team, runIds: number[], options: InvariantOptions): Promise<string[]> {
  const store = await team.store();
  const problems: string[] = [];
  const executions = team.executions();
  for (const runId of runIds) {
    const run = await store.getRun(runId);
    if (!run) {
      problems.push(`run #${runId} is missing`);
      continue;
    }
    if (run.state !== 'SUCCESS') problems.push(`run #${runId} is ${run.state}${run.reason ? ` (${run.reason})` : ''}`);
    const instances = await store.listInstances(runId);
    for (const i of instances) {
      if (['WAITING', 'DISPATCHED', 'RUNNING'].includes(i.state)) problems.push(`run #${runId} ${i.taskName}#${i.attempt} (instance ${i.id}) is still ${i.state}`);
      else if (!i.handled) problems.push(`run #${runId} ${i.taskName}#${i.attempt} (instance ${i.id}) ended ${i.state} but was never handled`);
      if (options.noTimeout && i.state === 'TIMEOUT') problems.push(`run #${runId} ${i.taskName}#${i.attempt}: false TIMEOUT (${i.reason})`);
      if (options.noFailover && /failed over/.test(i.reason ?? '')) problems.push(`run #${runId} ${i.taskName}#${i.attempt}: false fail-over (${i.reason})`);
    }
    for (const task of options.tasks) {
      const mine = instances.filter((i) => i.taskName === task);
      const ok = mine.filter((i) => i.state === 'SUCCESS');
      if (ok.length !== 1) problems.push(`run #${runId} task ${task}: ${ok.length} SUCCESS outcomes (${describeInstances(mine)})`);
      const runs = executions.filter((e) => e.runId === runId && e.task === task).sort((a, b) => a.start - b.start);
      if (runs.length === 0) problems.push(`run #${runId} task ${task}: no process ever ran it`);
      if (options.singleExecution && runs.length > 1) problems.push(`run #${runId} task ${task}: executed ${runs.length} times (${describeRuns(runs)})`);
      // At most one live process per instance: one task's executions never overlap in time.
      for (let k = 1; k < runs.length; k++) {
        const prev = runs[k - 1] as Execution;
        const next = runs[k] as Execution;
        if (prev.end === undefined || next.start < prev.end) problems.push(`run #${runId} task ${task}: two live processes at once (${describeRuns([prev, next])})`);
      }
      const perAttempt = new Map<number, number>();
      for (const e of runs) perAttempt.set(e.instanceId, (perAttempt.get(e.instanceId) ?? 0) + 1);
      for (const [id, n] of perAttempt) if (n > 1) problems.push(`run #${runId} task ${task}: instance ${id} started ${n} processes`);
      // The recorded success is the process that really finished.
      for (const s of ok) {
        const e = runs.find((r) => r.instanceId === s.id);
        if (!e || e.end === undefined) problems.push(`run #${runId} task ${task}: instance ${s.id} is SUCCESS but its process ${e ? 'never finished' : 'never ran'}`);
      }
    }
  }
  return problems;
}

const describeInstances = (list: InstanceRecord[]) => list.map((i) => `#${i.attempt} ${i.state}${i.reason ? `: ${i.reason}` : ''}`).join('; ') || 'no instances';
const describeRuns = (list: Execution[]) => list.map((e) => `instance ${e.instanceId} pid ${e.pid} ${e.start}–${e.end ?? '?'}`).join(', ');

/** Waits until none of the runs is RUNNING or QUEUED any more. */
export async function waitForRunsToEnd(team: Team, runIds: number[], timeoutMs: number): Promise<RunRecord[]> {
  const store = await team.store();
  return waitFor(
    async () => {
      const list = await Promise.all(runIds.map((id) => store.getRun(id)));
      return list.every((r) => r && r.state !== 'RUNNING' && r.state !== 'QUEUED') ? (list as RunRecord[]) : undefined;
    },
    { timeoutMs, intervalMs: 250, message: `runs ${runIds.join(', ')} to end` },
  ).catch(async (err: unknown) => {
    const store2 = await team.store();
    const detail = [];
    for (const id of runIds) {
      const insts = await store2.listInstances(id).catch(() => []);
      detail.push(`run #${id}: ${insts.map((i) => `${i.taskName}#${i.attempt}=${i.state}${i.reason ? `(${i.reason})` : ''}`).join(' ')}`);
    }
    throw new Error(`${String(err)}\n${detail.join('\n')}\n${team.nodeLogs()}`);
  });
}

/** A layered DAG: `layers` × `width` tasks, each depending on two tasks of the layer before. */
export function layeredWorkflow(name: string, team: Team, layers: number, width: number, body: string): { spec: object; tasks: string[] } {
  const tasks: Record<string, object> = {};
  const names: string[] = [];
  const id = (l: number, w: number) => `l${l}t${w}`;
  for (let l = 0; l < layers; l++) {
    for (let w = 0; w < width; w++) {
      const upstream = l === 0 ? [] : [...new Set([id(l - 1, w), id(l - 1, (w + 1) % width)])];
      tasks[id(l, w)] = { command: team.traced(body), timeout: '60s', ...(upstream.length && { upstream }) };
      names.push(id(l, w));
    }
  }
  return { spec: { workflow: name, tasks }, tasks: names };
}

/** All instances of the runs (for progress checks while a fault is injected). */
export async function instancesOf(team: Team, runIds: number[]): Promise<InstanceRecord[]> {
  const store = await team.store();
  return (await Promise.all(runIds.map((id) => store.listInstances(id)))).flat();
}

/**
 * Waits until an instance of the runs starts after `since` (the work goes on after a fault);
 * returns when it started.
 */
export async function waitForProgressAfter(team: Team, runIds: number[], since: number, timeoutMs: number): Promise<number> {
  return waitFor(
    async () => {
      const started = (await instancesOf(team, runIds)).map((i) => i.startedAt ?? 0).filter((t) => t > since);
      return started.length > 0 ? Math.min(...started) : undefined;
    },
    { timeoutMs, intervalMs: 100, message: 'an instance to start after the fault' },
  ).catch((err: unknown) => {
    throw new Error(`${String(err)}\n${team.nodeLogs()}`);
  });
}
