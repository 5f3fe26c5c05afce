// The phases of the team-load benchmark (bench/team-load.ts): the team started, the burst of
// runs, the paced phase at about a third of the measured throughput, the team stopped.
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import { REDIS_URL } from '../test/helpers/services.ts';
import { type BenchOptions, fmt, layeredWorkflow } from './util.ts';
import {
  COMMAND,
  WORKERS,
  WORKER_CONCURRENCY,
  cpuTicks,
  findProcess,
  runQueueWaitNs,
  sleep,
} from './team-load-common.ts';
import { type CpuSample, Probe, type Team, startTeam, stopTeam, waitRuns } from './team-load-team.ts';
import { type LoopDelay } from './team-load-process.ts';
import { type PhaseFigures, phaseFigures } from './team-load-figures.ts';

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
export async function teamPhases(size: LoadSize, options: BenchOptions): Promise<LoadResult> {
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
      `select count(distinct instance_id) as n from execution_log_chunk where instance_id in (${missing.join(',')})`,
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
