// Runs task commands as real processes: each in its own process group, through the user's
// shell, output split into lines. Killing always targets the whole group, so whatever the
// command started in the background goes with it.
//
// Zombies: a group member that has exited but was not reaped still makes kill(-pgid, 0)
// succeed. Orphaned members are reparented to init (or a subreaper), and an init that does not
// reap (as in some containers) leaves them as zombies forever. On Linux the group is therefore
// judged from /proc, where all-zombie counts as gone.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import type { Readable } from 'node:stream';
import { LineSplitter } from '../../core/line-splitter.ts';
import type {
  ProcessExit,
  ProcessOutputHandlers,
  ProcessRunner,
  ProcessSpec,
  RunningProcess,
} from '../../ports/process-runner.ts';
import type { OrphanWatchdog } from './orphan-watchdog.ts';

const DEFAULT_MAX_LINE_BYTES = 64 * 1024;
/** how long, after the shell exits, to wait for stdio held open by a background grandchild */
const STREAM_CLOSE_WAIT_MS = 200;
const POLL_MS = 50;
const IS_WINDOWS = process.platform === 'win32';
const HAS_PROC = !IS_WINDOWS && existsSync('/proc/self/stat');

export interface NodeProcessRunnerOptions {
  /** shell to run commands with instead of $SHELL or /bin/sh (Unix only) */
  shell?: string;
  /** team mode: stops the task groups if this process dies (see orphan-watchdog.ts) */
  watchdog?: OrphanWatchdog;
}

export class NodeProcessRunner implements ProcessRunner {
  constructor(private readonly options: NodeProcessRunnerOptions = {}) {}

  start(spec: ProcessSpec, handlers: ProcessOutputHandlers): RunningProcess {
    if (spec.cwd !== undefined && !isDirectory(spec.cwd)) {
      // Node would report a missing cwd as "spawn /bin/sh ENOENT", which blames the shell.
      throw new Error(`working directory "${spec.cwd}" does not exist`);
    }
    const [file, args] = shellCommand(spec, this.options.shell);
    const child = spawn(file, args, {
      cwd: spec.cwd,
      env: spec.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      // A new process group on Unix; on Windows it would open a console window instead.
      detached: !IS_WINDOWS,
      windowsHide: true,
      windowsVerbatimArguments: IS_WINDOWS,
    });
    const exited = watch(child, file, spec.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, handlers);
    const pid = child.pid ?? 0;
    const watchdog = this.options.watchdog;
    if (validPid(pid)) watchdog?.add(pid);
    let terminating: Promise<void> | undefined;
    return {
      pid,
      exited,
      terminate(graceMs: number): Promise<void> {
        // Concurrent calls share one kill sequence; a later call re-checks (cheap if all gone).
        terminating ??= killGroup(pid, graceMs).then(() => {
          terminating = undefined;
          watchdog?.remove(pid);
        });
        return terminating;
      },
    };
  }

  async killLeftover(pid: number, instanceId: number, graceMs: number): Promise<boolean> {
    if (!validPid(pid)) return false;
    if (HAS_PROC) {
      const marker = `AX_INSTANCE_ID=${instanceId}`;
      const owned = groupMembers(pid).some((member) => readEnviron(member).includes(marker));
      if (!owned) return false;
    } else if (!this.isGroupAlive(pid)) {
      // Without /proc the owner cannot be checked; the pid was recorded by our own engine.
      return false;
    }
    return killGroup(pid, graceMs);
  }

