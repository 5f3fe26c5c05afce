// Team mode with real processes: one MariaDB database and one Redis key prefix per test file, and
// `ax` (scheduler, workers, clients) as child processes on them. Tasks record what they do in an
// events file (see TASK_LIB), and a GroupWatch samples /proc from the test to tell when each
// task's process group was last seen alive, so tests can prove that no two attempts overlapped.
//
// `ax` is started from a bundle of the current engine sources, built once per file (as
// bin/ax.mjs would run dist/ax.mjs, but never stale while others edit engine/): through tsx every
// start-up compiles the sources again, which on a busy two-core machine costs seconds per command.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';
import { expect } from 'vitest';
import { Redis } from 'ioredis';
import { RedisCoordinator } from '../../engine/adapters/redis/redis-coordinator.ts';
import { RedisKeys } from '../../engine/adapters/redis/redis-keys.ts';
import { openMysqlStore } from '../../engine/adapters/sql/mysql-store.ts';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import type { AuditEntry, InstanceRecord, RunRecord, WorkerRecord } from '../../engine/api/types.ts';
import type { EngineConfig } from '../../engine/core/config.ts';
import type { DispatchMessage } from '../../engine/ports/coordinator.ts';
import { groupMembers, processAlive, REPO, type AxResult, type OutputLine } from './cli.ts';
import { createTestDatabase, deleteRedisPrefix, mysqlAvailable, REDIS_URL, redisAvailable, uniqueName } from './services.ts';
import { tempDir } from './solo-engine.ts';
import { waitFor } from './wait-for.ts';

/** Short intervals so that loss is judged within seconds: a worker is lost 3 s after its last heartbeat. */
export const TEAM_CONFIG: Partial<EngineConfig> = {
  workerHeartbeatMs: 1_000,
  taskHeartbeatMs: 2_000,
  killGraceMs: 1_000,
  tickMs: 200,
  redispatchAfterMs: 5_000,
};

/**
 * Whether MariaDB and Redis are there. Under CI=true a missing one throws (a failure, not a
 * skip); elsewhere the caller skips with the reason.
 */
export async function teamServicesAvailable(): Promise<boolean> {
  const [mysql, redis] = await Promise.all([mysqlAvailable(), redisAvailable()]);
  return mysql && redis;
}

/**
 * Per scenario: they take 10-25 s, but every `ax` start-up costs seconds on a loaded two-core
 * machine; the waits inside have their own, tighter deadlines.
 */
export const TEST_TIMEOUT_MS = 150_000;

export const SKIP_REASON = 'needs MariaDB at 127.0.0.1:3306 and Redis at 127.0.0.1:6379 (AX_TEST_MYSQL_URL, AX_TEST_REDIS_URL)';

/**
 * Sourced by every task command (`. "$AXT_DIR/lib.sh"`). Each line of $AXT_DIR/events is
 * `EVENT TASK RUN INSTANCE ATTEMPT PID PGID EPOCH_MS WORKER`, WORKER from the env of the `ax serve`
 * that ran the task (so the task itself says where it ran, not only the database).
 */
const TASK_LIB = String.raw`
ax_pgid() { ps -o pgid= -p $$ | tr -d ' '; }
ax_event() {
  w=$AXT_WORKER; [ -n "$w" ] || w=none
  echo "$1 $AX_TASK $AX_RUN_ID $AX_INSTANCE_ID $AX_ATTEMPT $$ $(ax_pgid) $(date +%s%3N) $w" >> "$AXT_DIR/events"
}
# process groups of earlier attempts of this task in this run that still have a live member
ax_prev_alive() {
  for g in $(awk -v t="$AX_TASK" -v r="$AX_RUN_ID" -v a="$AX_ATTEMPT" '$1 == "start" && $2 == t && $3 == r && $5 < a { print $7 }' "$AXT_DIR/events" 2>/dev/null); do
    if ps -e -o pgid=,stat= | awk -v g="$g" '$1 == g && $2 !~ /^Z/ { found = 1 } END { exit !found }'; then printf '%s,' "$g"; fi
  done
}
# start: records the start, after checking that no earlier attempt's group lives on
ax_start() {
  live=$(ax_prev_alive)
  ax_event start
  if [ -n "$live" ]; then ax_event "overlap:$live"; fi
}
ax_end() { ax_event end; }
# waits until the test creates $AXT_DIR/$1
ax_wait_for() { while [ ! -e "$AXT_DIR/$1" ]; do sleep 0.1; done; }
`;

