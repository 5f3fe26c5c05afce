// AX against the peer a Node user would pick for running commands off a queue: BullMQ with a
// worker that spawns the same command (`$SHELL -c true`, as the engine does) at the same
// concurrency, on the same Redis (a unique key prefix, deleted afterwards). Also against raw
// Node spawn in a small process. Every ratio comes from figures measured in the same run.
//
//   peer       solo: a file of independent `true` tasks through the real CLI, `ax run FILE
//              --wait --concurrency C`, timed end to end (process start to exit), for C = 8
//              and 20; raw spawn and BullMQ with one worker process at the same C
//   peer-team  team: `ax serve` as 1 scheduler (--no-work) + 2 workers × 20 on MariaDB + Redis,
//              one run of independent `true` tasks, against BullMQ with 2 worker processes × 20;
//              then small runs offered well below capacity, for the dispatch latency
//              WAITING → RUNNING when nothing is queued
//
// The BullMQ figures are a running service's: its worker processes are started and connected
// first, and the clock runs from adding the jobs to the last one completed. `ax run FILE` starts
// an engine of its own, so its time includes Node's start, opening the data dir and applying the
// file; the run's own span (created → finished, from `--json`) is printed beside it.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Queue } from 'bullmq';
import mysql from 'mysql2/promise';
import { PrivateRedis } from '../test/helpers/private-servers.ts';
import { deleteRedisPrefix, mysqlAvailable, REDIS_URL, redisAvailable, uniqueName } from '../test/helpers/services.ts';
import { phaseFigures, p50p99 } from './team-load-figures.ts';
import { startTeam, stopTeam, waitRuns } from './team-load-team.ts';
import { CLK_TCK, childrenOf, cpuTicks, findProcess } from './team-load-common.ts';
import {
  type BenchOptions,
  type BenchTable,
  fmt,
  layeredWorkflow,
  percentile,
  removeDir,
  tempDir,
  bundleIsFresh,
  engineShell,
} from './util.ts';

const REPO = fileURLToPath(new URL('..', import.meta.url));
const AX = path.join(REPO, 'bin', 'ax.mjs');
const CHILD = fileURLToPath(new URL('./peer-child.mjs', import.meta.url));
const QUEUE = 'peer';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * CPU per task of each group of processes over a burst (/proc/PID/stat, utime + stime): a
 * group's own time, or with `reaped` the time of the children it waited for (the tasks).
 * MariaDB and Redis are whole servers: anything else they serve meanwhile is in their figure.
 */
class CpuPerTask {
  /** each group's ticks per process at the start; a process that starts later counts from 0 */
  private readonly start: Map<number, number>[];

  constructor(private readonly groups: { name: string; pids: () => number[]; reaped?: boolean }[]) {
    this.start = groups.map((g) => this.ticks(g));
  }

  private ticks(g: { pids: () => number[]; reaped?: boolean }): Map<number, number> {
    const out = new Map<number, number>();
    for (const pid of g.pids()) {
      const t = cpuTicks(pid);
      if (t) out.set(pid, g.reaped ? t.children : t.self);
    }
    return out;
  }

  /** ms of CPU per task of each group since the start, and their sum */
  end(tasks: number): string {
    const ms = this.groups.map((g, i) => {
      let ticks = 0;
      for (const [pid, now] of this.ticks(g)) ticks += now - (this.start[i]?.get(pid) ?? 0);
      return (ticks / CLK_TCK / tasks) * 1000;
    });
    const parts = this.groups.map((g, i) => `${g.name} ${fmt(ms[i] as number, 2)}`);
    return `**${fmt(
      ms.reduce((a, b) => a + b, 0),
      2,
    )}** = ${parts.join(' + ')}`;
  }
}

/** The PIDs of the machine's MariaDB/MySQL server and of the Redis server at REDIS_URL (whichever are found). */
function serverPids(): { mariadb: number[]; redis: number[] } {
  const mariadb = findProcess(['mariadbd', 'mysqld']);
  const redis = findProcess(['redis-server'], `:${new URL(REDIS_URL).port || '6379'}`);
  return { mariadb: mariadb ? [mariadb] : [], redis: redis ? [redis] : [] };
}

/** The engine's shell for task commands (its process runner uses $SHELL, else /bin/sh). */
// ---------------------------------------------------------------------------------------------
// child processes (bench/peer-child.mjs)

class Child {
  readonly process: ChildProcess;
  private readonly queue: string[] = [];
  private wake: (() => void) | undefined;

