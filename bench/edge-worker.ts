// `npm run bench -- --only edge-worker`: the same workload through a database worker and through
// an edge worker (issue 25 part 5), side by side. Each kind gets a fresh team (database, Redis
// prefix, `ax serve` processes from the current sources: a scheduler that runs nothing, one worker
// with the default 8 slots); one run of N independent `true` tasks; then, from the store:
// throughput (tasks / (last finish − run created)) and dispatch latency (an instance's start −
// its creation) p50 / p99. Printed, not asserted.
import type { InstanceRecord } from '../engine/api/types.ts';
import { Team, type WorkerKind } from '../test/helpers/team/harness.ts';
import { type BenchOptions, type BenchTable, fmt, percentile } from './util.ts';

interface KindFigures {
  kind: WorkerKind;
  tasks: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  /** from DISPATCHED (in the worker's queue) to RUNNING: the worker's own share */
  pickup50: number;
  pickup99: number;
}

async function measure(kind: WorkerKind, tasks: number, options: BenchOptions): Promise<KindFigures> {
  options.progress(`edge-worker: ${kind} worker, ${tasks} tasks: starting a team`);
  const team = await Team.open(`bench-${kind}`);
  try {
    await team.cluster(['bench-w1'], kind);
    const names = Array.from({ length: tasks }, (_, i) => `t${String(i).padStart(4, '0')}`);
    await team.apply({
      workflow: 'bench-flat',
      tasks: Object.fromEntries(names.map((n) => [n, { command: 'true' }])),
    });
    options.progress(`edge-worker: ${kind}: running`);
    const runId = await team.startRunInProcess('bench-flat');
    const run = await team.waitRun(runId, 600_000);
    if (run.state !== 'SUCCESS') throw new Error(`the ${kind} run ended ${run.state}`);
    const instances: InstanceRecord[] = await team.store.listInstances(runId);
    const last = Math.max(...instances.map((i) => i.finishedAt ?? 0));
    const seconds = (last - run.createdAt) / 1000;
    const latency = instances.map((i) => (i.startedAt as number) - i.createdAt);
    const pickup = instances.map((i) => (i.startedAt as number) - (i.dispatchedAt ?? i.createdAt));
    return {
      kind,
      tasks: instances.length,
      seconds,
      perSecond: instances.length / seconds,
      p50: percentile(latency, 0.5),
      p99: percentile(latency, 0.99),
      pickup50: percentile(pickup, 0.5),
      pickup99: percentile(pickup, 0.99),
    };
  } finally {
    await team.close();
  }
}

export async function benchEdgeWorker(options: BenchOptions): Promise<BenchTable> {
  const tasks = options.quick ? 50 : 500;
  const figures: KindFigures[] = [];
  for (const kind of ['database', 'edge'] as const) figures.push(await measure(kind, tasks, options));
  return {
    title: `Database worker vs edge worker: ${tasks} \`true\` tasks, one worker with 8 slots`,
    columns: [
      'worker',
      'tasks',
      'wall (s)',
      'tasks/s',
      'created→running p50 / p99 (ms)',
      'dispatched→running p50 / p99 (ms)',
    ],
    rows: figures.map((f) => [
      f.kind,
      f.tasks,
      fmt(f.seconds, 1),
      fmt(f.perSecond, 1),
      `${fmt(f.p50, 0)} / ${fmt(f.p99, 0)}`,
      `${fmt(f.pickup50, 0)} / ${fmt(f.pickup99, 0)}`,
    ]),
    notes: [
      'created→running: an instance created WAITING until its worker marked it RUNNING; with 500 tasks on 8 slots it is mostly the wait for a slot',
      "dispatched→running: from the claim into the worker's queue until RUNNING: the worker's own part of the dispatch",
      'edge: every store and queue call of the worker is a round trip over its WebSocket to the scheduler node, which makes it on MariaDB/Redis',
      'the team test settings (1 s worker heartbeat); fresh database and Redis prefix per kind',
    ],
  };
}
