import type { LogStream, TaskSimulation } from '../api/types.ts';

export interface ProcessSpec {
  /** run by the user's shell ($SHELL -c, falling back to /bin/sh; cmd.exe on Windows) */
  command: string;
  cwd?: string;
  /** the complete environment of the child (the caller merges process.env, task env and AX_*) */
  env: Record<string, string>;
  /** a line longer than this many bytes is cut and marked; default 64 KiB */
  maxLineBytes?: number;
  /**
   * Environment variables that name a file holding the given text (for values too large for the
   * environment): written to a private temporary file before the start, removed when the process ends.
   */
  envFiles?: Record<string, string>;
  /**
   * An environment variable naming an empty private file made for this start, which the task may
   * write its outputs to; at most `maxBytes` of it are read back once the process has ended
   * (ProcessExit.output), and it is removed with the env files.
   */
  outputFile?: { env: string; maxBytes: number };
  /** the task's `simulate:`: read only by a simulated runner (ax serve --simulate); a real one runs the command */
  simulate?: TaskSimulation;
}

export interface ProcessOutputHandlers {
  /**
   * one call per line, in the order the chunks were read across both streams (one order for both,
   * as far as two pipes tell); the text is valid UTF-8 (invalid bytes replaced)
   */
  onLine(stream: Exclude<LogStream, 'system'>, line: string, bytes: number): void;
  /** secret values masked in each line before it is cut at maxLineBytes (core/secrets/secret-mask.ts) */
  mask?: LineMask;
}

/**
 * What a line splitter needs to mask before it cuts a long line: it keeps `slackBytes` more than
 * its limit, so a value that straddles the cut is seen whole and masked whole, not cut into a
 * first part that would show.
 */
export interface LineMask {
  /** every occurrence masked */
  mask(text: string): string;
  /** the first `cut` characters of text, masked; a value starting before the cut and ending after it becomes *** */
  maskPrefix(text: string, cut: number): string;
  /** the longest value's length in UTF-8 bytes, less one: how far past the cut a value can reach */
  readonly slackBytes: number;
}

export interface ProcessExit {
  /** exit code, or null when killed by a signal */
  code: number | null;
  signal: string | null;
  /**
   * Set when the runner lost the process rather than saw it end (its launcher died): what
   * happened. The group has been killed; the task did not fail, so it fails over.
   */
  lost?: string;
  /** with ProcessSpec.outputFile: the first maxBytes of that file (UTF-8) and its whole size; absent when it could not be read */
  output?: { text: string; bytes: number };
}

/** A process the task started that left its process group, still running after the task ended. */
export interface LeftRunning {
  pid: number;
  /** its command line, shortened and safe to print */
  command: string;
}

export interface RunningProcess {
  readonly pid: number;
  /** resolves when the process has exited and its output has been fully delivered */
  readonly exited: Promise<ProcessExit>;
  /**
   * SIGTERM to the whole process group, SIGKILL after graceMs if any member is left; resolves
   * once no process of the group is alive. A call during a kill with a shorter grace brings the
   * SIGKILL forward (terminate(0): now).
   */
  terminate(graceMs: number): Promise<void>;
  /**
   * After the task has ended and its group is gone: the processes it started that left the group
   * (setsid, daemons) and still run; where the platform cannot tell (no /proc), an empty list.
   */
  leftRunning?(): Promise<LeftRunning[]>;
}

export interface ProcessRunner {
  /**
   * Starts the command in its own process group; resolves once it has a pid. Rejects if it
   * cannot be spawned at all (a shell that fails to start is exit 127, not a rejection).
   */
  start(spec: ProcessSpec, handlers: ProcessOutputHandlers): Promise<RunningProcess>;
  /**
   * Kills a process group left by an earlier engine (after a crash), but only if its leader still
   * belongs to that instance (guards against pid reuse). SIGTERM, then SIGKILL after graceMs.
   * Resolves true if something was killed, false if nothing of it was alive.
   */
  killLeftover(pid: number, instanceId: number, graceMs: number): Promise<boolean>;
  /** Lets go of helper processes the runner keeps (launchers); called once nothing runs. */
  dispose?(): void;
}
