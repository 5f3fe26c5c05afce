// End-to-end throughput in solo mode: one workflow of independent `true` tasks, from
// runWorkflow to the run's SUCCESS, on an engine with default settings (concurrency 8), against
// the rate at which this Node process can spawn `true` with 8 at a time (detached, stdio piped,
// as the engine's process runner does). The ratio is the engine's overhead per task.
//
// The engine runs twice: spawning through its task launchers (what it does) and spawning
// directly (NodeProcessRunner, what it did before). Everything is measured again with 300 MB of
// resident ballast in this process: a spawn forks the spawning process, and fork copies its page
// tables, so a direct spawn slows as the spawner grows (nodejs/node#14917), a launcher's not.
import { performance } from 'node:perf_hooks';
import { LauncherProcessRunner } from '../engine/adapters/process/launcher-process-runner.ts';
import { NodeProcessRunner } from '../engine/adapters/process/node-process-runner.ts';
import type { EngineEvent } from '../engine/api/events.ts';
import type { ProcessRunner } from '../engine/ports/process-runner.ts';
import { openSoloEngine } from '../engine/hosts/node/solo.ts';
import { DEFAULT_CONFIG } from '../engine/core/model/config.ts';
import { spawnMany } from './raw-spawn.mjs';
import { type BenchOptions, type BenchTable, fmt, removeDir, taskSpec, tempDir, timed, engineShell } from './util.ts';

const CONCURRENCY = DEFAULT_CONFIG.maxConcurrency;
const FINAL_RUN_STATES = ['SUCCESS', 'FAILED', 'CANCELLED', 'SKIPPED'];

/** `total` spawns of `shell -c true`, `concurrency` at a time; returns spawns per second. */
export async function rawSpawnRate(shell: string, total: number, concurrency: number): Promise<number> {
  const [, ms] = await timed(() => spawnMany(shell, total, concurrency));
  return total / (ms / 1000);
}

/** The same through a task launcher, without the engine: `runner.start` and `exited`, as the worker does. */
export async function launcherSpawnRate(total: number, concurrency: number): Promise<number> {
  const runner = new LauncherProcessRunner({ killGraceMs: DEFAULT_CONFIG.killGraceMs });
  const env = Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[1] !== undefined));
  let next = 0;
  try {
    const [, ms] = await timed(() =>
      Promise.all(
        Array.from({ length: concurrency }, async () => {
          while (next < total) {
            next += 1;
            const proc = await runner.start({ command: 'true', env }, { onLine: () => undefined });
            const exit = await proc.exited;
            if (exit.code !== 0) throw new Error(`true through a launcher: ${JSON.stringify(exit)}`);
            await proc.terminate(0);
          }
        }),
      ),
    );
    return total / (ms / 1000);
  } finally {
    runner.dispose();
  }
}

export interface EngineThroughput {
  tasks: number;
  /** runWorkflow's own time: creating the run and its WAITING instances */
  startMs: number;
  totalMs: number;
  state: string;
  succeeded: number;
}

/** how the engine spawns: through its launchers (the default), or directly from its own process */
export type SpawnPath = 'launcher' | 'direct';

export async function engineThroughput(tasks: number, spawnPath: SpawnPath = 'launcher'): Promise<EngineThroughput> {
  const dir = tempDir('ax-bench-throughput-');
  const runner: ProcessRunner =
    spawnPath === 'direct'
      ? new NodeProcessRunner()
      : new LauncherProcessRunner({ killGraceMs: DEFAULT_CONFIG.killGraceMs });
  const engine = await openSoloEngine(dir, { runner });
  try {
    await engine.start();
    const name = 'throughput';
    await engine.apply(
      { name, routing: 'round_robin', tasks: Array.from({ length: tasks }, (_, i) => taskSpec(`t${i}`, 'true', [])) },
      'bench',
    );
    const ended = new Map<number, string>();
    let wake: (() => void) | undefined;
    const unsubscribe = await engine.subscribe(['runs'], (e: EngineEvent) => {
      if (e.type === 'run' && FINAL_RUN_STATES.includes(e.state)) {
        ended.set(e.runId, e.state);
        wake?.();
      }
    });
    const t0 = performance.now();
    const run = await engine.runWorkflow(name, { actor: 'bench' });
    const startMs = performance.now() - t0;
    const deadline = setTimeout(() => wake?.(), 30 * 60_000);
    while (!ended.has(run.id) && performance.now() - t0 < 30 * 60_000)
      await new Promise<void>((resolve) => (wake = resolve));
    const totalMs = performance.now() - t0;
    clearTimeout(deadline);
    unsubscribe();
    const detail = await engine.getRun(run.id);
    return {
      tasks,
      startMs,
      totalMs,
      state: detail.run.state,
      succeeded: detail.instances.filter((i) => i.state === 'SUCCESS').length,
    };
  } finally {
    await engine.stop(10_000);
    await engine.store.close();
    runner.dispose?.();
    removeDir(dir);
  }
}

