// The team-load figures (bench/team-load.ts), read from the database once every run has ended:
// throughput, dispatch latency, log rows, duplicates and lost tasks.
import type mysql from 'mysql2/promise';
import { type BenchDb, benchDbOf } from './team-load-db.ts';
import { fmt, percentile } from './util.ts';
import { WORKER_CONCURRENCY } from './team-load-common.ts';

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

export interface PhaseFigures {
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
  database: BenchDb | mysql.Connection,
  runIds: number[],
  tasksPerRun: number,
  roots: Set<string>,
  t0: number,
  slots: number,
): Promise<PhaseFigures> {
  const db = benchDbOf(database);
  const ids = runIds.join(',');
  const runs = await db.rows(`select id, state, created_at, finished_at from workflow_run where id in (${ids})`);
  const rows = await db.rows(
    `select id, run_id, task_id, task_name, attempt, state, worker_id, not_before, created_at, dispatched_at, started_at, finished_at from task_instance where run_id in (${ids})`,
  );
  const logs = await db.rows(
    `select coalesce(sum(l.lines_count), 0) as n from execution_log_chunk l join task_instance i on i.id = l.instance_id where i.run_id in (${ids})`,
  );
  const firstLines = await db.rows(
    // logs are chunks (issue 26 part 5): the first line's time and the line count per instance, any stream
    `select l.instance_id as id, min(l.ts_first) as ts, sum(l.lines_count) as n from execution_log_chunk l join task_instance i on i.id = l.instance_id where i.run_id in (${ids}) group by l.instance_id`,
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
