// Team-mode load: real `ax serve` processes — 2 schedulers (--no-work) and 3 workers
// (--concurrency 20) — on a fresh MariaDB database and a unique Redis prefix. Layered DAGs of
// `echo x` tasks are applied and all triggered at once through a client engine (what `ax run`
// does in team mode); when every run has ended, the figures come from the database: throughput,
// dispatch latency, log rows, duplicates and lost tasks, plus the CPU of the scheduler processes
// from /proc. A second, paced phase triggers small runs at about a third of the measured
// throughput, so dispatch latency is also seen without a queue in front of it. The same
// invocation measures the solo engine at the same size and the raw spawn rate, for the ratios.
//
// Scaled to a 2-core machine: the issue's load is 20,000 tasks on 3 schedulers and 10 workers ×
// 20; here it is 2,400 tasks (--quick: 300) on 2 + 3 × 20.
//
// `ax` runs from an esbuild bundle of the current engine sources, built once for the whole
// benchmark: what bin/ax.mjs runs when dist/ax.mjs is fresh, and the same code in all five
// processes even while others edit engine/ (through tsx each process would compile on start).
//
// Diagnostics beside the figures: each process's run-queue wait (/proc/PID/schedstat) and
// event-loop delay (bench/loop-monitor.mjs, preloaded, asked over SIGUSR2), and MariaDB/Redis
// round trips timed from here once a second. AX_BENCH_CPU_PROF=DIR starts every `ax serve` with
// `node --cpu-prof --cpu-prof-dir DIR` (a profile per process, written when it exits after SIGTERM).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import readline from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import type { Engine } from '../engine/core/engine.ts';
import { openTeamEngine } from '../engine/hosts/node/team.ts';
import {
  createTestDatabase,
  deleteRedisPrefix,
  mysqlAvailable,
  REDIS_URL,
  redisAvailable,
  uniqueName,
} from '../test/helpers/services.ts';
import { buildBundle } from '../test/helpers/team/team-process.ts';
import { rawRate } from './peer.ts';
import { engineThroughput, rawSpawnRate } from './solo-throughput.ts';
import { type BenchOptions, type BenchTable, fmt, layeredWorkflow, percentile } from './util.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const LOOP_MONITOR = pathToFileURL(fileURLToPath(new URL('./loop-monitor.mjs', import.meta.url))).href;
const SCHEDULERS = 2;
const WORKERS = 3;
const WORKER_CONCURRENCY = 20;
const SOLO_CONCURRENCY = 8;
const COMMAND = 'echo x';
const FINAL_RUN = ['SUCCESS', 'FAILED', 'CANCELLED', 'SKIPPED'];
const CLK_TCK = 100; // USER_HZ: /proc/PID/stat counts in 1/100 s on Linux
const MARK = 'AXB_TEAM_LOAD';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The engine's shell for task commands (its process runner uses $SHELL, else /bin/sh). */
function engineShell(): string {
  const shell = process.env.SHELL;
  return shell !== undefined && shell !== '' && fs.existsSync(shell) ? shell : '/bin/sh';
}

// ---------------------------------------------------------------------------------------------
// /proc

interface CpuTicks {
  /** the process itself, all threads */
  self: number;
  /** its children that it has waited for (a worker's task processes) */
  children: number;
}

function cpuTicks(pid: number): CpuTicks | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // Fields after "pid (comm) ": state is field 3, so utime (14) … cstime (17) are [11..14].
  const f = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  return { self: (f[11] ?? 0) + (f[12] ?? 0), children: (f[13] ?? 0) + (f[14] ?? 0) };
}

/** ns the process's main thread has spent runnable but waiting for a CPU (/proc/PID/schedstat). */
function runQueueWaitNs(pid: number): number | undefined {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]);
  } catch {
    return undefined;
  }
}

/** The first process whose command name is one of `names` and whose command line contains `arg`. */
function findProcess(names: string[], arg = ''): number | undefined {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const comm = fs.readFileSync(`/proc/${entry}/comm`, 'utf8').trim();
      if (!names.includes(comm)) continue;
      if (arg && !fs.readFileSync(`/proc/${entry}/cmdline`, 'latin1').includes(arg)) continue;
      return Number(entry);
    } catch {
      // gone, or not ours to read
    }
  }
  return undefined;
}

