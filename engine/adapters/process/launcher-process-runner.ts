// Runs task processes through launchers (launcher-main.mjs, whose header has the protocol): the
// engine asks a launcher to start a command and gets its pid, its output as raw chunks and its
// exit back; lines are split here, and kills go from here straight to the process group.
//
// Why: a spawn forks the spawning process, synchronously on its main thread, and fork copies its
// page tables, so it costs in proportion to the heap (1 ms at 59 MB, 9 ms at 260 MB, 34 ms at
// 1 GB: nodejs/node#14917); the engine holds 110–170 MB. A launcher holds a few MB and forks off
// the engine's thread. Up to one launcher per core, started as needed, least loaded first.
//
// The launcher is also the watchdog: when the engine dies, it kills the groups it started (see
// its header). When a launcher dies on its own, its tasks are lost with their output: their
// groups are killed from here, their `exited` resolves with `lost` (the worker fails them over
// without spending a retry), and the next start forks a new launcher.
import { fork, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, renameSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LineSplitter } from '../../core/logs/line-splitter.ts';
import type {
  ProcessExit,
  ProcessOutputHandlers,
  ProcessRunner,
  ProcessSpec,
  RunningProcess,
} from '../../ports/process-runner.ts';
import { killLeftover, cannotStartShell } from './node-process-runner.ts';
import { HAS_PROC, killGroup, leftRunning, monotonicMs, readStat, runningGroup, validPid } from './process-groups.ts';
import { DEFAULT_MAX_LINE_BYTES, endWithOutput, prepareSpawn, type PreparedSpawn } from './spawn-spec.ts';

/** beside this file in the sources, beside dist/ax.mjs in the bundle (build-cli copies it) */
export const LAUNCHER_MAIN = fileURLToPath(new URL('./launcher-main.mjs', import.meta.url));
/** For a bundle of the engine built elsewhere (tests, benchmarks): puts the launcher beside it. */
export function copyLauncherBeside(bundleFile: string): void {
  const target = join(dirname(bundleFile), 'launcher-main.mjs');
  // Several builds may share the directory: each writes whole files, renamed into place.
  const temporary = `${bundleFile}.launcher.tmp`;
  copyFileSync(LAUNCHER_MAIN, temporary);
  renameSync(temporary, target);
}

/** the engine's death must not leave its tasks running for long, whatever the task's grace */
const WATCHDOG_GRACE_CAP_MS = 1_500;

export interface LauncherProcessRunnerOptions {
  /** how many launchers at most; default one per core */
  launchers?: number;
  /** the task kill grace (SIGTERM → SIGKILL) */
  killGraceMs: number;
  /** shell to run commands with instead of $SHELL or /bin/sh */
  shell?: string;
  /** told when a launcher dies on its own */
  onAlert?: (message: string) => void;
  /** the user and group tasks run as (an engine started as root: run-as); default the engine's */
  runAs?: { uid: number; gid: number };
}

type Op = [string, ...unknown[]];

/** Past this many differing variables a start sends a new base environment first. */
const BASE_ENV_REFRESH = 32;

interface Task {
  prepared: PreparedSpawn;
  handlers: ProcessOutputHandlers;
  splitters: [LineSplitter, LineSplitter];
  pid?: number;
  started(proc: RunningProcess): void;
  ended(exit: ProcessExit): void;
  exited: Promise<ProcessExit>;
}

export class LauncherProcessRunner implements ProcessRunner {
  private readonly pool: Launcher[] = [];
  private readonly size: number;
  private disposed = false;

  constructor(private readonly options: LauncherProcessRunnerOptions) {
    this.size = Math.max(1, options.launchers ?? availableParallelism());
    // A bundle built without it would otherwise lose every task to a launcher that cannot start.
    if (!existsSync(LAUNCHER_MAIN))
      throw new Error(`the task launcher ${LAUNCHER_MAIN} is missing: rebuild (npm run build) or run from the sources`);
  }

  async start(spec: ProcessSpec, handlers: ProcessOutputHandlers): Promise<RunningProcess> {
    if (this.disposed) throw new Error('the process runner is shut down');
    const prepared = prepareSpawn(spec, this.options.shell, this.options.runAs);
    try {
      return await this.pick().start(prepared, spec.cwd, spec.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, handlers);
    } catch (err) {
      prepared.cleanup();
      throw err;
    }
  }

