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
import type { Engine } from '../../engine/core/engine.ts';
import { openTeamEngine } from '../../engine/hosts/node/team.ts';
import { ax, axJson, axStart, killStrays, type AxOptions, type AxProcess, type AxResult } from './cli.ts';
import { createTestDatabase, deleteRedisPrefix, redisAvailable, REDIS_URL, uniqueName } from './services.ts';
import { waitFor } from './wait-for.ts';

export const CI = process.env.CI === 'true';

const runs = (cmd: string, args: string[]) => spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
export const hasRedisServer = runs('redis-server', ['--version']);
const MARIADBD = ['/usr/sbin/mariadbd', '/usr/sbin/mysqld', '/usr/bin/mariadbd', '/usr/bin/mysqld'].find((p) => fs.existsSync(p));
// Looked up, not run: mariadb-install-db has no harmless --version (it would install into the default data dir).
const INSTALL_DB = ['mariadb-install-db', 'mysql_install_db'].find((c) => runs('sh', ['-c', `command -v ${c}`]));
/** A private MariaDB can be made here (off CI a test without one skips; on CI it fails). */
export const hasMariadbServer = MARIADBD !== undefined && INSTALL_DB !== undefined;
/** flock(1) from util-linux, for gates (Team.gate). */
export const hasFlock = runs('flock', ['--version']);

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
  if (!child || child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
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
  private readonly killed = new Set<TeamNode>();
  readonly dataDir: string;
  readonly trace: string;
  private observer: Promise<SqlStore> | undefined;
  private clientEngine: Promise<Engine> | undefined;
  private readonly gates: ChildProcess[] = [];

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
  async startRunCli(workflow: string): Promise<number> {
    return (await this.axJson<RunRecord>(['run', workflow])).id;
  }

  /**
   * Starts a run as `ax run` does (a client engine on the team's MySQL and Redis), but in this
   * process: an `ax` start-up costs a busy core seconds. Returns its id.
   */
  async startRun(workflow: string): Promise<number> {
    this.clientEngine ??= openTeamEngine({ mysqlUrl: this.setup.mysqlUrl, redisUrl: this.setup.redisUrl, redisPrefix: this.setup.prefix, role: 'client' });
    return (await (await this.clientEngine).runWorkflow(workflow, { actor: 'team-services test' })).id;
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

  /**
   * A gate tasks wait at, idle, until the test opens it: this process holds an exclusive flock
   * on a file, and `wait` (a shell command) takes it shared. A task that comes to the gate after
   * it opened passes at once, so there is no race between opening and arriving.
   */
  async gate(name: string): Promise<Gate> {
    const file = path.join(this.setup.root, `${name}.gate`);
    fs.writeFileSync(file, '');
    // Marked with the data dir, so that killStrays finds it too.
    const holder = spawn('flock', ['-x', file, '-c', 'echo held; exec cat'], { stdio: ['pipe', 'pipe', 'ignore'], env: { ...process.env, AX_DATA_DIR: this.dataDir } });
    this.gates.push(holder);
    let failed: Error | undefined;
    holder.on('error', (err) => (failed = err));
    let out = '';
    holder.stdout?.on('data', (chunk: Buffer) => (out += chunk.toString()));
    await waitFor(
      () => {
        if (failed) throw failed;
        if (holder.exitCode !== null) throw new Error(`flock exited ${holder.exitCode}`);
        return out.includes('held');
      },
      { timeoutMs: 20_000, message: `the gate ${name} to be held` },
    );
    const released = once(holder, 'exit');
    return {
      wait: `flock -s "${file}" true`,
      async open() {
        holder.stdin?.end();
        await released;
      },
    };
  }

  /** kill -9 of one node, on purpose (its exit is then no failure). */
  async kill9(node: TeamNode): Promise<void> {
    this.killed.add(node);
    node.proc.kill('SIGKILL');
    await node.proc.exited;
  }

  /** Nodes that exited without a test asking them to, described; undefined when none did. */
  unexpectedExits(): string | undefined {
    const dead = this.nodes.filter((n) => !n.proc.running && !this.killed.has(n));
    return dead.length ? dead.map((n) => `${n.role} ${n.workerId} (pid ${n.proc.pid}) exited ${n.proc.exit?.code ?? n.proc.exit?.signal}`).join(', ') : undefined;
  }

  /**
   * waitFor that fails at once, with the nodes' stderr, when a node died on its own: a crashed
   * engine is the finding, not a reason to wait out the deadline.
   */
  async waitFor<T>(fn: () => T | Promise<T>, opts: { timeoutMs: number; intervalMs?: number; message: string }): Promise<NonNullable<T>> {
    const got = await waitFor(
      async () => {
        const died = this.unexpectedExits();
        if (died) return { died };
        const value = await fn();
        return value ? { value } : undefined;
      },
      opts,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}\n${this.nodeLogs()}`);
    });
    if ('died' in got) throw new Error(`while waiting for ${opts.message}: ${got.died}\n${this.nodeLogs()}`);
    return got.value as NonNullable<T>;
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
    for (const n of this.nodes) {
      this.killed.add(n);
      n.proc.kill('SIGKILL');
    }
    await Promise.all(this.nodes.map((n) => n.proc.exited));
    for (const g of this.gates.splice(0)) await killChild(g);
    // Task processes the nodes left, and the nodes' orphan watchdogs (which carry the marker too;
    // killed before they tidy up, so their group files are removed here).
    killStrays(this.setup.root);
    const pids = new Set(this.nodes.map((n) => String(n.proc.pid)));
    for (const f of fs.readdirSync(os.tmpdir())) {
      if (f.startsWith('ax-watchdog-') && pids.has(f.split('-')[2] ?? '')) fs.rmSync(path.join(os.tmpdir(), f), { force: true });
    }
    const observer = this.observer;
    this.observer = undefined;
    await (await observer?.catch(() => undefined))?.close().catch(() => undefined);
    const client = this.clientEngine;
    this.clientEngine = undefined;
    await (await client?.catch(() => undefined))?.dispose().catch(() => undefined);
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
  if (options.noFailover) {
    // A worker told that it lost an instance it still runs, or whose outcome was refused.
    for (const n of team.nodes) {
      for (const line of n.proc.stderr.split('\n')) if (/no longer owns|was taken over/.test(line)) problems.push(`${n.workerId}: ${line}`);
    }
  }
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
  return team
    .waitFor(
      async () => {
        const list = await Promise.all(runIds.map((id) => store.getRun(id)));
        return list.every((r) => r && r.state !== 'RUNNING' && r.state !== 'QUEUED') ? (list as RunRecord[]) : undefined;
      },
      { timeoutMs, intervalMs: 250, message: `runs ${runIds.join(', ')} to end` },
    )
    .catch(async (err: unknown) => {
      const detail = [];
      for (const id of runIds) {
        const insts = await store.listInstances(id).catch(() => []);
        detail.push(`run #${id}: ${insts.map((i) => `${i.taskName}#${i.attempt}=${i.state}${i.reason ? `(${i.reason})` : ''}`).join(' ')}`);
      }
      throw new Error(`${detail.join('\n')}\n${String(err)}`);
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
  return team.waitFor(
    async () => {
      const started = (await instancesOf(team, runIds)).map((i) => i.startedAt ?? 0).filter((t) => t > since);
      return started.length > 0 ? Math.min(...started) : undefined;
    },
    { timeoutMs, intervalMs: 100, message: 'an instance to start after the fault' },
  );
}

export interface Gate {
  /** the shell command that waits at the gate */
  wait: string;
  open(): Promise<void>;
}

/**
 * `count` independent tasks that run until the test opens their gate: work that is running
 * while a fault comes and goes, however slow the machine. Their timeout is far away.
 */
export async function gatedWorkflow(name: string, team: Team, count: number): Promise<{ spec: object; tasks: string[]; open(): Promise<void> }> {
  const gate = await team.gate(name);
  const names = Array.from({ length: count }, (_, k) => `gated${k}`);
  const command = team.traced(gate.wait);
  return {
    spec: { workflow: name, tasks: Object.fromEntries(names.map((n) => [n, { command, timeout: '300s' }])) },
    tasks: names,
    open: () => gate.open(),
  };
}

/** The executions of the given tasks of a run that were alive over all of [from, to]. */
export function aliveThrough(team: Team, runId: number, from: number, to: number): Execution[] {
  return team.executions().filter((e) => e.runId === runId && e.start < from && (e.end ?? Infinity) > to);
}

/** A workflow on an every-second cron (6 fields), runs in parallel, one traced task `true`. */
export function everySecondWorkflow(name: string, team: Team, misfire: 'run_once' | 'skip' | 'all' = 'run_once'): { spec: object; tasks: string[] } {
  return {
    spec: { workflow: name, schedule: { cron: '* * * * * *', timezone: 'UTC', misfire, overlap: 'parallel' }, tasks: { tick: { command: team.traced('true'), timeout: '60s' } } },
    tasks: ['tick'],
  };
}

export interface FireReport {
  /** the cron runs whose fire time lies in the window, ascending by fire time */
  runs: RunRecord[];
  /** fire times with more than one run */
  duplicates: number[];
  /** whole seconds of the window that have no run */
  missing: number[];
  /** the largest distance between consecutive fire times in the window, edges included (1000 when none is missing) */
  maxGapMs: number;
  /** fires the misfire policy dropped, by the audit log (entries written in the window or after) */
  skippedByPolicy: number;
  /** those audit entries: when the scan ran, how many it dropped, the latest one dropped */
  skips: { at: number; count: number; latest: number }[];
}

/** What an every-second cron did over [from, to] (both whole seconds). */
export async function everySecondFires(team: Team, workflow: string, from: number, to: number): Promise<FireReport> {
  const store = await team.store();
  const all = (await store.listRuns({ workflowName: workflow, limit: 100_000 })).filter((r) => r.trigger === 'cron');
  const runs = all.filter((r) => r.logicalTime >= from && r.logicalTime <= to).sort((a, b) => a.logicalTime - b.logicalTime || a.id - b.id);
  const count = new Map<number, number>();
  for (const r of runs) count.set(r.logicalTime, (count.get(r.logicalTime) ?? 0) + 1);
  const duplicates = [...count].filter(([, n]) => n > 1).map(([t]) => t);
  const missing: number[] = [];
  for (let t = from; t <= to; t += 1_000) if (!count.has(t)) missing.push(t);
  const times = [from - 1_000, ...count.keys(), to + 1_000].sort((a, b) => a - b);
  let maxGapMs = 0;
  for (let k = 1; k < times.length; k++) maxGapMs = Math.max(maxGapMs, (times[k] as number) - (times[k - 1] as number));
  const skips: FireReport['skips'] = [];
  for (const e of await store.listAudit(10_000)) {
    if (e.action !== 'misfire.skip' || e.object !== `workflow:${workflow}`) continue;
    const m = /^(more than )?(\d+) missed fire\(s\) up to (\S+) not run/.exec(e.detail ?? '');
    if (m && Date.parse(m[3] as string) >= from) skips.push({ at: e.at, count: Number(m[2]), latest: Date.parse(m[3] as string) });
  }
  return { runs, duplicates, missing, maxGapMs, skippedByPolicy: skips.reduce((n, k) => n + k.count, 0), skips };
}

export const wholeSecondAfter = (t: number): number => Math.ceil(t / 1_000) * 1_000;

/**
 * Watches for `ms` that check() finds nothing wrong (it returns a problem, or undefined), and
 * fails at the first problem: for claims of the form "nothing happens to them meanwhile".
 */
export async function holdsFor(team: Team, ms: number, what: string, check: () => Promise<string | undefined>): Promise<void> {
  const until = Date.now() + ms;
  const outcome = await team.waitFor(async () => (await check()) ?? (Date.now() >= until ? 'held' : undefined), {
    timeoutMs: ms + 30_000,
    intervalMs: 200,
    message: `${what} for ${ms} ms`,
  });
  if (outcome !== 'held') throw new Error(`${what}: ${outcome}\n${team.nodeLogs()}`);
}

/** A problem unless the run's instances are exactly its first attempts, all RUNNING. */
export async function stillRunningFirstAttempts(team: Team, runId: number, tasks: string[]): Promise<string | undefined> {
  const instances = await (await team.store()).listInstances(runId);
  const ok = instances.length === tasks.length && instances.every((i) => i.state === 'RUNNING' && i.attempt === 1);
  return ok ? undefined : `run #${runId}: ${instances.map((i) => `${i.taskName}#${i.attempt}=${i.state}${i.reason ? ` (${i.reason})` : ''}`).join(', ')}`;
}

/** How long the scheduler may take to misjudge a live worker or task, were it going to: both windows and a check. */
export const MISJUDGE_WINDOW_MS =
  3 * (TEAM_CONFIG.workerHeartbeatMs as number) + 2.5 * (TEAM_CONFIG.taskHeartbeatMs as number) + 2 * (TEAM_CONFIG.workerHeartbeatMs as number);