export interface TaskEvent {
  event: string;
  task: string;
  runId: number;
  instanceId: number;
  attempt: number;
  pid: number;
  pgid: number;
  at: number;
  worker: string;
}

/** A running `ax` command of a team test. */
export class TeamProcess {
  readonly child: ChildProcess;
  readonly lines: OutputLine[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly raw = { stdout: '', stderr: '' };

  constructor(
    readonly name: string,
    readonly args: string[],
    bundle: string,
    env: NodeJS.ProcessEnv,
    cwd: string,
  ) {
    this.child = spawn(process.execPath, [bundle, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of ['stdout', 'stderr'] as const) {
      let partial = '';
      this.child[stream]?.setEncoding('utf8');
      this.child[stream]?.on('data', (chunk: string) => {
        this.raw[stream] += chunk;
        const parts = (partial + chunk).split('\n');
        partial = parts.pop() ?? '';
        for (const text of parts) this.lines.push({ stream, text, at: Date.now() });
      });
    }
    this.exited = new Promise((resolve) => {
      this.child.on('close', (code, signal) => {
        this.exit = { code, signal };
        resolve({ code, signal });
      });
    });
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  get stdout(): string {
    return this.raw.stdout;
  }

  get stderr(): string {
    return this.raw.stderr;
  }

  describe(): string {
    return `[${this.name}] ax ${this.args.join(' ')} (pid ${this.pid}, ${this.exit ? `exited ${JSON.stringify(this.exit)}` : 'running'})\n--- stdout:\n${this.stdout}\n--- stderr:\n${this.stderr}`;
  }

  async waitForLine(re: RegExp, timeoutMs = 30_000): Promise<OutputLine> {
    return waitFor(
      () => {
        const line = this.lines.find((l) => re.test(l.text));
        if (!line && !this.running) throw new Error('the process exited');
        return line;
      },
      { timeoutMs, intervalMs: 50, message: `no output line matching ${re}\n${this.describe()}` },
    );
  }

  async result(timeoutMs = 60_000): Promise<AxResult> {
    const started = Date.now();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.kill('SIGKILL');
        reject(new Error(`did not exit within ${timeoutMs} ms\n${this.describe()}`));
      }, timeoutMs);
    });
    try {
      const { code, signal } = await Promise.race([this.exited, deadline]);
      return { code, signal, stdout: this.stdout, stderr: this.stderr, ms: Date.now() - started };
    } finally {
      clearTimeout(timer);
    }
  }

  /** Sends a signal (SIGSTOP and SIGCONT too) to this process only. */
  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (this.running) this.child.kill(signal);
  }
}

export interface ServeOptions {
  role: 'scheduler' | 'worker';
  /** a scheduler that runs no tasks itself */
  noWork?: boolean;
  workerId?: string;
  labels?: string[];
  temporary?: boolean;
  accept?: string;
  concurrency?: number;
}

/**
 * Polls /proc for the process groups tasks record in the events file, and keeps for each the
 * last time it was seen with a live (non-zombie) member and the first time it was seen with none.
 * Times are taken after the read that saw the group alive, so `lastAliveAt < t` is proof that the
 * group was not seen alive at or after t only when the read itself finished before t: the check
 * errs towards reporting an overlap, never towards hiding one.
 */