/** SIGKILLs every live process whose environment carries MARK=id; returns their command lines. */
function killMarked(id: string): string[] {
  const marker = `${MARK}=${id}`;
  const found: string[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (!fs.readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').includes(marker)) continue;
      if (/^\S+ \(.*\) Z/.test(fs.readFileSync(`/proc/${entry}/stat`, 'utf8'))) continue; // a zombie
      const cmdline = fs.readFileSync(`/proc/${entry}/cmdline`, 'latin1').split('\0').join(' ').trim();
      process.kill(Number(entry), 'SIGKILL');
      found.push(cmdline.slice(0, 60));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

// ---------------------------------------------------------------------------------------------
// processes

interface LoopDelay {
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

class AxProcess {
  readonly child: ChildProcess;
  readonly tail: string[] = [];
  private readonly loops: LoopDelay[] = [];
  readonly exited: Promise<void>;
  running = true;

  constructor(
    readonly name: string,
    args: string[],
    env: NodeJS.ProcessEnv,
    nodeArgs: string[],
  ) {
    this.child = spawn(process.execPath, [...nodeArgs, ...args], { cwd: REPO, env, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [this.child.stdout, this.child.stderr]) {
      if (!stream) continue;
      readline.createInterface({ input: stream }).on('line', (line) => {
        if (line.startsWith('AXB_LOOP ')) {
          this.loops.push(JSON.parse(line.slice('AXB_LOOP '.length)) as LoopDelay);
          return;
        }
        this.tail.push(line);
        if (this.tail.length > 200) this.tail.shift();
      });
    }
    this.exited = new Promise((resolve) => this.child.on('close', () => ((this.running = false), resolve())));
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  async waitForLine(re: RegExp, timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!this.tail.some((l) => re.test(l))) {
      if (!this.running) throw new Error(`${this.name} exited before printing ${re}:\n${this.tail.join('\n')}`);
      if (Date.now() > deadline)
        throw new Error(`${this.name} did not print ${re} within ${timeoutMs} ms:\n${this.tail.join('\n')}`);
      await sleep(50);
    }
  }

  /** The event-loop delay since the last call (bench/loop-monitor.mjs); undefined if it did not answer. */
  async loopDelay(): Promise<LoopDelay | undefined> {
    const seen = this.loops.length;
    if (!this.running) return undefined;
    this.child.kill('SIGUSR2');
    const deadline = Date.now() + 10_000;
    while (this.loops.length === seen && Date.now() < deadline && this.running) await sleep(20);
    return this.loops[seen];
  }

  /** SIGTERM (the serve drains: nothing runs by now), SIGKILL after graceMs. */
  async stop(graceMs: number): Promise<void> {
    if (!this.running) return;
    this.child.kill('SIGTERM');
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    await this.exited;
    clearTimeout(timer);
  }
}

// ---------------------------------------------------------------------------------------------
// figures from the database

interface InstanceRow {
  id: number;
  run_id: number;
  task_id: number;
  task_name: string;
  attempt: number;
  state: string;
  worker_id: string | null;
  not_before: number;
  created_at: number;
  dispatched_at: number | null;
  started_at: number | null;
  finished_at: number | null;
}

interface PhaseFigures {
  runs: number;
  runsSucceeded: number;
  expectedTasks: number;
  instances: number;
  succeededTasks: number;
  duplicates: number;
  lost: number;
  extraAttempts: number;
  wallMs: number;
  logRows: number;
  /** ms: WAITING (max of notBefore, createdAt) → RUNNING, and its two parts */
  toRunning: number[];
  toDispatched: number[];
  dispatchedToRunning: number[];
  rootsToRunning: number[];
  downstreamToRunning: number[];
  /** finished tasks per second in 10 s buckets of the phase, the first and last (partial) left out */
  buckets: number[];
  /** ms from startedAt to finishedAt: spawn, the command, the log flush and the outcome write */
  running: number[];
  /** ms from startedAt to the worker's receipt of the task's output line, and from there to finishedAt */
  startToOutput: number[];
  outputToFinish: number[];
  /** sum of RUNNING time ÷ (wall time × slots) */
  slotUse: number;
  /** per worker, the most instances at once: RUNNING, and DISPATCHED + RUNNING (the dispatcher's idea of its load) */
  peakRunning: Map<string, number>;
  peakActive: Map<string, number>;
  /** dispatches made while the worker already had `concurrency` instances DISPATCHED or RUNNING */
  overDispatched: number;
  instancesById: Map<number, InstanceRow>;
  /** SUCCESS instances with no stdout row: each `echo x` must leave exactly one */
  missingOutput: InstanceRow[];
  /** instances with more than one log row */
  extraOutput: number;
}

/** The highest number of intervals [from, to) open at once. */
function peak(intervals: [number, number][]): number {
  const events = intervals
    .flatMap(
      ([a, b]) =>
        [
          [a, 1],
          [b, -1],
        ] as [number, number][],
    )
    .sort((x, y) => x[0] - y[0] || x[1] - y[1]);
  let open = 0;
  let max = 0;
  for (const [, d] of events) max = Math.max(max, (open += d));
  return max;
}

export async function phaseFigures(
  db: mysql.Connection,
  runIds: number[],
  tasksPerRun: number,
  roots: Set<string>,
  t0: number,
  slots: number,
): Promise<PhaseFigures> {
  const ids = runIds.join(',');
  const [runs] = await db.query<mysql.RowDataPacket[]>(
    `select id, state, created_at, finished_at from workflow_run where id in (${ids})`,
  );
  const [rows] = await db.query<mysql.RowDataPacket[]>(
    `select id, run_id, task_id, task_name, attempt, state, worker_id, not_before, created_at, dispatched_at, started_at, finished_at from task_instance where run_id in (${ids})`,
  );
  const [logs] = await db.query<mysql.RowDataPacket[]>(
    `select count(*) as n from execution_log l join task_instance i on i.id = l.instance_id where i.run_id in (${ids})`,
  );
  const [firstLines] = await db.query<mysql.RowDataPacket[]>(
    `select l.instance_id as id, min(l.ts) as ts, count(*) as n from execution_log l join task_instance i on i.id = l.instance_id where i.run_id in (${ids}) and l.stream = 'stdout' group by l.instance_id`,
  );
  const instances = rows as InstanceRow[];
  const outputAt = new Map(firstLines.map((r) => [Number(r.id), Number(r.ts)]));
  const successes = new Map<string, number>();
  for (const i of instances)
    if (i.state === 'SUCCESS')
      successes.set(`${i.run_id}:${i.task_id}`, (successes.get(`${i.run_id}:${i.task_id}`) ?? 0) + 1);
  const end = Math.max(...runs.map((r) => Number(r.finished_at ?? Date.now())));
  const wait = (i: InstanceRow) => Math.max(i.not_before, i.created_at);
  const started = instances.filter((i) => i.started_at !== null);
  const lat = (i: InstanceRow) => (i.started_at as number) - wait(i);
  const bucketMs = 10_000;
  const counts = new Map<number, number>();
  for (const i of instances)
    if (i.finished_at !== null)
      counts.set(
        Math.floor((i.finished_at - t0) / bucketMs),
        (counts.get(Math.floor((i.finished_at - t0) / bucketMs)) ?? 0) + 1,
      );
  const last = Math.floor((end - t0) / bucketMs);
  const buckets: number[] = [];
  for (let b = 1; b < last; b++) buckets.push((counts.get(b) ?? 0) / (bucketMs / 1000));
  const ran = started.filter((i) => i.finished_at !== null);
  const peakRunning = new Map<string, number>();
  const peakActive = new Map<string, number>();
  let overDispatched = 0;
  for (const w of new Set(instances.map((i) => i.worker_id).filter((w): w is string => w !== null))) {
    const mine = instances.filter((i) => i.worker_id === w);
    peakRunning.set(
      w,
      peak(mine.filter((i) => i.started_at !== null).map((i) => [i.started_at as number, i.finished_at ?? end])),
    );
    const active = mine
      .filter((i) => i.dispatched_at !== null)
      .map((i) => [i.dispatched_at as number, i.finished_at ?? end] as [number, number]);
    peakActive.set(w, peak(active));
    for (const [at] of active)
      if (active.filter(([a, b]) => a < at && b > at).length >= WORKER_CONCURRENCY) overDispatched++;
  }
  return {
    runs: runs.length,
    runsSucceeded: runs.filter((r) => r.state === 'SUCCESS').length,
    expectedTasks: runIds.length * tasksPerRun,
    instances: instances.length,
    succeededTasks: successes.size,
    duplicates: [...successes.values()].filter((n) => n > 1).length,
    lost: runIds.length * tasksPerRun - successes.size,
    extraAttempts: instances.filter((i) => i.attempt > 1).length,
    wallMs: end - t0,
    logRows: Number(logs[0]?.n ?? 0),
    toRunning: started.map(lat),
    toDispatched: instances.filter((i) => i.dispatched_at !== null).map((i) => (i.dispatched_at as number) - wait(i)),
    dispatchedToRunning: started
      .filter((i) => i.dispatched_at !== null)
      .map((i) => (i.started_at as number) - (i.dispatched_at as number)),
    rootsToRunning: started.filter((i) => roots.has(i.task_name) && i.attempt === 1).map(lat),
    downstreamToRunning: started.filter((i) => !roots.has(i.task_name)).map(lat),
    buckets,
    running: ran.map((i) => (i.finished_at as number) - (i.started_at as number)),
    startToOutput: ran
      .filter((i) => outputAt.has(i.id))
      .map((i) => (outputAt.get(i.id) as number) - (i.started_at as number)),
    outputToFinish: ran
      .filter((i) => outputAt.has(i.id))
      .map((i) => (i.finished_at as number) - (outputAt.get(i.id) as number)),
    slotUse: ran.reduce((n, i) => n + (i.finished_at as number) - (i.started_at as number), 0) / ((end - t0) * slots),
    peakRunning,
    peakActive,
    overDispatched,
    instancesById: new Map(instances.map((i) => [i.id, i])),
    missingOutput: instances.filter((i) => i.state === 'SUCCESS' && !outputAt.has(i.id)),
    extraOutput: firstLines.filter((r) => Number(r.n) > 1).length,
  };
}

const p = (values: number[], q: number, digits?: number) =>
  values.length === 0 ? '–' : fmt(percentile(values, q), digits);
export const p50p99 = (values: number[], digits = 0) => `${p(values, 0.5, digits)} / ${p(values, 0.99, digits)}`;

// ---------------------------------------------------------------------------------------------
// the team

export interface Team {
  id: string;
  prefix: string;
  dbUrl: string;
  dropDatabase: () => Promise<void>;
  bundle: string;
  client: Engine;
  schedulers: AxProcess[];
  workers: AxProcess[];
}

/** A team on a fresh database and Redis prefix: the shape is this benchmark's unless given. */
export async function startTeam(
  options: BenchOptions,
  shape = { schedulers: SCHEDULERS, workers: WORKERS },
): Promise<Team> {
  const id = uniqueName('ax_bench_load');
  const prefix = `${id}:`;
  options.progress('team-load: bundling ax from the current sources');
  const bundle = await buildBundle();
  const database = await createTestDatabase('ax_bench_load');
  let client: Engine;
  try {
    // The client engine migrates the fresh database before any node starts, so none race to.
    client = await openTeamEngine({
      mysqlUrl: database.url,
      redisUrl: REDIS_URL,
      redisPrefix: prefix,
      role: 'client',
      onAlert: (m) => options.progress(`team-load client alert: ${m}`),
    });
  } catch (err) {
    await database.drop();
    fs.rmSync(bundle, { force: true });
    throw err;
  }
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AX_')) env[k] = v;
  Object.assign(env, { NO_COLOR: '1', [MARK]: id });
  const profDir = process.env.AX_BENCH_CPU_PROF;
  const nodeArgs = ['--import', LOOP_MONITOR, ...(profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [])];
  const base = [
    bundle,
    '--mode',
    'team',
    '--mysql',
    database.url,
    '--redis',
    REDIS_URL,
    '--redis-prefix',
    prefix,
    'serve',
  ];
  const team: Team = {
    id,
    prefix,
    dbUrl: database.url,
    dropDatabase: () => database.drop(),
    bundle,
    client,
    schedulers: [],
    workers: [],
  };
  for (let s = 1; s <= shape.schedulers; s++)
    team.schedulers.push(
      new AxProcess(
        `scheduler s${s}`,
        [...base, '--role', 'scheduler', '--no-work', '--worker-id', `s${s}`],
        env,
        nodeArgs,
      ),
    );
  for (let w = 1; w <= shape.workers; w++) {
    team.workers.push(
      new AxProcess(
        `worker w${w}`,
        [...base, '--role', 'worker', '--worker-id', `w${w}`, '--concurrency', String(WORKER_CONCURRENCY)],
        env,
        nodeArgs,
      ),
    );
  }
  options.progress(
    `team-load: started ${shape.schedulers} scheduler(s) and ${shape.workers} workers (db ${database.name}, prefix ${prefix})`,
  );
  try {
    await Promise.all(
      [...team.schedulers, ...team.workers].map((proc) => proc.waitForLine(/^ax serve: team /, 120_000)),
    );
    const deadline = Date.now() + 30_000;
    for (;;) {
      const live = await client.coordinator.listWorkers();
      if (team.workers.every((_, w) => live.some((l) => l.id === `w${w + 1}` && l.status === 'online'))) break;
      if (Date.now() > deadline)
        throw new Error(`workers did not all register: ${JSON.stringify(live.map((l) => l.id))}`);
      await sleep(100);
    }
  } catch (err) {
    await stopTeam(team, options, async () => undefined);
    throw err;
  }
  return team;
}

/** Stops every process, runs `afterStop` (the database is still there), then drops everything. */
export async function stopTeam(
  team: Team | undefined,
  options: BenchOptions,
  afterStop: () => Promise<void>,
): Promise<void> {
  if (!team) return;
  await Promise.all([...team.workers, ...team.schedulers].map((proc) => proc.stop(15_000)));
  const left = killMarked(team.id);
  if (left.length > 0)
    options.progress(
      `team-load: killed ${left.length} leftover process(es) marked ${MARK}=${team.id}: ${left.join('; ')}`,
    );
  await afterStop().catch((err: unknown) => options.progress(`team-load: after stop: ${String(err)}`));
  await team.client.dispose().catch(() => undefined);
  await team.dropDatabase();
  await deleteRedisPrefix(team.prefix);
  fs.rmSync(team.bundle, { force: true });
}

/** Waits until every run has ended (or the time is up), printing progress every 10 s. */
export async function waitRuns(
  db: mysql.Connection,
  runIds: number[],
  expectedTasks: number,
  timeoutMs: number,
  options: BenchOptions,
  label: string,
): Promise<boolean> {
  const ids = runIds.join(',');
  const t0 = Date.now();
  let lastReport = t0;
  for (;;) {
    const [open] = await db.query<mysql.RowDataPacket[]>(
      `select count(*) as n from workflow_run where id in (${ids}) and state not in (${FINAL_RUN.map((s) => `'${s}'`).join(',')})`,
    );
    if (Number(open[0]?.n) === 0) return true;
    if (Date.now() - t0 > timeoutMs) return false;
    if (Date.now() - lastReport >= 10_000) {
      lastReport = Date.now();
      const [done] = await db.query<mysql.RowDataPacket[]>(
        `select count(*) as n from task_instance where run_id in (${ids}) and state = 'SUCCESS'`,
      );
      options.progress(
        `team-load: ${label}: ${done[0]?.n}/${expectedTasks} tasks SUCCESS, ${open[0]?.n} run(s) open, load ${os
          .loadavg()
          .map((l) => fmt(l))
          .join(' ')}`,
      );
    }
    await sleep(250);
  }
}

/**
 * Round trips measured from this process once a second while the team works: what one MariaDB
 * query, one one-row commit (an fsync, like each log flush) and one Redis PING cost on this
 * machine at that moment, and how late a 0 ms timer fires here (time a runnable process waits
 * for a CPU). Each worker's path from a task's exit to its recorded outcome is a chain of these.
 */
class Probe {
  readonly select: number[] = [];
  readonly commit: number[] = [];
  readonly ping: number[] = [];
  readonly timerLag: number[] = [];
  private running = true;
  private loop: Promise<void> | undefined;

  constructor(
    private readonly db: mysql.Connection,
    private readonly redis: Redis,
  ) {}

  async start(): Promise<void> {
    await this.db.query(
      'create table bench_probe (id int auto_increment primary key, at bigint not null) engine=InnoDB',
    );
    this.loop = (async () => {
      while (this.running) {
        const t0 = performance.now();
        await new Promise((resolve) => setTimeout(resolve, 0));
        const t1 = performance.now();
        await this.db.query('select 1');
        const t2 = performance.now();
        await this.db.beginTransaction();
        await this.db.query('insert into bench_probe (at) values (?)', [Date.now()]);
        await this.db.commit();
        const t3 = performance.now();
        await this.redis.ping();
        const t4 = performance.now();
        this.timerLag.push(t1 - t0);
        this.select.push(t2 - t1);
        this.commit.push(t3 - t2);
        this.ping.push(t4 - t3);
        await sleep(1_000);
      }
    })();
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.loop;
  }
}

interface CpuSample {
  at: number;
  /** run-queue wait of each process's main thread, ns */
  schedulerWait: (number | undefined)[];
  workerWait: (number | undefined)[];
  schedulers: (CpuTicks | undefined)[];
  workers: (CpuTicks | undefined)[];
  mariadb: CpuTicks | undefined;
  redis: CpuTicks | undefined;
}

// ---------------------------------------------------------------------------------------------

interface LoadSize {
  workflows: number;
  tasksPerWorkflow: number;
  width: number;
  pacedSeconds: number;
}

interface LoadResult {
  burst: PhaseFigures;
  paced: PhaseFigures;
  pacedRuns: number;
  pacedTaskRate: number;
  before: CpuSample;
  after: CpuSample;
  triggerMs: number;
  loadDuring: number[];
  alerts: Alert[];
  completed: boolean;
  probe: Probe;
  /** of the instances without output when their run ended: how many still had none at the end of the paced phase, and after the workers stopped (and flushed) */
  missingLater: { afterPaced?: number; afterStop?: number };
  /** event-loop delay over the burst, per process (ms) */
  schedulerLoops: (LoopDelay | undefined)[];
  workerLoops: (LoopDelay | undefined)[];
}

interface Alert {
  at: number;
  actor: string;
  detail: string | null;
}

/** Starts the team, runs the burst and the paced phase, stops the team and cleans up. */
async function teamPhases(size: LoadSize, options: BenchOptions): Promise<LoadResult> {
  const { workflows, tasksPerWorkflow, width, pacedSeconds } = size;
  const total = workflows * tasksPerWorkflow;
  const mariadbPid = findProcess(['mariadbd', 'mysqld']);
  const redisPid = findProcess(['redis-server'], `:${new URL(REDIS_URL).port || '6379'}`);
  let team: Team | undefined;
  let db: mysql.Connection | undefined;
  let probeDb: mysql.Connection | undefined;
  // Instances whose output line was missing when their run ended, looked for again later.
  const missing: number[] = [];
  const missingLater: { afterPaced?: number; afterStop?: number } = {};
  const stillMissing = async (conn: mysql.Connection): Promise<number> => {
    if (missing.length === 0) return 0;
    const [found] = await conn.query<mysql.RowDataPacket[]>(
      `select count(distinct instance_id) as n from execution_log where instance_id in (${missing.join(',')})`,
    );
    return missing.length - Number(found[0]?.n ?? 0);
  };
  const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  try {
    team = await startTeam(options);
    const t = team;
    db = await mysql.createConnection({ uri: t.dbUrl, supportBigNumbers: true, bigNumberStrings: false });
    probeDb = await mysql.createConnection({ uri: t.dbUrl });
    const probe = new Probe(probeDb, redis);
    const shapes = Array.from({ length: workflows }, (_, w) =>
      layeredWorkflow(`load-${w}`, tasksPerWorkflow, width, 1_000 + w, COMMAND),
    );
    for (const s of shapes) await t.client.apply(s.spec, 'bench');
    const pacedShape = layeredWorkflow('paced', 10, 5, 7, COMMAND);
    await t.client.apply(pacedShape.spec, 'bench');
    const roots = new Set(shapes[0]?.layers[0] ?? []);
    const edges = shapes.reduce((n, s) => n + s.edges, 0);
    options.progress(
      `team-load: applied ${workflows} workflows × ${tasksPerWorkflow} tasks (${edges} edges), triggering all`,
    );
    // Let the nodes settle (start-up recovery, first heartbeats) before the CPU baseline.
    await sleep(2_000);

    const sample = (): CpuSample => ({
      at: performance.now(),
      schedulerWait: t.schedulers.map((s) => runQueueWaitNs(s.pid)),
      workerWait: t.workers.map((w) => runQueueWaitNs(w.pid)),
      schedulers: t.schedulers.map((s) => cpuTicks(s.pid)),
      workers: t.workers.map((w) => cpuTicks(w.pid)),
      mariadb: mariadbPid ? cpuTicks(mariadbPid) : undefined,
      redis: redisPid ? cpuTicks(redisPid) : undefined,
    });
    const loadDuring: number[] = [];
    const loadTimer = setInterval(() => loadDuring.push(os.loadavg()[0] as number), 5_000);
    await probe.start();
    await Promise.all([...t.schedulers, ...t.workers].map((proc) => proc.loopDelay()));
    const before = sample();
    const t0 = Date.now();
    const runIds: number[] = [];
    for (const s of shapes) runIds.push((await t.client.runWorkflow(s.spec.name, { actor: 'bench' })).id);
    const triggerMs = Date.now() - t0;
    let completed = await waitRuns(db, runIds, total, (options.quick ? 5 : 20) * 60_000, options, 'burst');
    const after = sample();
    const loops = await Promise.all([...t.schedulers, ...t.workers].map((proc) => proc.loopDelay()));
    clearInterval(loadTimer);
    await probe.stop();
    const burst = await phaseFigures(db, runIds, tasksPerWorkflow, roots, t0, WORKERS * WORKER_CONCURRENCY);
    if (!completed) options.progress('team-load: burst: time is up; what did not end counts as lost');

    // Paced: small runs at about a third of the burst's throughput, for latency without a queue.
    const burstRate = burst.succeededTasks / (burst.wallMs / 1000);
    const pacedTaskRate = Math.max(1, burstRate / 3);
    const intervalMs = (pacedShape.spec.tasks.length / pacedTaskRate) * 1000;
    options.progress(
      `team-load: paced: one run of 10 tasks every ${fmt(intervalMs, 0)} ms for ${pacedSeconds} s (${fmt(pacedTaskRate, 1)} tasks/s)`,
    );
    const p0 = Date.now();
    const pacedIds: number[] = [];
    while (Date.now() - p0 < pacedSeconds * 1000) {
      const due = p0 + pacedIds.length * intervalMs;
      if (due > Date.now()) await sleep(due - Date.now());
      pacedIds.push((await t.client.runWorkflow('paced', { actor: 'bench' })).id);
    }
    completed = (await waitRuns(db, pacedIds, pacedIds.length * 10, 5 * 60_000, options, 'paced')) && completed;
    const paced = await phaseFigures(
      db,
      pacedIds,
      10,
      new Set(pacedShape.layers[0] ?? []),
      p0,
      WORKERS * WORKER_CONCURRENCY,
    );
    const [alertRows] = await db.query<mysql.RowDataPacket[]>(
      `select at, actor, detail from audit_log where action = 'alert' order by id`,
    );
    missing.push(...burst.missingOutput.map((i) => i.id), ...paced.missingOutput.map((i) => i.id));
    missingLater.afterPaced = await stillMissing(db);
    if (
      burst.missingOutput.length +
        paced.missingOutput.length +
        burst.duplicates +
        paced.duplicates +
        burst.lost +
        paced.lost >
      0
    ) {
      for (const proc of [...t.schedulers, ...t.workers])
        options.progress(`team-load: output of ${proc.name}:\n${proc.tail.join('\n')}`);
    }
    return {
      burst,
      paced,
      pacedRuns: pacedIds.length,
      pacedTaskRate,
      before,
      after,
      triggerMs,
      loadDuring,
      alerts: alertRows as Alert[],
      completed,
      probe,
      missingLater,
      schedulerLoops: loops.slice(0, t.schedulers.length),
      workerLoops: loops.slice(t.schedulers.length),
    };
  } finally {
    await probeDb?.end().catch(() => undefined);
    redis.disconnect();
    await stopTeam(team, options, async () => {
      if (db) missingLater.afterStop = await stillMissing(db);
    });
    await db?.end().catch(() => undefined);
  }
}

export async function benchTeamLoad(options: BenchOptions): Promise<BenchTable> {
  if (!(await mysqlAvailable()) || !(await redisAvailable())) {
    throw new Error(
      'team-load needs MariaDB/MySQL and Redis (AX_TEST_MYSQL_URL, default mysql://root@127.0.0.1:3306; AX_TEST_REDIS_URL, default redis://127.0.0.1:6379)',
    );
  }
  const workflows = options.quick ? 3 : 12;
  const tasksPerWorkflow = options.quick ? 100 : 200;
  const width = 20;
  const total = workflows * tasksPerWorkflow;
  const pacedSeconds = options.quick ? 15 : 40;
  const rawTotal = options.quick ? 150 : 500;
  const shell = engineShell();
  const slots = WORKERS * WORKER_CONCURRENCY;

  options.progress(
    `team-load: raw spawn, ${shell} -c true: ${WORKERS} processes × ${WORKER_CONCURRENCY} at a time (before)`,
  );
  const rawParallelBefore = await rawRate(shell, WORKERS, rawTotal, WORKER_CONCURRENCY);
  options.progress(`team-load: raw spawn: 1 process × ${slots} at a time`);
  const rawOneWide = await rawSpawnRate(shell, rawTotal, slots);
  options.progress(`team-load: raw spawn: 1 process × ${SOLO_CONCURRENCY} at a time`);
  const rawSolo = await rawSpawnRate(shell, rawTotal, SOLO_CONCURRENCY);

  const {
    burst,
    paced,
    pacedRuns,
    pacedTaskRate,
    before,
    after,
    triggerMs,
    loadDuring,
    alerts,
    completed,
    probe,
    missingLater,
    schedulerLoops,
    workerLoops,
  } = await teamPhases({ workflows, tasksPerWorkflow, width, pacedSeconds }, options);

  options.progress(
    `team-load: solo engine, ${total} independent true tasks (bench/solo-throughput.ts engineThroughput)`,
  );
  const solo = await engineThroughput(total);
  options.progress(`team-load: raw spawn, ${WORKERS} processes × ${WORKER_CONCURRENCY} at a time (after)`);
  const rawParallelAfter = await rawRate(shell, WORKERS, rawTotal, WORKER_CONCURRENCY);

  const wallS = burst.wallMs / 1000;
  const cpuS = (now: CpuTicks | undefined, then: CpuTicks | undefined, k: keyof CpuTicks) =>
    now && then ? (now[k] - then[k]) / CLK_TCK : NaN;
  const pct = (seconds: number) => `${fmt((seconds / wallS) * 100, 0)} %`;
  const schedulerCpu = before.schedulers.map((b, i) => cpuS(after.schedulers[i], b, 'self'));
  const workerCpu = before.workers.map((b, i) => cpuS(after.workers[i], b, 'self'));
  const taskCpu = before.workers.map((b, i) => cpuS(after.workers[i], b, 'children'));
  const sum = (v: number[]) => v.reduce((a, b) => a + b, 0);
  const teamRate = burst.succeededTasks / wallS;
  const soloRate = solo.tasks / (solo.totalMs / 1000);
  const rawParallel = (rawParallelBefore + rawParallelAfter) / 2;
  const alertKinds = new Map<string, number>();
  for (const a of alerts) {
    const kind = (a.detail ?? '').replace(/\d+/g, 'N').slice(0, 80);
    alertKinds.set(kind, (alertKinds.get(kind) ?? 0) + 1);
  }
  const buckets = burst.buckets;
  // "no longer owns" alerts about instances that the same worker had itself just finished SUCCESS.
  const notOwned = alerts.filter((a) => /no longer owns the instance/.test(a.detail ?? ''));
  const lateBy: number[] = [];
  for (const a of notOwned) {
    const m = /^instance (\d+) attempt (\d+):/.exec(a.detail ?? '');
    const inst = m ? (burst.instancesById.get(Number(m[1])) ?? paced.instancesById.get(Number(m[1]))) : undefined;
    if (
      inst &&
      inst.state === 'SUCCESS' &&
      inst.attempt === Number(m?.[2]) &&
      a.actor.startsWith(`${inst.worker_id}:`) &&
      inst.finished_at !== null
    ) {
      lateBy.push(a.at - inst.finished_at);
    }
  }
  const waitPct = (now: number | undefined, then: number | undefined) =>
    now !== undefined && then !== undefined ? `${fmt(((now - then) / 1e9 / wallS) * 100, 0)} %` : '?';
  const loopText = (l: LoopDelay | undefined) => (l ? `${fmt(l.p50, 0)} / ${fmt(l.p99, 0)} / ${fmt(l.max, 0)}` : '?');
  const perWorker = (m: Map<string, number>) =>
    [...m]
      .sort()
      .map(([w, n]) => `${w} ${n}`)
      .join(', ');

  return {
    title: `Team-mode load: ${SCHEDULERS} schedulers (--no-work) + ${WORKERS} workers × ${WORKER_CONCURRENCY}, ${workflows} workflows × ${tasksPerWorkflow} \`${COMMAND}\` tasks (${total} tasks), MariaDB + Redis`,
    columns: ['figure', 'value'],
    rows: [
      [
        'tasks (burst): SUCCESS / expected',
        `${burst.succeededTasks} / ${burst.expectedTasks} (${burst.instances} instances)`,
      ],
      ['runs (burst): SUCCESS / triggered', `${burst.runsSucceeded} / ${burst.runs}`],
      ['wall time, first trigger → last run ended (s)', fmt(wallS, 1)],
      ['**throughput (tasks/s)**', fmt(teamRate, 1)],
      [
        'throughput per 10 s, min / median / max (tasks/s)',
        buckets.length > 0
          ? `${fmt(Math.min(...buckets), 1)} / ${fmt(percentile(buckets, 0.5), 1)} / ${fmt(Math.max(...buckets), 1)}`
          : '–',
      ],
      ['dispatch latency WAITING → RUNNING, p50 / p99 (ms), burst', p50p99(burst.toRunning)],
      ['  of which WAITING → DISPATCHED, p50 / p99 (ms)', p50p99(burst.toDispatched)],
      ['  of which DISPATCHED → RUNNING, p50 / p99 (ms)', p50p99(burst.dispatchedToRunning)],
      [
        `dispatch latency WAITING → RUNNING, p50 / p99 (ms), paced (${pacedRuns} runs × 10 tasks at ${fmt(pacedTaskRate, 1)} tasks/s)`,
        p50p99(paced.toRunning),
      ],
      [
        '  paced, roots (run created by a client) / downstream, p50 / p99 (ms)',
        `${p50p99(paced.rootsToRunning)} · ${p50p99(paced.downstreamToRunning)}`,
      ],
      [
        '  paced, WAITING → DISPATCHED / DISPATCHED → RUNNING, p50 / p99 (ms)',
        `${p50p99(paced.toDispatched)} · ${p50p99(paced.dispatchedToRunning)}`,
      ],
      ['slot use: RUNNING time ÷ (wall time × 60 slots), burst', `${fmt(burst.slotUse * 100, 0)} %`],
      ['RUNNING → finished (spawn, command, log, outcome), p50 / p99 (ms), burst', p50p99(burst.running)],
      [
        '  of which RUNNING → its output line reached the worker (state write, spawn, shell), p50 / p99 (ms)',
        p50p99(burst.startToOutput),
      ],
      [
        '  of which output line → SUCCESS recorded (exit, log flush, outcome write), p50 / p99 (ms)',
        p50p99(burst.outputToFinish),
      ],
      [
        'RUNNING → finished, paced: total · RUNNING → output · output → SUCCESS, p50 / p99 (ms)',
        `${p50p99(paced.running)} · ${p50p99(paced.startToOutput)} · ${p50p99(paced.outputToFinish)}`,
      ],
      [
        'probe during the burst, p50 / p99 (ms): MariaDB select 1 · one-row commit · Redis PING · 0 ms timer lag',
        `${p50p99(probe.select, 1)} · ${p50p99(probe.commit, 1)} · ${p50p99(probe.ping, 1)} · ${p50p99(probe.timerLag, 1)}`,
      ],
      ['peak RUNNING per worker, burst', perWorker(burst.peakRunning)],
      [`peak DISPATCHED + RUNNING per worker (the dispatcher's load), burst`, perWorker(burst.peakActive)],
      [
        `dispatches to a worker that already had ${WORKER_CONCURRENCY} DISPATCHED + RUNNING, burst`,
        String(burst.overDispatched),
      ],
      [
        'scheduler CPU, both processes (% of one core over the wall time)',
        `${pct(sum(schedulerCpu))} (${schedulerCpu.map((s, i) => `s${i + 1} ${pct(s)}`).join(', ')})`,
      ],
      [
        'main thread waiting for a CPU (run queue, /proc/PID/schedstat), % of the wall time',
        `schedulers ${before.schedulerWait.map((b, i) => waitPct(after.schedulerWait[i], b)).join(', ')}; workers ${before.workerWait.map((b, i) => waitPct(after.workerWait[i], b)).join(', ')}`,
      ],
      [
        'event-loop delay over the burst, p50 / p99 / max (ms), per process',
        `schedulers ${schedulerLoops.map(loopText).join(' · ')}; workers ${workerLoops.map(loopText).join(' · ')}`,
      ],
      [
        'worker CPU, Node processes (sum of 3)',
        `${pct(sum(workerCpu))} (${workerCpu.map((s, i) => `w${i + 1} ${pct(s)}`).join(', ')})`,
      ],
      ['worker CPU, their task processes (sum of 3)', pct(sum(taskCpu))],
      [
        'mariadbd / redis-server CPU (shared with other users of this machine)',
        `${pct(cpuS(after.mariadb, before.mariadb, 'self'))} / ${pct(cpuS(after.redis, before.redis, 'self'))}`,
      ],
      ['log rows into MariaDB (rows, rows/s)', `${burst.logRows} (${fmt(burst.logRows / wallS, 1)}/s)`],
      [
        '**finished tasks without their output line** in execution_log (each `echo x` must leave one), burst + paced',
        `${burst.missingOutput.length + paced.missingOutput.length} when their run ended${burst.missingOutput.length + paced.missingOutput.length > 0 ? `; still missing after the paced phase ${missingLater.afterPaced ?? '?'}, after the workers stopped ${missingLater.afterStop ?? '?'}` : ''} (instances with more than one line: ${burst.extraOutput + paced.extraOutput})`,
      ],
      [
        '**duplicates** (a task with more than one SUCCESS in a run), burst + paced',
        String(burst.duplicates + paced.duplicates),
      ],
      [
        '**lost** (tasks with no SUCCESS + runs not SUCCESS), burst + paced',
        `${burst.lost + paced.lost} tasks, ${burst.runs - burst.runsSucceeded + paced.runs - paced.runsSucceeded} runs`,
      ],
      ['extra attempts (attempt > 1: retries, fail-overs)', String(burst.extraAttempts + paced.extraAttempts)],
      [
        `solo engine, ${solo.tasks} independent \`true\` tasks, concurrency ${SOLO_CONCURRENCY} (tasks/s)`,
        `${fmt(soloRate, 1)} (${solo.succeeded}/${solo.tasks} SUCCESS)`,
      ],
      [
        `raw spawn ${shell} -c true: ${WORKERS} processes × ${WORKER_CONCURRENCY} (before / after, tasks/s)`,
        `${fmt(rawParallel, 1)} (${fmt(rawParallelBefore, 1)} / ${fmt(rawParallelAfter, 1)})`,
      ],
      [
        `raw spawn: 1 process × ${slots} / 1 process × ${SOLO_CONCURRENCY} (tasks/s)`,
        `${fmt(rawOneWide, 1)} / ${fmt(rawSolo, 1)}`,
      ],
      ['**team ÷ solo**', `${fmt(teamRate / soloRate, 2)}×`],
      [`**team ÷ raw (${WORKERS} × ${WORKER_CONCURRENCY})**`, `${fmt((teamRate / rawParallel) * 100, 0)} %`],
      [`solo ÷ raw (1 × ${SOLO_CONCURRENCY})`, `${fmt((soloRate / rawSolo) * 100, 0)} %`],
    ],
    notes: [
      `scaled down from the issue's 20,000 tasks (3 schedulers, 10 workers × 20) to ${total} tasks on ${SCHEDULERS} + ${WORKERS} × ${WORKER_CONCURRENCY} for a 2-core machine${completed ? '' : '; NOT COMPLETED: the time ran out, so lost counts what had not ended'}`,
      `each workflow is a layered DAG of ${tasksPerWorkflow} tasks, ${width} per layer, 1–3 upstreams each; all ${workflows} runs triggered through a client engine (as \`ax run\` does) in ${fmt(triggerMs, 0)} ms`,
      'latency is startedAt − max(notBefore, createdAt) of each instance; in the burst most of it is waiting for a free slot, so the paced phase is the one that shows the dispatch path itself',
      `the solo figure is bench/solo-throughput.ts's engineThroughput at the same task count (independent \`true\` tasks, one run, concurrency ${SOLO_CONCURRENCY}): a different shape, the same number of processes`,
      `CPU: utime + stime from /proc/PID/stat between the first trigger and the last run's end (${fmt(wallS, 1)} s); task processes are counted in their worker's cutime once reaped`,
      `load average (1 min) during the burst: ${loadDuring.length > 0 ? `${fmt(Math.min(...loadDuring))}–${fmt(Math.max(...loadDuring))}` : 'not sampled'} on ${os.cpus().length} CPUs`,
      `"no longer owns the instance" alerts (a worker killing a task it thinks was taken over): ${notOwned.length}, of which ${lateBy.length} about an instance that the same worker had itself finished SUCCESS in the attempt the alert names (never taken over), ${lateBy.length > 0 ? `${fmt(Math.min(...lateBy), 0)}–${fmt(Math.max(...lateBy), 0)} ms before the alert` : ''}`,
      ...[...burst.missingOutput, ...paced.missingOutput].map(
        (i) =>
          `no output row for instance ${i.id} (${i.task_name}, run ${i.run_id}, worker ${i.worker_id}): dispatched +${(i.dispatched_at ?? 0) - i.created_at} ms, started +${(i.started_at ?? 0) - i.created_at} ms, finished +${(i.finished_at ?? 0) - i.created_at} ms after it was created`,
      ),
      `alerts recorded (audit_log): ${alerts.length}${
        alertKinds.size > 0
          ? `: ${[...alertKinds]
              .slice(0, 5)
              .map(([k, n]) => `${n}× "${k}"`)
              .join('; ')}`
          : ''
      }`,
    ],
  };
}