  isGroupAlive(pid: number): boolean {
    return groupAlive(pid);
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function shellCommand(spec: ProcessSpec, override: string | undefined): [string, string[]] {
  if (IS_WINDOWS) {
    // /d: no AutoRun commands; /s with verbatim arguments: the command line passes unmangled.
    return [process.env.ComSpec ?? 'cmd.exe', ['/d', '/s', '/c', `"${spec.command}"`]];
  }
  if (override !== undefined) return [override, ['-c', spec.command]];
  const shell = spec.env.SHELL ?? process.env.SHELL;
  return [shell !== undefined && shell !== '' && existsSync(shell) ? shell : '/bin/sh', ['-c', spec.command]];
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
  for (const [stream, name] of streams) {
    if (!stream) continue;
    const splitter = new LineSplitter(maxLineBytes, (line, bytes) => handlers.onLine(name, line, bytes));
    let ended = false;
    const flush = (): void => {
      if (ended) return;
      ended = true;
      splitter.end();
    };
    stream.on('data', (chunk: Uint8Array) => {
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
      handlers.onLine('stderr', `ax: cannot start shell "${shell}": ${err.message}`, 0);
      finish({ code: 127, signal: null });
    });
    child.on('exit', (code, signal) => {
      // 'close' waits for stdio, which a background grandchild may hold open for hours.
      timer = setTimeout(() => {
        for (const [stream] of streams) stream?.destroy();
        finish({ code, signal });
      }, STREAM_CLOSE_WAIT_MS);
    });
    child.on('close', (code, signal) => {
      if (child.pid === undefined) return; // spawn failure: handled by 'error'
      finish({ code, signal });
    });
  });
}

function validPid(pid: number): boolean {
  // 0 and 1 would signal our own group or every process: never valid here.
  return Number.isInteger(pid) && pid > 1;
}

function signalGroup(pid: number, signal: NodeJS.Signals): void {
  if (IS_WINDOWS) {
    // No process groups: taskkill /t ends the tree (best effort; a tree whose root exited is lost).
    if (signal === 'SIGKILL' || signal === 'SIGTERM') {
      spawnSync('taskkill', ['/pid', String(pid), '/t', ...(signal === 'SIGKILL' ? ['/f'] : [])], {
        stdio: 'ignore',
        windowsHide: true,
      });
    }
    return;
  }
  try {
    process.kill(-pid, signal);
  } catch {
    // ESRCH: already gone. EPERM: not ours to kill; the alive check keeps reporting it.
  }
}

function groupAlive(pid: number): boolean {
  if (!validPid(pid)) return false;
  try {
    process.kill(IS_WINDOWS ? pid : -pid, 0);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
  return HAS_PROC ? groupMembers(pid).length > 0 : true;
}

/** SIGTERM, SIGKILL after graceMs, until nothing of the group is alive; true if it was alive. */
async function killGroup(pid: number, graceMs: number): Promise<boolean> {
  if (!groupAlive(pid)) return false;
  signalGroup(pid, 'SIGTERM');
  const killAt = Date.now() + graceMs;
  let killed = false;
  while (groupAlive(pid)) {
    if (Date.now() >= killAt) {
      // Repeated on every poll: a member forked between two signals must not escape.
      signalGroup(pid, 'SIGKILL');
      killed = true;
    }
    await delay(killed ? POLL_MS : Math.min(POLL_MS, Math.max(1, killAt - Date.now())));
  }
  return true;
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Live (non-zombie) processes whose process group is pgid, from /proc. */
function groupMembers(pgid: number): number[] {
  // The usual case: the leader itself is still running; no need to scan.
  const leader = readStat(pgid);
  if (leader && leader.pgrp === pgid && leader.live) return [pgid];
  const members: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return members;
  }
  for (const entry of entries) {
    const first = entry.charCodeAt(0);
    if (first < 48 || first > 57) continue; // not a pid
    const pid = Number(entry);
    const stat = readStat(pid);
    if (stat && stat.pgrp === pgid && stat.live) members.push(pid);
  }
  return members;
}

function readStat(pid: number): { pgrp: number; live: boolean } | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined; // gone meanwhile, or not readable
  }
  // "pid (comm) state ppid pgrp ...": comm may contain spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const state = fields[0];
  return { pgrp: Number(fields[2]), live: state !== 'Z' && state !== 'X' && state !== 'x' };
}

/** The initial environment of a process as NAME=value entries; empty if unreadable. */
function readEnviron(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
  } catch {
    return [];
  }
}