  killLeftover(pid: number, instanceId: number, graceMs: number): Promise<boolean> {
    return killLeftover(pid, instanceId, graceMs);
  }

  /** the launchers' pids (tests, diagnostics) */
  launcherPids(): number[] {
    return this.pool.map((l) => l.pid);
  }

  /** Lets the launchers go: each exits once its channel closes (its groups, if any, are killed). */
  dispose(): void {
    this.disposed = true;
    for (const launcher of this.pool.splice(0)) launcher.disconnect();
  }

  /** An idle launcher, else a new one while below the size, else the least loaded. */
  private pick(): Launcher {
    let best: Launcher | undefined;
    for (const l of this.pool) if (!best || l.load < best.load) best = l;
    if (best && (best.load === 0 || this.pool.length >= this.size)) return best;
    const launcher = new Launcher(
      Math.min(this.options.killGraceMs, WATCHDOG_GRACE_CAP_MS),
      this.options.killGraceMs,
      this.options.runAs,
      (why, lost) => {
        const i = this.pool.indexOf(launcher);
        if (i >= 0) this.pool.splice(i, 1);
        if (!this.disposed)
          this.options.onAlert?.(
            `task launcher (pid ${launcher.pid}) ${why}: ${lost} running task(s) lost with it fail over; a new launcher takes the next task`,
          );
      },
    );
    this.pool.push(launcher);
    return launcher;
  }
}

/** One launcher process and the tasks it runs. */
class Launcher {
  private readonly child: ChildProcess;
  private readonly tasks = new Map<number, Task>();
  private nextId = 1;
  private outbox: Op[] = [];
  private flushing = false;
  private gone: string | undefined;
  /** the environment last sent as the launcher's base (see envDelta) */
  private baseEnv: Record<string, string> | undefined;

