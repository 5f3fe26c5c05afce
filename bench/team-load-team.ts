// The team of the team-load benchmark (bench/team-load.ts): schedulers and workers as `ax serve`
// processes on a fresh database and Redis prefix, waiting for runs, and the probe that times
// MariaDB/Redis round trips and samples the processes' CPU.
import fs from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Redis } from 'ioredis';
import mysql from 'mysql2/promise';
import type { Engine } from '../engine/core/engine.ts';
import { openTeamEngine } from '../engine/hosts/node/team.ts';
import {
  createPostgresDatabase,
  createTestDatabase,
  deleteRedisPrefix,
  REDIS_URL,
  uniqueName,
} from '../test/helpers/services.ts';
import { buildBundle } from '../test/helpers/team/team-process.ts';
import { type BenchOptions, fmt } from './util.ts';
import { AxProcess } from './team-load-process.ts';
import { type BenchDb, benchDbOf } from './team-load-db.ts';
import {
  type CpuTicks,
  FINAL_RUN,
  LOOP_MONITOR,
  MARK,
  SCHEDULERS,
  WORKERS,
  WORKER_CONCURRENCY,
  killMarked,
  sleep,
} from './team-load-common.ts';

export interface Team {
  id: string;
  prefix: string;
  dbUrl: string;
  /** the flag that names the team database to `ax`: --mysql, or --postgres */
  dbFlag: '--mysql' | '--postgres';
  dropDatabase: () => Promise<void>;
  bundle: string;
  client: Engine;
  schedulers: AxProcess[];
  workers: AxProcess[];
}

/**
 * A team on a fresh database (MariaDB unless `database` says postgres) and Redis prefix: the shape
 * is this benchmark's unless given.
 */
export async function startTeam(
  options: BenchOptions,
  shape = { schedulers: SCHEDULERS, workers: WORKERS },
  database: 'mysql' | 'postgres' = 'mysql',
): Promise<Team> {
  const id = uniqueName('ax_bench_load');
  const prefix = `${id}:`;
  options.progress('team-load: bundling ax from the current sources');
  const bundle = await buildBundle();
  const db = await (database === 'postgres' ? createPostgresDatabase : createTestDatabase)('ax_bench_load');
  const dbFlag = database === 'postgres' ? '--postgres' : '--mysql';
  let client: Engine;
  try {
    // The client engine migrates the fresh database before any node starts, so none race to.
    client = await openTeamEngine({
      mysqlUrl: db.url,
      redisUrl: REDIS_URL,
      redisPrefix: prefix,
      role: 'client',
      onAlert: (m) => options.progress(`team-load client alert: ${m}`),
    });
  } catch (err) {
    await db.drop();
    fs.rmSync(bundle, { force: true });
    throw err;
  }
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AX_')) env[k] = v;
  Object.assign(env, { NO_COLOR: '1', [MARK]: id });
  const profDir = process.env.AX_BENCH_CPU_PROF;
  const nodeArgs = ['--import', LOOP_MONITOR, ...(profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [])];
  const base = [bundle, '--mode', 'team', dbFlag, db.url, '--redis', REDIS_URL, '--redis-prefix', prefix, 'serve'];
  const team: Team = {
    id,
    prefix,
    dbUrl: db.url,
    dbFlag,
    dropDatabase: () => db.drop(),
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
    `team-load: started ${shape.schedulers} scheduler(s) and ${shape.workers} workers (db ${db.name}, prefix ${prefix})`,
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
  database: BenchDb | mysql.Connection,
  runIds: number[],
  expectedTasks: number,
  timeoutMs: number,
  options: BenchOptions,
  label: string,
): Promise<boolean> {
  const db = benchDbOf(database);
  const ids = runIds.join(',');
  const t0 = Date.now();
  let lastReport = t0;
  for (;;) {
    const open = await db.rows(
      `select count(*) as n from workflow_run where id in (${ids}) and state not in (${FINAL_RUN.map((s) => `'${s}'`).join(',')})`,
    );
    if (Number(open[0]?.n) === 0) return true;
    if (Date.now() - t0 > timeoutMs) return false;
    if (Date.now() - lastReport >= 10_000) {
      lastReport = Date.now();
      const done = await db.rows(
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
export class Probe {
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

export interface CpuSample {
  at: number;
  /** run-queue wait of each process's main thread, ns */
  schedulerWait: (number | undefined)[];
  workerWait: (number | undefined)[];
  schedulers: (CpuTicks | undefined)[];
  workers: (CpuTicks | undefined)[];
  mariadb: CpuTicks | undefined;
  redis: CpuTicks | undefined;
}
