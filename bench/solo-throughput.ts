// End-to-end throughput in solo mode: one workflow of independent `true` tasks, from
// runWorkflow to the run's SUCCESS, on an engine with default settings (concurrency 8), against
// the rate at which this Node process can spawn `true` with 8 at a time (detached, stdio piped,
// as the engine's process runner does). The ratio is the engine's overhead per task.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import type { EngineEvent } from '../engine/ports/coordinator.ts';
import { openSoloEngine } from '../engine/hosts/node/solo.ts';
import { DEFAULT_CONFIG } from '../engine/core/config.ts';
import { type BenchOptions, type BenchTable, fmt, removeDir, taskSpec, tempDir, timed } from './util.ts';

const CONCURRENCY = DEFAULT_CONFIG.maxConcurrency;
const FINAL_RUN_STATES = ['SUCCESS', 'FAILED', 'CANCELLED', 'SKIPPED'];

/** The shell the engine's process runner picks on Unix: $SHELL if it exists, else /bin/sh. */
function engineShell(): string {
  const shell = process.env.SHELL;
  return shell !== undefined && shell !== '' && fs.existsSync(shell) ? shell : '/bin/sh';
}

function spawnTrue(shell: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(shell, ['-c', 'true'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    child.stdout.resume();
    child.stderr.resume();
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${shell} -c true exited ${code}`))));
  });
}

/** `total` spawns of `shell -c true`, `concurrency` at a time; returns spawns per second. */
export async function rawSpawnRate(shell: string, total: number, concurrency: number): Promise<number> {
  let next = 0;
  const [, ms] = await timed(() =>
    Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < total) {
          next += 1;
          await spawnTrue(shell);
        }
      }),
    ),
  );
  return total / (ms / 1000);
}

export interface EngineThroughput {
  tasks: number;
  /** runWorkflow's own time: creating the run and its WAITING instances */
  startMs: number;
  totalMs: number;
  state: string;
  succeeded: number;
}

export async function engineThroughput(tasks: number): Promise<EngineThroughput> {
  const dir = tempDir('ax-bench-throughput-');
  const engine = await openSoloEngine(dir);
  try {
    await engine.start();
    const name = 'throughput';
    await engine.apply({ name, routing: 'round_robin', tasks: Array.from({ length: tasks }, (_, i) => taskSpec(`t${i}`, 'true', [])) }, 'bench');
    const ended = new Map<number, string>();
    let wake: (() => void) | undefined;
    const unsubscribe = await engine.subscribe((e: EngineEvent) => {
      if (e.type === 'run' && FINAL_RUN_STATES.includes(e.state)) {
        ended.set(e.runId, e.state);
        wake?.();
      }
    });
    const t0 = performance.now();
    const run = await engine.runWorkflow(name, { actor: 'bench' });
    const startMs = performance.now() - t0;
    const deadline = setTimeout(() => wake?.(), 30 * 60_000);
    while (!ended.has(run.id) && performance.now() - t0 < 30 * 60_000) await new Promise<void>((resolve) => (wake = resolve));
    const totalMs = performance.now() - t0;
    clearTimeout(deadline);
    unsubscribe();
    const detail = await engine.getRun(run.id);
    return { tasks, startMs, totalMs, state: detail.run.state, succeeded: detail.instances.filter((i) => i.state === 'SUCCESS').length };
  } finally {
    await engine.stop(10_000);
    await engine.store.close();
    removeDir(dir);
  }
}

export async function benchSoloThroughput(options: BenchOptions): Promise<BenchTable> {
  const tasks = options.quick ? 200 : 2_000;
  const shell = engineShell();
  options.progress(`throughput: raw spawn of sh -c true, ${tasks} × ${CONCURRENCY} at a time`);
  const rawSh = await rawSpawnRate('/bin/sh', tasks, CONCURRENCY);
  options.progress(`throughput: raw spawn of ${shell} -c true (before the engine)`);
  const rawBefore = await rawSpawnRate(shell, tasks, CONCURRENCY);
  options.progress(`throughput: engine, ${tasks} independent true tasks`);
  const e = await engineThroughput(tasks);
  options.progress(`throughput: raw spawn of ${shell} -c true (after the engine)`);
  const rawAfter = await rawSpawnRate(shell, tasks, CONCURRENCY);
  const raw = (rawBefore + rawAfter) / 2;
  const rate = e.tasks / (e.totalMs / 1000);
  return {
    title: `Solo-mode throughput, ${tasks} independent \`true\` tasks, concurrency ${CONCURRENCY}`,
    columns: ['what', 'tasks/s', 'ms per task (÷ 8 slots)'],
    rows: [
      [`raw spawn: /bin/sh -c true`, fmt(rawSh, 0), fmt((1000 / rawSh) * CONCURRENCY)],
      [`raw spawn: ${shell} -c true (mean of before/after: ${fmt(rawBefore, 0)} / ${fmt(rawAfter, 0)})`, fmt(raw, 0), fmt((1000 / raw) * CONCURRENCY)],
      [`engine: runWorkflow → run ${e.state} (${e.succeeded}/${e.tasks} SUCCESS)`, fmt(rate, 0), fmt((1000 / rate) * CONCURRENCY)],
      [`engine ÷ raw (${shell})`, `${fmt((rate / raw) * 100, 0)} %`, ''],
    ],
    notes: [
      `the engine runs each command with ${shell} -c (its process runner uses $SHELL), so that is the fair raw rate`,
      `run took ${fmt(e.totalMs / 1000)} s in all, of which runWorkflow (creating the run and ${e.tasks} WAITING instances) ${fmt(e.startMs)} ms`,
      'engine: openSoloEngine with default config (tick 1 s, log flush 200 ms), SQLite in a temp dir',
    ],
  };
}