export class GroupWatch {
  private readonly groups = new Map<number, { lastAliveAt: number; deadAt?: number }>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly team: Team,
    private readonly intervalMs = 25,
  ) {}

  start(): this {
    const tick = () => {
      this.sample();
      this.timer = setTimeout(tick, this.intervalMs);
    };
    tick();
    return this;
  }

  stop(): void {
    clearTimeout(this.timer);
  }

  sample(): void {
    for (const e of this.team.events()) if (e.event === 'start' && !this.groups.has(e.pgid)) this.groups.set(e.pgid, { lastAliveAt: e.at });
    for (const [pgid, g] of this.groups) {
      if (g.deadAt !== undefined) continue;
      // The leader is cheap to look at; only a dead leader needs the scan for other members.
      const alive = leadsLiveGroup(pgid) || groupMembers(pgid).length > 0;
      const now = Date.now();
      if (alive) g.lastAliveAt = now;
      else g.deadAt = now;
    }
  }

  /** When the group was last seen alive and first seen dead (undefined: still alive). */
  get(pgid: number): { lastAliveAt: number; deadAt?: number } {
    this.sample();
    const g = this.groups.get(pgid);
    if (!g) throw new Error(`group ${pgid} is not known: no task recorded it`);
    return g;
  }

  /** Waits until the group has no live member; returns when it was first seen so. */
  async waitDead(pgid: number, timeoutMs: number): Promise<number> {
    return waitFor(() => this.get(pgid).deadAt, { timeoutMs, intervalMs: this.intervalMs, message: `process group ${pgid} still has a live member` });
  }
}

/** Whether pid is alive (not a zombie) and still leads process group pid (not a reused pid). */
function leadsLiveGroup(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[0] !== 'Z' && fields[0] !== 'X' && Number(fields[2]) === pid;
  } catch {
    return false;
  }
}

const FINAL_RUN = ['SUCCESS', 'FAILED', 'SKIPPED', 'CANCELLED'];
export const ACTIVE_STATES = ['WAITING', 'DISPATCHED', 'RUNNING'] as const;

export class Team {
  readonly processes: TeamProcess[] = [];
  private coordinatorInstance: RedisCoordinator | undefined;

  private constructor(
    /** temp dir: workflow files, the task lib, the events file, release files */
    readonly dir: string,
    readonly prefix: string,
    readonly mysqlUrl: string,
    readonly store: SqlStore,
    readonly config: Partial<EngineConfig>,
    private readonly bundle: string,
    private readonly dropDatabase: () => Promise<void>,
  ) {}

