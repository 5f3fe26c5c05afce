// Runs task commands as real processes spawned directly by the engine: each in its own process
// group, through the user's shell, output split into lines. Killing always targets the whole
// group, so whatever the command started in the background goes with it.
//
// The engine runs tasks through LauncherProcessRunner (launcher-process-runner.ts), which
// spawns from a small launcher process instead: a spawn from the engine's large heap blocks its
// main thread for milliseconds (fork copies page tables). This direct runner remains for
// Windows, where there are no process groups to hand over, for one-off kills by the CLI, and as
// the baseline of bench/solo-throughput.ts.
import { spawn, type ChildProcess } from 'node:child_process';
import type { Readable } from 'node:stream';
import { LineSplitter } from '../../core/logs/line-splitter.ts';
import type {
  ProcessExit,
  ProcessOutputHandlers,
  ProcessRunner,
  ProcessSpec,
  RunningProcess,
} from '../../ports/process-runner.ts';
import {
  HAS_PROC,
  IS_WINDOWS,
  groupAlive,
  groupMembers,
  killGroup,
  monotonicMs,
  readEnviron,
  runningGroup,
  validPid,
} from './process-groups.ts';
import { DEFAULT_MAX_LINE_BYTES, endWithOutput, prepareSpawn } from './spawn-spec.ts';

/** how long, after the shell exits, to wait for stdio held open by a background grandchild */
export const STREAM_CLOSE_WAIT_MS = 200;
/** the longest that output still arriving (a background grandchild) holds a task open after its shell exits */
const STREAM_CLOSE_MAX_MS = 5_000;

export interface NodeProcessRunnerOptions {
  /** shell to run commands with instead of $SHELL or /bin/sh (Unix only) */
  shell?: string;
}

export class NodeProcessRunner implements ProcessRunner {
  constructor(private readonly options: NodeProcessRunnerOptions = {}) {}

  async start(spec: ProcessSpec, handlers: ProcessOutputHandlers): Promise<RunningProcess> {
    const prepared = prepareSpawn(spec, this.options.shell);
    let child: ChildProcess;
    try {
      child = spawn(prepared.file, prepared.args, {
        cwd: spec.cwd,
        env: prepared.env,
        stdio: ['ignore', 'pipe', 'pipe'],
        // A new process group on Unix; on Windows it would open a console window instead.
        detached: !IS_WINDOWS,
        windowsHide: true,
        windowsVerbatimArguments: IS_WINDOWS,
      });
    } catch (err) {
      prepared.cleanup();
      throw err;
    }
    const exited = endWithOutput(
      watch(child, prepared.file, spec.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, handlers),
      prepared,
    );
    return runningGroup(child.pid ?? 0, prepared.spawnId, exited);
  }

  killLeftover(pid: number, instanceId: number, graceMs: number): Promise<boolean> {
    return killLeftover(pid, instanceId, graceMs);
  }
}

/** ProcessRunner.killLeftover for either runner: the group of pid, if it belongs to the instance. */
export async function killLeftover(pid: number, instanceId: number, graceMs: number): Promise<boolean> {
  if (!validPid(pid)) return false;
  if (HAS_PROC) {
    const marker = `AX_INSTANCE_ID=${instanceId}`;
    const owned = () => groupMembers(pid).some((member) => readEnviron(member).includes(marker));
    // A leader exiting between the look at the group and the read of its environment reads as
    // not ours: look once more, when its members (if any) are found by a scan.
    if (!owned() && !owned()) return false;
  } else if (!groupAlive(pid)) {
    // Without /proc the owner cannot be checked; the pid was recorded by our own engine.
    return false;
  }
  const killAt = monotonicMs() + graceMs;
  return killGroup(pid, () => killAt);
}

/** Wires output to line splitters; resolves once the process has exited and output is flushed. */
function watch(
  child: ChildProcess,
  shell: string,
  maxLineBytes: number,
  handlers: ProcessOutputHandlers,
): Promise<ProcessExit> {
  const streams: [Readable | null, 'stdout' | 'stderr'][] = [
    [child.stdout, 'stdout'],
    [child.stderr, 'stderr'],
  ];
  const flushers: (() => void)[] = [];
  let chunks = 0;
  for (const [stream, name] of streams) {
    if (!stream) continue;
    const splitter = new LineSplitter(maxLineBytes, (line, bytes) => handlers.onLine(name, line, bytes), handlers.mask);
    let ended = false;
    const flush = (): void => {
      if (ended) return;
      ended = true;
      splitter.end();
    };
    stream.on('data', (chunk: Uint8Array) => {
      chunks += 1;
      if (!ended) splitter.push(chunk);
    });
    stream.on('end', flush);
    // A read error (or our own destroy) ends the stream without 'end'.
    stream.on('error', () => undefined);
    stream.on('close', flush);
    flushers.push(flush);
  }
  const flushAll = (): void => flushers.forEach((flush) => flush());

  return new Promise<ProcessExit>((resolve) => {
    let settled = false;
    let timer: NodeJS.Timeout | undefined;
    const finish = (result: ProcessExit): void => {
      if (settled) return;
      settled = true;
      if (timer) clearTimeout(timer);
      flushAll();
      resolve(result);
    };
    child.on('error', (err) => {
      // Spawn failures (shell missing, not executable) arrive here, never as 'exit'; 127 is what a
      // shell reports for a command it cannot find. Errors after a successful spawn (a failed
      // kill) carry no outcome and are ignored.
      if (child.pid !== undefined) return;
      handlers.onLine('stderr', cannotStartShell(shell, err.message), 0);
      finish({ code: 127, signal: null });
    });
    child.on('exit', (code, signal) => {
      // 'close' waits for stdio, which a background grandchild may hold open for hours: after a
      // quiet STREAM_CLOSE_WAIT_MS the streams are closed by us. The check runs in setImmediate,
      // after the event loop's poll phase, so output already in the pipe is read first even when
      // the loop was late (a timer due in a late loop runs before that loop reads its pipes); and
      // while output still arrives it waits again, up to STREAM_CLOSE_MAX_MS.
      const deadline = monotonicMs() + STREAM_CLOSE_MAX_MS;
      let seen = chunks;
      const check = (): void => {
        if (settled) return;
        if (chunks !== seen && monotonicMs() < deadline) {
          seen = chunks;
          timer = setTimeout(() => setImmediate(check), STREAM_CLOSE_WAIT_MS);
          return;
        }
        for (const [stream] of streams) stream?.destroy();
        finish({ code, signal });
      };
      timer = setTimeout(() => setImmediate(check), STREAM_CLOSE_WAIT_MS);
    });
    child.on('close', (code, signal) => {
      if (child.pid === undefined) return; // spawn failure: handled by 'error'
      finish({ code, signal });
    });
  });
}

export function cannotStartShell(shell: string, message: string): string {
  return `ax: cannot start shell "${shell}": ${message}`;
}
