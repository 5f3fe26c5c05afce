// Child processes of a test: spawning one with its output kept line by line (each line
// time-stamped on arrival), tracking what was spawned so a test file can kill what is left, and
// looking at or killing processes through /proc (Linux): process groups, orphaned tasks, zombies.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { waitFor } from './wait-for.ts';

export interface OutputLine {
  stream: 'stdout' | 'stderr';
  text: string;
  /** Date.now() when the line reached this process */
  at: number;
}

export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** wall time of the command */
  ms: number;
}

/** Keeps a child's stdout and stderr: the whole text, and the lines as they arrive. */
export function collectOutput(child: ChildProcess): { lines: OutputLine[]; text: { stdout: string; stderr: string } } {
  const lines: OutputLine[] = [];
  const text = { stdout: '', stderr: '' };
  for (const stream of ['stdout', 'stderr'] as const) {
    let partial = '';
    child[stream]?.setEncoding('utf8');
    child[stream]?.on('data', (chunk: string) => {
      text[stream] += chunk;
      const at = Date.now();
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) lines.push({ stream, text: line, at });
    });
    child[stream]?.on('end', () => {
      if (partial !== '') lines.push({ stream, text: partial, at: Date.now() });
      partial = '';
    });
  }
  return { lines, text };
}

export interface SpawnOptions {
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** written to stdin, then closed; without it stdin is /dev/null */
  input?: string;
  /** how the process is named in failure messages; default the command line */
  label?: string;
}

const spawned = new Set<SpawnedProcess>();

/** A running child process, tracked until it exits (see killAllSpawned). */
export class SpawnedProcess {
  readonly child: ChildProcess;
  readonly lines: OutputLine[];
  /** resolves when the process has exited and its output is read */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly startedAt = Date.now();
  readonly label: string;
  exitedAt: number | undefined;
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly text: { stdout: string; stderr: string };

  constructor(command: string, commandArgs: string[], opts: SpawnOptions) {
    this.label = opts.label ?? [command, ...commandArgs].join(' ');
    this.child = spawn(command, commandArgs, {
      cwd: opts.cwd,
      env: opts.env,
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (opts.input !== undefined) this.child.stdin?.end(opts.input);
    spawned.add(this);
    ({ lines: this.lines, text: this.text } = collectOutput(this.child));
    this.exited = new Promise((resolve) => {
      this.child.on('close', (code, signal) => {
        this.exitedAt = Date.now();
        this.exit = { code, signal };
        spawned.delete(this);
        resolve({ code, signal });
      });
    });
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  get stdout(): string {
    return this.text.stdout;
  }

  get stderr(): string {
    return this.text.stderr;
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  /** Waits for an output line matching re; returns it. */
  async waitForLine(re: RegExp, timeoutMs = 15_000, stream?: 'stdout' | 'stderr'): Promise<OutputLine> {
    return waitFor(() => this.lines.find((l) => (!stream || l.stream === stream) && re.test(l.text)), {
      timeoutMs,
      message: `${this.label}: no output line matching ${re}\n--- stdout:\n${this.stdout}\n--- stderr:\n${this.stderr}`,
    });
  }

  /** Waits for the process to end; fails (after killing it) past the deadline. */
  async result(timeoutMs = 60_000): Promise<ProcessResult> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.kill('SIGKILL');
        reject(
          new Error(
            `${this.label} did not exit within ${timeoutMs} ms\n--- stdout:\n${this.stdout}\n--- stderr:\n${this.stderr}`,
          ),
        );
      }, timeoutMs);
    });
    try {
      const { code, signal } = await Promise.race([this.exited, deadline]);
      return {
        code,
        signal,
        stdout: this.stdout,
        stderr: this.stderr,
        ms: (this.exitedAt ?? Date.now()) - this.startedAt,
      };
    } finally {
      clearTimeout(timer);
    }
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (this.running) this.child.kill(signal);
  }
}

/** Kills (SIGKILL) every SpawnedProcess still running, except `keep`, and waits for their ends. */
export async function killAllSpawned(keep: (SpawnedProcess | undefined)[] = []): Promise<void> {
  const left = [...spawned].filter((p) => !keep.includes(p));
  for (const p of left) p.kill('SIGKILL');
  await Promise.all(left.map((p) => p.exited));
}

/** The fields of /proc/PID/stat after the command name: [state, ppid, pgrp, ...]. */
function statFields(pid: number | string): string[] {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
}

/** /proc state letter of pid (Z: a zombie), or undefined when it is gone. */
export function procState(pid: number): string | undefined {
  try {
    return statFields(pid)[0];
  } catch {
    return undefined;
  }
}