  constructor(
    watchdogGraceMs: number,
    private readonly killGraceMs: number,
    runAs: { uid: number; gid: number } | undefined,
    private readonly onDied: (why: string, lost: number) => void,
  ) {
    const env = { ...process.env };
    // The launcher is plain JavaScript: no loader (tsx) or other options of the engine's.
    delete env.NODE_OPTIONS;
    // The launcher stays the engine's user (it kills the groups it started); its spawns take run-as.
    const args = [String(watchdogGraceMs), String(process.pid), ...(runAs ? [`${runAs.uid}:${runAs.gid}`] : [])];
    // A benchmark aid: AX_LAUNCHER_CPU_PROF=DIR writes each launcher's CPU profile into DIR when it exits.
    const profDir = process.env.AX_LAUNCHER_CPU_PROF;
    this.child = fork(LAUNCHER_MAIN, args, {
      execArgv: ['--max-old-space-size=64', ...(profDir ? ['--cpu-prof', '--cpu-prof-dir', profDir] : [])],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
      // Its own session: a terminal's Ctrl-C is the engine's to handle, not the launcher's.
      detached: true,
      env,
    });
    this.child.on('message', (batch: Op[]) => this.receive(batch));
    // A send to a launcher that just died: its 'exit' follows and settles its tasks.
    this.child.on('error', () => undefined);
    this.child.on('exit', (code, signal) => this.died(signal ? `was killed by ${signal}` : `exited with code ${code}`));
    this.hold(false);
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  get load(): number {
    return this.tasks.size;
  }

  disconnect(): void {
    this.gone ??= 'was shut down';
    if (this.child.connected) this.child.disconnect();
  }

  start(
    prepared: PreparedSpawn,
    cwd: string | undefined,
    maxLineBytes: number,
    handlers: ProcessOutputHandlers,
  ): Promise<RunningProcess> {
    if (this.gone !== undefined) return Promise.reject(new Error(`the task launcher ${this.gone}`));
    const id = this.nextId++;
    let ended!: (exit: ProcessExit) => void;
    const exited = endWithOutput(new Promise<ProcessExit>((resolve) => (ended = resolve)), prepared);
    return new Promise<RunningProcess>((started) => {
      const line = (stream: 'stdout' | 'stderr') =>
        new LineSplitter(maxLineBytes, (text, bytes) => handlers.onLine(stream, text, bytes), handlers.mask);
      this.tasks.set(id, { prepared, handlers, splitters: [line('stdout'), line('stderr')], started, ended, exited });
      this.hold(true);
      this.send(['start', id, prepared.file, prepared.args, cwd ?? null, ...this.envDelta(prepared.env)]);
    });
  }

  /**
   * A task's environment as its difference from the launcher's base: the engine's environment
   * (a few KB) is the same for every task, and was most of what a start sent. A new base is sent
   * when the difference is no longer small (the engine's own environment changed).
   */
  private envDelta(env: Record<string, string>): [Record<string, string>, string[]] {
    const delta = (): [Record<string, string>, string[]] => {
      const set: Record<string, string> = Object.create(null) as Record<string, string>;
      const unset: string[] = [];
      for (const name in env) if (this.baseEnv?.[name] !== env[name]) set[name] = env[name] as string;
      for (const name in this.baseEnv) if (!(name in env)) unset.push(name);
      return [set, unset];
    };
    let [set, unset] = delta();
    if (this.baseEnv === undefined || unset.length + Object.keys(set).length > BASE_ENV_REFRESH) {
      // The task's own variables (AX_*, the task's env) stay out of the base: they differ per task.
      this.baseEnv = Object.fromEntries(Object.entries(env).filter(([name]) => !name.startsWith('AX_')));
      this.send(['base', this.baseEnv]);
      [set, unset] = delta();
    }
    return [set, unset];
  }

  /** The channel keeps the engine's event loop alive only while tasks run. */
  private hold(on: boolean): void {
    const channel = this.child.channel as { ref(): void; unref(): void } | null | undefined;
    if (on) {
      this.child.ref();
      channel?.ref();
    } else {
      this.child.unref();
      channel?.unref();
    }
  }

  private send(op: Op): void {
    this.outbox.push(op);
    if (this.flushing) return;
    this.flushing = true;
    setImmediate(() => {
      this.flushing = false;
      const batch = this.outbox;
      this.outbox = [];
      if (this.child.connected) this.child.send(batch);
    });
  }

  private receive(batch: Op[]): void {
    for (const op of batch) {
      const task = this.tasks.get(op[1] as number);
      if (!task) continue;
      switch (op[0]) {
        case 'pid':
          task.pid = op[2] as number;
          task.started(
            runningGroup(task.pid, task.prepared.spawnId, task.exited, (op[3] as number | null) ?? undefined),
          );
          break;
        case 'out':
          (op[2] === 1 ? task.splitters[0] : task.splitters[1]).push(op[3] as Uint8Array);
          break;
        case 'exit': {
          const error = op[4] as string | null;
          task.splitters.forEach((s) => s.end());
          if (error !== null) task.handlers.onLine('stderr', cannotStartShell(task.prepared.file, error), 0);
          // No pid: a process that never existed (pid 0 is never signalled).
          if (task.pid === undefined) task.started(runningGroup(0, task.prepared.spawnId, task.exited, undefined));
          task.ended({ code: op[2] as number | null, signal: op[3] as string | null });
          this.tasks.delete(op[1] as number);
          if (this.tasks.size === 0) this.hold(false);
          break;
        }
      }
    }
  }

  /**
   * The launcher is gone: its tasks' output went with it, so they are lost. Their groups are
   * killed (a fail-over must not overlap them) before `exited` says so.
   */
  private died(why: string): void {
    const unexpected = this.gone === undefined;
    this.gone ??= why;
    const lost = [...this.tasks.values()];
    this.tasks.clear();
    if (unexpected || lost.length > 0) this.onDied(why, lost.length);
    const reason = `its task launcher (pid ${this.pid}) ${why}`;
    for (const task of lost) {
      task.splitters.forEach((s) => s.end());
      if (task.pid === undefined) task.started(runningGroup(0, task.prepared.spawnId, task.exited, undefined));
      const killAt = monotonicMs() + this.killGraceMs;
      void (task.pid !== undefined ? Promise.resolve([task.pid]) : spawnedGroups(task.prepared.spawnId))
        .then((groups) => Promise.all(groups.map((g) => killGroup(g, () => killAt))))
        .finally(() => task.ended({ code: null, signal: null, lost: reason }));
    }
  }
}

/** Groups of processes carrying the spawn id: a start the launcher did before dying unreported. */
async function spawnedGroups(spawnId: string): Promise<number[]> {
  if (!HAS_PROC) return [];
  const groups = new Set<number>();
  for (const { pid } of await leftRunning(0, spawnId, 0)) {
    const pgrp = readStat(pid)?.pgrp;
    if (pgrp !== undefined && validPid(pgrp)) groups.add(pgrp);
  }
  return [...groups];
}