  /** A fresh database (migrated here, so no two nodes race to create the schema) and prefix. */
  static async open(name: string, config: Partial<EngineConfig> = TEAM_CONFIG): Promise<Team> {
    const dir = tempDir(`ax-team-${name}-`);
    let bundle: string | undefined;
    let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
    try {
      bundle = await buildBundle();
      database = await createTestDatabase(`axt_${name.replace(/\W/g, '_')}`);
      const store = await openMysqlStore({ url: database.url });
      fs.writeFileSync(path.join(dir, 'lib.sh'), TASK_LIB);
      fs.writeFileSync(path.join(dir, 'events'), '');
      const drop = database.drop.bind(database);
      return new Team(dir, `${uniqueName(`axt_${name}`)}:`, database.url, store, config, bundle, drop);
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
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AX_') && !k.startsWith('AXT_')) env[k] = v;
    return {
      ...env,
      TZ: 'UTC',
      NO_COLOR: '1',
      AX_MODE: 'team',
      AX_MYSQL_URL: this.mysqlUrl,
      AX_REDIS_URL: REDIS_URL,
      AX_REDIS_PREFIX: this.prefix,
      AX_ENGINE_CONFIG: JSON.stringify(this.config),
      AXT_DIR: this.dir,
      ...extra,
    };
  }

  spawn(name: string, args: string[], extraEnv: Record<string, string> = {}): TeamProcess {
    const p = new TeamProcess(name, args, this.bundle, this.env(extraEnv), this.dir);
    this.processes.push(p);
    return p;
  }

  async ax(args: string[], timeoutMs = 60_000): Promise<AxResult> {
    return this.spawn(`ax ${args[0] ?? ''}`, args).result(timeoutMs);
  }

  async axJson<T>(args: string[]): Promise<T> {
    const r = await this.ax(['--json', ...args]);
    if (r.code !== 0) throw new Error(`ax --json ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
    return JSON.parse(r.stdout) as T;
  }

  /** Starts `ax serve` and waits until its engine runs (a worker is registered by then). */
  async serve(name: string, o: ServeOptions): Promise<TeamProcess> {
    const args = ['serve', '--role', o.role];
    if (o.noWork) args.push('--no-work');
    if (o.workerId) args.push('--worker-id', o.workerId);
    if (o.labels) args.push('--labels', o.labels.join(','));
    if (o.temporary) args.push('--temporary');
    if (o.accept) args.push('--accept', o.accept);
    if (o.concurrency) args.push('--concurrency', String(o.concurrency));
    const p = this.spawn(name, args, { AXT_WORKER: o.workerId ?? name });
    await p.waitForLine(/^ax serve: team /, 60_000);
    return p;
  }

  /** A scheduler that runs no tasks, and workers with the given ids, started in parallel. */
  async cluster(workerIds: string[]): Promise<{ scheduler: TeamProcess; workers: Map<string, TeamProcess> }> {
    const [scheduler, ...workers] = await Promise.all([
      this.serve('scheduler', { role: 'scheduler', noWork: true }),
      ...workerIds.map((id) => this.serve(id, { role: 'worker', workerId: id })),
    ]);
    await this.waitWorkersOnline(workerIds);
    return { scheduler: scheduler as TeamProcess, workers: new Map(workerIds.map((id, i) => [id, workers[i] as TeamProcess])) };
  }

  /** Waits until the dispatcher can see every one of these workers online. */
  async waitWorkersOnline(ids: string[], timeoutMs = 20_000): Promise<WorkerRecord[]> {
    return waitFor(
      async () => {
        const live = await this.coordinator().listWorkers();
        return ids.every((id) => live.some((w) => w.id === id && w.status === 'online')) ? live : undefined;
      },
      { timeoutMs, intervalMs: 100, message: `workers ${ids.join(', ')} did not all register` },
    );
  }

  writeWorkflow(file: string, yamlText: string): string {
    const p = path.join(this.dir, file);
    fs.writeFileSync(p, yamlText);
    return p;
  }

  /** `ax run FILE|NAME` (a file is applied first); returns the run id. */
  async startRun(target: string): Promise<number> {
    const r = await this.ax(['run', target]);
    const m = /^started run #(\d+) of /m.exec(r.stdout);
    if (r.code !== 0 || !m) throw new Error(`ax run ${target} exited ${r.code}:\n${r.stdout}\n${r.stderr}`);
    return Number(m[1]);
  }

  /** Creates a file tasks wait for (ax_wait_for NAME). */
  release(name: string): void {
    fs.writeFileSync(path.join(this.dir, name), '');
  }

  events(): TaskEvent[] {
    const text = fs.readFileSync(path.join(this.dir, 'events'), 'utf8');
    return text
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => {
        const [event, task, runId, instanceId, attempt, pid, pgid, at, worker] = l.split(' ');
        return { event: event ?? '', task: task ?? '', runId: Number(runId), instanceId: Number(instanceId), attempt: Number(attempt), pid: Number(pid), pgid: Number(pgid), at: Number(at), worker: worker ?? '' };
      });
  }

  startOf(instanceId: number): TaskEvent | undefined {
    return this.events().find((e) => e.event === 'start' && e.instanceId === instanceId);
  }

  async waitRun(runId: number, timeoutMs = 60_000): Promise<RunRecord> {
    return waitFor(
      async () => {
        const run = await this.store.getRun(runId);
        return run && FINAL_RUN.includes(run.state) ? run : undefined;
      },
      { timeoutMs, intervalMs: 100, message: `run #${runId} did not end` },
    ).catch(async (err: unknown) => {
      throw new Error(`${String(err)}\ninstances: ${JSON.stringify(await this.store.listInstances(runId), null, 1)}\n${this.processes.map((p) => p.describe()).join('\n')}`);
    });
  }

  /** Polls the run's instances until pred holds; returns them. */
  async waitInstances(runId: number, pred: (list: InstanceRecord[]) => boolean, message: string, timeoutMs = 30_000): Promise<InstanceRecord[]> {
    let last: InstanceRecord[] = [];
    return waitFor(
      async () => {
        last = await this.store.listInstances(runId);
        return pred(last) ? last : undefined;
      },
      { timeoutMs, intervalMs: 50, message },
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}\ninstances: ${JSON.stringify(last, null, 1)}\n${this.processes.map((p) => p.describe()).join('\n')}`);
    });
  }

  async alerts(): Promise<AuditEntry[]> {
    return (await this.store.listAudit(10_000)).filter((e) => e.action === 'alert');
  }

  /** A coordinator on the team's prefix, for what only Redis shows (queues, live registrations). */
  coordinator(): RedisCoordinator {
    this.coordinatorInstance ??= new RedisCoordinator({ url: REDIS_URL, prefix: this.prefix });
    return this.coordinatorInstance;
  }

  /** What waits in a worker's queue and what it has taken but not acked, as Redis holds them. */
  async queued(workerId: string): Promise<{ queue: DispatchMessage[]; inFlight: DispatchMessage[] }> {
    const keys = new RedisKeys(this.prefix);
    const r = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      const [queue, inFlight] = await Promise.all([r.lrange(keys.queue(workerId), 0, -1), r.lrange(keys.inFlight(workerId), 0, -1)]);
      const parse = (raw: string) => JSON.parse(raw) as DispatchMessage;
      return { queue: queue.map(parse), inFlight: inFlight.map(parse) };
    } finally {
      r.disconnect();
    }
  }

  /** SIGKILLs every `ax` of this team (stopped ones too), then whatever carries its mark: tasks, watchdogs. */
  async killAll(): Promise<void> {
    const left = this.processes.filter((p) => p.running);
    for (const p of left) p.kill('SIGKILL');
    await Promise.all(left.map((p) => p.exited));
    await waitFor(() => killMarked(this.dir) === 0, { timeoutMs: 10_000, intervalMs: 100, message: `processes marked AXT_DIR=${this.dir} survive SIGKILL` });
  }

  async close(): Promise<void> {
    await this.killAll();
    await this.coordinatorInstance?.close();
    await this.store.close();
    await this.dropDatabase();
    await deleteRedisPrefix(this.prefix);
    fs.rmSync(this.bundle, { force: true });
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}

/** SIGKILLs every live process whose environment has AXT_DIR=dir; returns how many it found. */
export function killMarked(dir: string): number {
  const marker = `AXT_DIR=${dir}`;
  let found = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    const pid = Number(entry);
    let env: string[];
    try {
      env = fs.readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0');
    } catch {
      continue; // gone, or not ours to read
    }
    if (!env.includes(marker) || !processAlive(pid)) continue;
    found++;
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/** Bundles the `ax` CLI from the current sources (see the file comment); returns its path. */
async function buildBundle(): Promise<string> {
  // Inside the repository, so that the bundle's external imports resolve to its node_modules.
  const dir = path.join(REPO, 'node_modules', '.cache', 'ax-team-test');
  fs.mkdirSync(dir, { recursive: true });
  const outfile = path.join(dir, `ax-${process.pid}-${randomBytes(4).toString('hex')}.mjs`);
  await build({
    stdin: {
      contents: "import { main } from './engine/hosts/cli/main.ts';\nawait main(process.argv);\n",
      resolveDir: REPO,
      sourcefile: 'ax-team-test-entry.ts',
      loader: 'ts',
    },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    outfile,
    logLevel: 'warning',
  });
  return outfile;
}

export interface InvariantOptions {
  /** the run's expected final state; default SUCCESS */
  runState?: string;
  /** the tasks that must each have exactly one SUCCESS; default every task of the run */
  tasks?: string[];
  /** instances whose process may have been alive beside a later attempt (a frozen worker's) */
  overlapAllowed?: number[];
}

/**
 * The invariants every team scenario keeps, on one finished run: no lost instance (nothing left
 * WAITING, DISPATCHED or RUNNING, every outcome handled); at most one process per instance (one
 * recorded start each) and none alive any more; no attempt started while an earlier attempt of
 * its task still had a live process; exactly one recorded outcome (one SUCCESS per task, one row
 * per attempt, every SUCCESS recorded by the worker that ran it). Returns the run's instances.
 */
export async function expectRunInvariants(team: Team, runId: number, o: InvariantOptions = {}): Promise<InstanceRecord[]> {
  const run = await team.waitRun(runId);
  const instances = await team.store.listInstances(runId);
  const detail = JSON.stringify(instances, null, 1);
  expect(run.state, detail).toBe(o.runState ?? 'SUCCESS');
  expect(instances.filter((i) => (ACTIVE_STATES as readonly string[]).includes(i.state)), 'no instance may be left active').toEqual([]);
  expect(instances.filter((i) => !i.handled).map((i) => i.id), 'every outcome is handled').toEqual([]);
  const keys = instances.map((i) => `${i.taskName}#${i.attempt}`);
  expect(new Set(keys).size, `one row per (task, attempt): ${keys.join(' ')}`).toBe(keys.length);
  const tasks = o.tasks ?? [...new Set(instances.map((i) => i.taskName))];
  for (const task of tasks) {
    const mine = instances.filter((i) => i.taskName === task).sort((a, b) => a.attempt - b.attempt);
    expect(mine.map((i) => i.attempt), `attempts of ${task}`).toEqual(mine.map((_, n) => n + 1));
    if ((o.runState ?? 'SUCCESS') === 'SUCCESS') {
      expect(mine.filter((i) => i.state === 'SUCCESS'), `exactly one SUCCESS of ${task}: ${detail}`).toHaveLength(1);
      expect(mine[mine.length - 1]?.state, `the last attempt of ${task} is its SUCCESS`).toBe('SUCCESS');
    }
  }
  const events = team.events().filter((e) => e.runId === runId);
  const starts = events.filter((e) => e.event === 'start');
  for (const i of instances) {
    const mine = starts.filter((e) => e.instanceId === i.id);
    expect(mine.length, `instance ${i.id} (${i.taskName}#${i.attempt}) started at most once`).toBeLessThanOrEqual(1);
    if (i.state === 'SUCCESS') {
      expect(mine, `instance ${i.id} succeeded, so it ran`).toHaveLength(1);
      expect(mine[0]?.worker, `instance ${i.id} ran where the database says`).toBe(i.workerId);
      expect(events.some((e) => e.event === 'end' && e.instanceId === i.id), `instance ${i.id} ran to its end`).toBe(true);
    }
  }
  const allowed = new Set(starts.filter((e) => (o.overlapAllowed ?? []).includes(e.instanceId)).map((e) => e.pgid));
  const overlaps = events.filter((e) => e.event.startsWith('overlap:') && e.event.slice('overlap:'.length).split(',').some((g) => g !== '' && !allowed.has(Number(g))));
  expect(overlaps, 'an attempt started while an earlier one lived').toEqual([]);
  for (const s of starts) expect(groupMembers(s.pgid), `nothing of instance ${s.instanceId}'s process group is left`).toEqual([]);
  return instances;
}