  constructor(args: string[]) {
    this.process = spawn(process.execPath, [CHILD, ...args], { cwd: REPO, stdio: ['pipe', 'pipe', 'inherit'] });
    readline
      .createInterface({ input: this.process.stdout as NodeJS.ReadableStream })
      .on('line', (l) => (this.queue.push(l), this.wake?.()));
    this.process.on('close', () => this.wake?.());
  }

  async line(): Promise<string> {
    while (this.queue.length === 0) {
      if (this.process.exitCode !== null) throw new Error(`peer-child exited ${this.process.exitCode}`);
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
    return this.queue.shift() as string;
  }

  async ready(): Promise<void> {
    const line = await this.line();
    if (line !== 'ready') throw new Error(`peer-child said ${line}, not ready`);
  }

  go(): void {
    this.process.stdin?.write('go\n');
  }

  async end(): Promise<void> {
    const closed = new Promise<void>((resolve) =>
      this.process.exitCode !== null ? resolve() : this.process.once('close', () => resolve()),
    );
    this.process.stdin?.end();
    const timer = setTimeout(() => this.process.kill('SIGKILL'), 30_000);
    await closed;
    clearTimeout(timer);
  }
}

/** Raw spawn in `processes` small Node processes at once, `concurrency` at a time each: tasks/s. */
export async function rawRate(shell: string, processes: number, total: number, concurrency: number): Promise<number> {
  const children = Array.from(
    { length: processes },
    () => new Child(['raw', shell, String(Math.round(total / processes)), String(concurrency)]),
  );
  await Promise.all(children.map((c) => c.ready()));
  for (const c of children) c.go();
  const results = await Promise.all(
    children.map(async (c) => JSON.parse(await c.line()) as { start: number; end: number; total: number }),
  );
  await Promise.all(children.map((c) => c.end()));
  const start = Math.min(...results.map((r) => r.start));
  const end = Math.max(...results.map((r) => r.end));
  return results.reduce((n, r) => n + r.total, 0) / ((end - start) / 1000);
}

/** BullMQ with `processes` worker processes × `concurrency`: tasks/s from adding `total` jobs to the last completed. */
async function bullmqRate(
  shell: string,
  processes: number,
  total: number,
  concurrency: number,
  redis: { url: string; pid?: number } = { url: REDIS_URL },
): Promise<{ rate: number; cpu: string }> {
  const prefix = uniqueName('axb_peer');
  const url = new URL(redis.url);
  const queue = new Queue(QUEUE, { connection: { host: url.hostname, port: Number(url.port || 6379) }, prefix });
  const workers = Array.from(
    { length: processes },
    () => new Child(['bullmq', shell, redis.url, prefix, QUEUE, String(concurrency)]),
  );
  try {
    await queue.waitUntilReady();
    await Promise.all(workers.map((w) => w.ready()));
    for (const w of workers) w.go();
    const pids = workers.map((w) => w.process.pid ?? 0);
    const redisPids = redis.pid ? [redis.pid] : serverPids().redis;
    const cpu = new CpuPerTask([
      { name: 'workers', pids: () => pids },
      { name: 'tasks', pids: () => pids, reaped: true },
      { name: 'Redis', pids: () => redisPids },
    ]);
    const t0 = performance.now();
    await queue.addBulk(Array.from({ length: total }, (_, i) => ({ name: 'true', data: { i } })));
    for (;;) {
      const counts = await queue.getJobCounts('completed', 'failed');
      if ((counts.failed ?? 0) > 0) throw new Error(`BullMQ: ${counts.failed} job(s) failed`);
      if ((counts.completed ?? 0) >= total) break;
      await sleep(20);
    }
    const rate = total / ((performance.now() - t0) / 1000);
    return { rate, cpu: cpu.end(total) };
  } finally {
    await Promise.all(workers.map((w) => w.end()));
    await queue.close();
    await deleteRedisPrefix(prefix, redis.url);
  }
}

// ---------------------------------------------------------------------------------------------
// solo

interface AxRun {
  /** process start to exit */
  totalMs: number;
  /** the run's own span: created → finished */
  runMs: number;
  succeeded: number;
}

function workflowFile(dir: string, name: string, tasks: number): string {
  const lines = [`workflow: ${name}`, 'tasks:'];
  for (let i = 0; i < tasks; i++) lines.push(`  t${i}:`, `    command: 'true'`);
  const file = path.join(dir, `${name}.yaml`);
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** `ax run FILE --wait --concurrency C --json` on a fresh data dir, timed from spawn to exit. */
async function axRun(tasks: number, concurrency: number): Promise<AxRun> {
  const dir = tempDir('ax-bench-peer-');
  try {
    const file = workflowFile(dir, 'peer', tasks);
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AX_')) env[k] = v;
    const t0 = performance.now();
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [AX, '--data-dir', path.join(dir, 'data'), '--json', 'run', file, '--wait', '--concurrency', String(concurrency)],
      {
        cwd: dir,
        env,
        maxBuffer: 64 << 20,
        timeout: 30 * 60_000,
      },
    );
    const totalMs = performance.now() - t0;
    const detail = JSON.parse(stdout) as {
      run: { state: string; createdAt: number; finishedAt?: number };
      instances: { state: string }[];
    };
    if (detail.run.state !== 'SUCCESS') throw new Error(`ax run ended ${detail.run.state}`);
    return {
      totalMs,
      runMs: (detail.run.finishedAt ?? NaN) - detail.run.createdAt,
      succeeded: detail.instances.filter((i) => i.state === 'SUCCESS').length,
    };
  } finally {
    removeDir(dir);
  }
}

export async function benchPeerSolo(options: BenchOptions): Promise<BenchTable> {
  if (!(await redisAvailable()))
    throw new Error('peer needs Redis for BullMQ (AX_TEST_REDIS_URL, default redis://127.0.0.1:6379)');
  const tasks = options.quick ? 100 : 2_000;
  const shell = engineShell();
  const bundled = bundleIsFresh(REPO);
  const rows: string[][] = [];
  const notes: string[] = [];
  for (const concurrency of [8, 20]) {
    const at = `${tasks} × ${concurrency} at a time`;
    options.progress(`peer: raw spawn, ${at} (before)`);
    const rawBefore = await rawRate(shell, 1, tasks, concurrency);
    options.progress(`peer: ax run FILE --wait --concurrency ${concurrency}, ${tasks} tasks`);
    const ax = await axRun(tasks, concurrency);
    options.progress(`peer: BullMQ + spawn, ${at}`);
    const bull = (await bullmqRate(shell, 1, tasks, concurrency)).rate;
    options.progress(`peer: raw spawn, ${at} (after)`);
    const rawAfter = await rawRate(shell, 1, tasks, concurrency);
    const raw = (rawBefore + rawAfter) / 2;
    const axRate = tasks / (ax.totalMs / 1000);
    rows.push(
      [
        `${concurrency}`,
        `raw spawn, one small Node process (before / after)`,
        `${fmt(raw, 0)} (${fmt(rawBefore, 0)} / ${fmt(rawAfter, 0)})`,
        '',
      ],
      [`${concurrency}`, 'BullMQ + spawn, 1 worker process', fmt(bull, 0), ''],
      [
        `${concurrency}`,
        `**ax run FILE --wait**, end to end (${ax.succeeded}/${tasks} SUCCESS)`,
        fmt(axRate, 0),
        `${fmt(ax.totalMs / 1000, 1)} s`,
      ],
      [
        `${concurrency}`,
        '  the run alone (created → finished)',
        fmt(tasks / (ax.runMs / 1000), 0),
        `${fmt(ax.runMs / 1000, 1)} s`,
      ],
      [
        `${concurrency}`,
        '**ax ÷ raw** (goal ≥ 0.9×) · **ax ÷ BullMQ** (goal ≥ 1.1×)',
        `${fmt(axRate / raw, 2)}× · ${fmt(axRate / bull, 2)}×`,
        '',
      ],
    );
  }
  notes.push(
    `every task is \`${shell} -c true\` (the engine's shell: $SHELL, else /bin/sh), spawned detached with stdout and stderr piped, done at 'close', in all three`,
    `ax: \`node bin/ax.mjs --data-dir NEW run FILE --wait --concurrency C --json\`, ${bundled ? 'which ran the bundle dist/ax.mjs (fresh)' : 'which ran the TypeScript sources through tsx (dist/ax.mjs older than engine/)'}; its time includes Node's start, the data dir's creation and applying the ${tasks}-task file`,
    'BullMQ: worker processes started and connected before the clock starts; timed from addBulk to the last job completed (polled every 20 ms); raw: spawning only',
    `load average at the end: ${os
      .loadavg()
      .map((l) => fmt(l))
      .join(' ')}`,
  );
  return {
    title: `Solo against the peer: ${tasks} independent \`true\` tasks`,
    columns: ['concurrency', 'what', 'tasks/s', 'wall'],
    rows,
    notes,
  };
}

// ---------------------------------------------------------------------------------------------
// team

export async function benchPeerTeam(options: BenchOptions): Promise<BenchTable> {
  if (!(await mysqlAvailable()) || !(await redisAvailable())) {
    throw new Error(
      'peer-team needs MariaDB/MySQL and Redis (AX_TEST_MYSQL_URL, default mysql://root@127.0.0.1:3306; AX_TEST_REDIS_URL, default redis://127.0.0.1:6379)',
    );
  }
  const tasks = options.quick ? 100 : 2_000;
  const workers = 2;
  const concurrency = 20;
  const pacedSeconds = options.quick ? 10 : 60;
  const shell = engineShell();

  options.progress(`peer-team: raw spawn, ${workers} processes × ${concurrency}`);
  const raw = await rawRate(shell, workers, tasks, concurrency);
  options.progress(`peer-team: BullMQ + spawn, ${workers} worker processes × ${concurrency} (before)`);
  const bullBefore = await bullmqRate(shell, workers, tasks, concurrency);

  const team = await startTeam(options, { schedulers: 1, workers });
  let db: mysql.Connection | undefined;
  const loadDuring: number[] = [];
  const loadTimer = setInterval(() => loadDuring.push(os.loadavg()[0] as number), 5_000);
  try {
    db = await mysql.createConnection(team.dbUrl);
    const independent = layeredWorkflow('independent', tasks, tasks, 1).spec;
    // 10 tasks, two layers of 5: roots (created by the client) and downstream (by the worker that finished an upstream)
    const paced = layeredWorkflow('paced', 10, 5, 2);
    await team.client.apply(independent, 'bench');
    await team.client.apply(paced.spec, 'bench');

    options.progress(`peer-team: ax, one run of ${tasks} independent true tasks`);
    const servers = serverPids();
    const workerPids = team.workers.map((w) => w.pid);
    const launchers = () => childrenOf(workerPids);
    const axCpu = new CpuPerTask([
      { name: 'scheduler', pids: () => team.schedulers.map((p) => p.pid) },
      { name: 'workers', pids: () => workerPids },
      { name: 'launchers', pids: launchers },
      { name: 'tasks', pids: launchers, reaped: true },
      { name: 'MariaDB', pids: () => servers.mariadb },
      { name: 'Redis', pids: () => servers.redis },
    ]);
    const t0 = Date.now();
    const runId = (await team.client.runWorkflow('independent', { actor: 'bench' })).id;
    const completed = await waitRuns(db, [runId], tasks, 20 * 60_000, options, 'burst');
    const burst = await phaseFigures(db, [runId], tasks, new Set(), t0, workers * concurrency);
    const axRate = burst.succeededTasks / (burst.wallMs / 1000);
    const axCpuPerTask = axCpu.end(tasks);

    // Offered at a tenth of the burst's rate, so a run's tasks find free slots.
    const intervalMs = Math.max(200, (10 / Math.max(1, axRate / 10)) * 1000);
    options.progress(`peer-team: paced: one run of 10 tasks every ${fmt(intervalMs, 0)} ms for ${pacedSeconds} s`);
    const p0 = Date.now();
    const pacedIds: number[] = [];
    while (Date.now() - p0 < pacedSeconds * 1000) {
      const due = p0 + pacedIds.length * intervalMs;
      if (due > Date.now()) await sleep(due - Date.now());
      pacedIds.push((await team.client.runWorkflow('paced', { actor: 'bench' })).id);
    }
    const pacedDone = await waitRuns(db, pacedIds, pacedIds.length * 10, 5 * 60_000, options, 'paced');
    const pacedFigures = await phaseFigures(
      db,
      pacedIds,
      10,
      new Set(paced.layers[0] ?? []),
      p0,
      workers * concurrency,
    );
    clearInterval(loadTimer);
    await db.end();
    db = undefined;
    await stopTeam(team, options, async () => undefined);

    options.progress(`peer-team: BullMQ + spawn, ${workers} worker processes × ${concurrency} (after)`);
    const bullAfter = await bullmqRate(shell, workers, tasks, concurrency);
    // ax's every state change is an InnoDB commit, fsynced; the shared Redis here keeps nothing on
    // disk. BullMQ as durable: on a Redis that fsyncs its append-only file on every write.
    options.progress(`peer-team: BullMQ + spawn on a Redis with appendfsync always`);
    const durable = await PrivateRedis.start({ durable: true });
    let bullDurable: { rate: number; cpu: string };
    try {
      bullDurable = await bullmqRate(shell, workers, tasks, concurrency, { url: durable.url, pid: durable.pid });
    } finally {
      await durable.remove();
    }
    const bull = (bullBefore.rate + bullAfter.rate) / 2;
    const p99 = pacedFigures.toRunning.length > 0 ? percentile(pacedFigures.toRunning, 0.99) : NaN;
    return {
      title: `Team against the peer: 1 scheduler (--no-work) + ${workers} workers × ${concurrency}, ${tasks} independent \`true\` tasks, MariaDB + Redis`,
      columns: ['figure', 'value'],
      rows: [
        ['raw spawn, 2 small Node processes × 20 (tasks/s)', fmt(raw, 0)],
        [
          'BullMQ + spawn, 2 worker processes × 20 (before / after, tasks/s)',
          `${fmt(bull, 0)} (${fmt(bullBefore.rate, 0)} / ${fmt(bullAfter.rate, 0)})`,
        ],
        [
          `**ax team** (tasks/s): one run, trigger → run finished (${burst.succeededTasks}/${tasks} SUCCESS${completed ? '' : ', NOT COMPLETED'})`,
          `${fmt(axRate, 0)} (${fmt(burst.wallMs / 1000, 1)} s)`,
        ],
        ['**ax ÷ BullMQ** (goal ≥ 1.0×) · ax ÷ raw', `${fmt(axRate / bull, 2)}× · ${fmt(axRate / raw, 2)}×`],
        [
          "BullMQ + spawn on a Redis that fsyncs every write (appendfsync always: durable as ax's commits), tasks/s · ax ÷ it",
          `${fmt(bullDurable.rate, 0)} · ${fmt(axRate / bullDurable.rate, 2)}×`,
        ],
        [
          'CPU ms per task, BullMQ (before · after): its worker processes + the tasks + Redis',
          `${bullBefore.cpu} · ${bullAfter.cpu}`,
        ],
        ['CPU ms per task, BullMQ on the fsyncing Redis', bullDurable.cpu],
        ['CPU ms per task, ax (burst): its processes + the tasks + MariaDB + Redis', axCpuPerTask],
        [
          `**dispatch latency WAITING → RUNNING, not queued, p99** (goal < 50 ms): ${pacedIds.length} runs × 10 tasks, p50 / p99 (ms)`,
          `${p50p99(pacedFigures.toRunning)}${pacedDone ? '' : ' (NOT COMPLETED)'}`,
        ],
        [
          '  roots (created by the client) · downstream (created by the worker), p50 / p99 (ms)',
          `${p50p99(pacedFigures.rootsToRunning)} · ${p50p99(pacedFigures.downstreamToRunning)}`,
        ],
        [
          '  WAITING → DISPATCHED · DISPATCHED → RUNNING, p50 / p99 (ms)',
          `${p50p99(pacedFigures.toDispatched)} · ${p50p99(pacedFigures.dispatchedToRunning)}`,
        ],
        ['dispatch latency in the burst (queued), p50 / p99 (ms)', p50p99(burst.toRunning)],
        [
          'peak RUNNING per worker, burst',
          [...burst.peakRunning]
            .sort()
            .map(([w, n]) => `${w} ${n}`)
            .join(', '),
        ],
        [
          'duplicates · lost · extra attempts (burst + paced)',
          `${burst.duplicates + pacedFigures.duplicates} · ${burst.lost + pacedFigures.lost} · ${burst.extraAttempts + pacedFigures.extraAttempts}`,
        ],
      ],
      notes: [
        `\`ax serve\` processes from bench/team-load.ts (an esbuild bundle of the current sources), run triggered through a client engine as \`ax run\` does in team mode; tasks run \`${shell} -c true\``,
        'BullMQ: its worker processes started and connected first; timed from addBulk to the last job completed; measured before and after the ax team, averaged',
        `latency: startedAt − max(notBefore, createdAt) of each instance, ${fmt(intervalMs, 0)} ms between runs (about a tenth of the burst rate); p99 ${Number.isNaN(p99) ? '?' : fmt(p99, 0)} ms`,
        `load average (1 min) during the ax team: ${loadDuring.length > 0 ? `${fmt(Math.min(...loadDuring))}–${fmt(Math.max(...loadDuring))}` : 'not sampled'} on ${os.cpus().length} CPUs`,
      ],
    };
  } finally {
    clearInterval(loadTimer);
    await db?.end().catch(() => undefined);
    if (team.workers.some((w) => w.running)) await stopTeam(team, options, async () => undefined);
  }
}
