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
// `node --cpu-prof --cpu-prof-dir DIR` (a profile per process, written when it exits after SIGTERM);
// AX_LAUNCHER_CPU_PROF=DIR does the same for the task launchers they fork.
import os from 'node:os';
import { mysqlAvailable, redisAvailable } from '../test/helpers/services.ts';
import { rawRate } from './peer.ts';
import { engineThroughput, rawSpawnRate } from './solo-throughput.ts';
import { type BenchOptions, type BenchTable, fmt, percentile } from './util.ts';
import {
  CLK_TCK,
  COMMAND,
  type CpuTicks,
  SCHEDULERS,
  SOLO_CONCURRENCY,
  WORKERS,
  WORKER_CONCURRENCY,
  engineShell,
} from './team-load-common.ts';
import { type LoopDelay } from './team-load-process.ts';
import { p50p99 } from './team-load-figures.ts';
import { teamPhases } from './team-load-phases.ts';

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
        '**finished tasks without their output line** in the log store (each `echo x` must leave one), burst + paced',
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