/**
 * What the kernel says of a process that seems to hang (for a failure message): its command
 * line, state and CPU time, and each thread's state and where it sleeps. Pure /proc reads.
 */
export function kernelView(pid: number): string {
  const read = (file: string) => {
    try {
      return fs.readFileSync(`/proc/${pid}/${file}`, 'latin1');
    } catch (err) {
      return `(${(err as NodeJS.ErrnoException).code ?? String(err)})`;
    }
  };
  const out = [`cmdline: ${read('cmdline').split('\0').join(' ').trim()}`];
  try {
    const f = statFields(pid);
    // fields after the name: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime
    out.push(
      `state ${f[0]}, ppid ${f[1]}, cpu ${Number(f[11]) + Number(f[12])} ticks (user ${f[11]}, system ${f[12]})`,
    );
  } catch {
    return 'gone';
  }
  const status = read('status');
  out.push(...status.split('\n').filter((l) => /^(State|Threads|VmRSS|SigPnd|ShdPnd|SigBlk):/.test(l)));
  let tasks: string[] = [];
  try {
    tasks = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    // gone meanwhile
  }
  for (const tid of tasks) {
    const comm = read(`task/${tid}/comm`).trim();
    let state = '?';
    try {
      state = statFields(`${pid}/task/${tid}`)[0] ?? '?';
    } catch {
      // gone meanwhile
    }
    out.push(`thread ${tid} ${comm}: ${state}, wchan ${read(`task/${tid}/wchan`)}`);
  }
  const stack = read('stack').trim();
  if (stack) out.push(`kernel stack:\n${stack}`);
  return out.join('\n');
}

/**
 * Whether a process is alive: on Linux from /proc, where a zombie (exited, not yet reaped by an
 * init that may never reap it) counts as gone.
 */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 1) return false;
  try {
    const state = statFields(pid)[0];
    return state !== 'Z' && state !== 'X';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Live (non-zombie) processes of process group pgid, from /proc (Linux). */
export function groupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = statFields(entry);
      if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') members.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return members;
}

/**
 * SIGKILLs every process whose environment has AX_DATA_DIR or AXT_DATA_DIR under `root`: the `ax`
 * processes of a test file and every task they started (tasks inherit AXT_DATA_DIR), including
 * tasks orphaned in their own process groups when a test failed half-way. Linux only (/proc).
 */
export function killStrays(root: string): number {
  // Tasks carry AXT_DATA_DIR (see ax.ts): AX_DATA_DIR is AX's own and never reaches them.
  const markers = [`AX_DATA_DIR=${root}`, `AXT_DATA_DIR=${root}`];
  let killed = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    let env: string[];
    try {
      env = fs.readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0');
    } catch {
      continue; // gone, or not ours to read
    }
    if (!env.some((e) => markers.some((marker) => e === marker || e.startsWith(`${marker}/`)))) continue;
    try {
      process.kill(Number(entry), 'SIGKILL');
      killed++;
    } catch {
      // gone meanwhile
    }
  }
  return killed;
}

/** The task launchers of an engine process: its children running launcher-main.mjs (Linux). */
export function launchersOf(enginePid: number): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const ppid = Number(statFields(entry)[1]);
      if (ppid === enginePid && fs.readFileSync(`/proc/${entry}/cmdline`, 'latin1').includes('launcher-main.mjs'))
        found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

/**
 * Kills an engine together with its task launchers, as one crash of everything would (the OOM
 * killer): frozen first, so it cannot react to its launchers' death. Its tasks live on, orphaned.
 */
export async function killWithLaunchers(proc: SpawnedProcess): Promise<void> {
  const launchers = launchersOf(proc.pid);
  if (launchers.length === 0) throw new Error(`${proc.label} (pid ${proc.pid}) has no task launcher`);
  process.kill(proc.pid, 'SIGSTOP');
  for (const launcher of launchers) process.kill(launcher, 'SIGKILL');
  await waitFor(() => launchers.every((l) => !processAlive(l)), { message: 'the launchers did not die' });
  proc.kill('SIGKILL');
  await proc.exited;
}

/** SIGKILLs a process group a test task started (cleanup after a failure); ignores the gone. */
export function killGroup(pid: number): void {
  if (!Number.isInteger(pid) || pid <= 1) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** Reads a pid a task wrote to a file, once the file holds one. */
export async function readPidFile(file: string, timeoutMs = 15_000): Promise<number> {
  return waitFor(
    () => {
      const n = Number(fs.readFileSync(file, 'utf8').trim());
      return Number.isInteger(n) && n > 1 ? n : undefined;
    },
    { timeoutMs, intervalMs: 25, message: `no pid in ${file}` },
  );
}