/** Resident memory that stays mapped while held: every page written, so fork has to copy its tables. */
function ballast(mb: number): Buffer[] {
  return Array.from({ length: mb }, () => Buffer.alloc(1024 * 1024, 1));
}

interface Pass {
  label: string;
  raw: number;
  viaLauncher: number;
  launcher: EngineThroughput;
  direct: EngineThroughput;
}

const rate = (e: EngineThroughput): number => e.tasks / (e.totalMs / 1000);

export async function benchSoloThroughput(options: BenchOptions): Promise<BenchTable> {
  const tasks = options.quick ? 200 : 2_000;
  const shell = engineShell();
  options.progress(`throughput: raw spawn of sh -c true, ${tasks} × ${CONCURRENCY} at a time`);
  const rawSh = await rawSpawnRate('/bin/sh', tasks, CONCURRENCY);
  const passes: Pass[] = [];
  for (const mb of [0, 300]) {
    const held = ballast(mb);
    const label = mb === 0 ? '' : ` (+${mb} MB ballast)`;
    options.progress(`throughput${label}: raw spawn of ${shell} -c true (before the engine)`);
    const before = await rawSpawnRate(shell, tasks, CONCURRENCY);
    options.progress(`throughput${label}: ${shell} -c true through task launchers, no engine`);
    const viaLauncher = await launcherSpawnRate(tasks, CONCURRENCY);
    options.progress(`throughput${label}: engine with launchers, ${tasks} independent true tasks`);
    const launcher = await engineThroughput(tasks, 'launcher');
    options.progress(`throughput${label}: engine spawning directly, ${tasks} independent true tasks`);
    const direct = await engineThroughput(tasks, 'direct');
    options.progress(`throughput${label}: raw spawn of ${shell} -c true (after the engine)`);
    const after = await rawSpawnRate(shell, tasks, CONCURRENCY);
    passes.push({ label, raw: (before + after) / 2, viaLauncher, launcher, direct });
    held.length = 0;
  }
  const row = (what: string, perSecond: number): string[] => [
    what,
    fmt(perSecond, 0),
    fmt((1000 / perSecond) * CONCURRENCY),
  ];
  const rows: string[][] = [row('raw spawn: /bin/sh -c true', rawSh)];
  for (const p of passes) {
    const state = (e: EngineThroughput) => `run ${e.state}, ${e.succeeded}/${e.tasks} SUCCESS`;
    rows.push(
      row(`raw spawn${p.label}: ${shell} -c true (mean of before/after)`, p.raw),
      row(`through task launchers, no engine${p.label}: ${shell} -c true`, p.viaLauncher),
      row(`engine, launchers${p.label} (${state(p.launcher)})`, rate(p.launcher)),
      row(`engine, direct spawn${p.label} (${state(p.direct)})`, rate(p.direct)),
      [
        `engine ÷ raw${p.label}: launchers · direct`,
        `${fmt((rate(p.launcher) / p.raw) * 100, 0)} % · ${fmt((rate(p.direct) / p.raw) * 100, 0)} %`,
        '',
      ],
    );
  }
  return {
    title: `Solo-mode throughput, ${tasks} independent \`true\` tasks, concurrency ${CONCURRENCY}`,
    columns: ['what', 'tasks/s', 'ms per task (÷ 8 slots)'],
    rows,
    notes: [
      `the engine runs each command with ${shell} -c (its process runner uses $SHELL), so that is the fair raw rate`,
      `ballast: Buffers written through, held by this process (engine and raw spawner alike) during the pass`,
      ...passes.map(
        (p) =>
          `runWorkflow${p.label} (creating the run and ${tasks} WAITING instances): ${fmt(p.launcher.startMs)} ms (launchers), ${fmt(p.direct.startMs)} ms (direct)`,
      ),
      'engine: openSoloEngine with default config (tick 1 s, log flush 200 ms), SQLite in a temp dir',
    ],
  };
}
