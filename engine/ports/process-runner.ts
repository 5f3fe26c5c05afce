import type { LogStream } from '../api/types.ts';

export interface ProcessSpec {
  /** run by the user's shell ($SHELL -c, falling back to /bin/sh; cmd.exe on Windows) */
  command: string;
  cwd?: string;
  /** the complete environment of the child (the caller merges process.env, task env and AX_*) */
  env: Record<string, string>;
  /** a line longer than this many bytes is cut and marked; default 64 KiB */
  maxLineBytes?: number;
}

export interface ProcessOutputHandlers {
  /** one call per line, in order per stream; the text is valid UTF-8 (invalid bytes replaced) */
  onLine(stream: Exclude<LogStream, 'system'>, line: string, bytes: number): void;
}

export interface ProcessExit {
  /** exit code, or null when killed by a signal */
  code: number | null;
  signal: string | null;
}

export interface RunningProcess {
  readonly pid: number;
  /** resolves when the process has exited and its output has been fully delivered */
  readonly exited: Promise<ProcessExit>;
  /**
   * SIGTERM to the whole process group, SIGKILL after graceMs if any member is left; resolves
   * once no process of the group is alive.
   */
  terminate(graceMs: number): Promise<void>;
}

export interface ProcessRunner {
  /** Starts the command in its own process group. Throws if it cannot be spawned at all. */
  start(spec: ProcessSpec, handlers: ProcessOutputHandlers): RunningProcess;
  /**
   * Kills a process group left by an earlier engine (after a crash), but only if its leader still
   * belongs to that instance (guards against pid reuse). SIGTERM, then SIGKILL after graceMs.
   * Resolves true if something was killed, false if nothing of it was alive.
   */
  killLeftover(pid: number, instanceId: number, graceMs: number): Promise<boolean>;
  /** true while any process of the group led by pid is alive */
  isGroupAlive(pid: number): boolean;
}
