// Drives the real `ax` command (node bin/ax.mjs) as a child process on a temp data dir: one-shot
// commands with their stdout, stderr and exit code, and long-running ones (`ax serve`, `ax run
// --wait`, `ax logs --follow`) in the background with every output line time-stamped on arrival.
// Every process started here is tracked, so a test file can kill what is left in afterEach.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import { dbFile, type EngineLockInfo } from '../../engine/hosts/node/data-dir.ts';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { WebSocket } from 'ws';
import { tempDir } from './solo-engine.ts';
import { waitFor } from './wait-for.ts';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const AX_BIN = path.join(REPO, 'bin', 'ax.mjs');

export interface AxOptions {
  /** the data dir, passed as AX_DATA_DIR */
  dataDir: string;
  /** working directory of the command; default the data dir */
  cwd?: string;
  env?: Record<string, string>;
  /** written to the command's stdin, then closed; without it stdin is /dev/null */
  input?: string;
  /** kill the command (SIGKILL) and fail after this long; default 60 s */
  timeoutMs?: number;
}

export interface AxResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** wall time of the command */
  ms: number;
}

export interface OutputLine {
  stream: 'stdout' | 'stderr';
  text: string;
  /** Date.now() when the line reached this process */
  at: number;
}

function childEnv(opts: AxOptions): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  // Nothing of the test runner's AX_* settings leaks in; times print in UTC.
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AX_')) env[k] = v;
  // AXT_DATA_DIR marks the tasks too (AX_* never reaches a task): killStrays finds them by it.
  return { ...env, TZ: 'UTC', NO_COLOR: '1', FORCE_COLOR: '0', ...opts.env, AX_DATA_DIR: opts.dataDir, AXT_DATA_DIR: opts.dataDir };
}

const started = new Set<AxProcess>();

/** A running `ax` command. */
export class AxProcess {
  readonly child: ChildProcess;
  readonly lines: OutputLine[] = [];
  /** resolves when the process has exited and its output is read */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly startedAt = Date.now();
  exitedAt: number | undefined;
  exit: { code: number | null; signal: NodeJS.Signals | null } | undefined;
  private readonly raw = { stdout: '', stderr: '' };

  constructor(
    readonly args: string[],
    readonly opts: AxOptions,
  ) {
    this.child = spawn(process.execPath, [AX_BIN, ...args], {
      cwd: opts.cwd ?? opts.dataDir,
      env: childEnv(opts),
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (opts.input !== undefined) this.child.stdin?.end(opts.input);
    started.add(this);
    for (const stream of ['stdout', 'stderr'] as const) {
      let partial = '';
      this.child[stream]?.setEncoding('utf8');
      this.child[stream]?.on('data', (chunk: string) => {
        this.raw[stream] += chunk;
        const at = Date.now();
        const parts = (partial + chunk).split('\n');
        partial = parts.pop() ?? '';
        for (const text of parts) this.lines.push({ stream, text, at });
      });
      this.child[stream]?.on('end', () => {
        if (partial !== '') this.lines.push({ stream, text: partial, at: Date.now() });
        partial = '';
      });
    }
    this.exited = new Promise((resolve) => {
      this.child.on('close', (code, signal) => {
        this.exitedAt = Date.now();
        this.exit = { code, signal };
        started.delete(this);
        resolve({ code, signal });
      });
    });
  }

  get pid(): number {
    return this.child.pid ?? 0;
  }

  get stdout(): string {
    return this.raw.stdout;
  }

  get stderr(): string {
    return this.raw.stderr;
  }

  get running(): boolean {
    return this.exit === undefined;
  }

  /** Waits for an output line matching re; returns it. */
  async waitForLine(re: RegExp, timeoutMs = 15_000, stream?: 'stdout' | 'stderr'): Promise<OutputLine> {
    return waitFor(() => this.lines.find((l) => (!stream || l.stream === stream) && re.test(l.text)), {
      timeoutMs,
      message: `ax ${this.args.join(' ')}: no output line matching ${re}\n--- stdout:\n${this.stdout}\n--- stderr:\n${this.stderr}`,
    });
  }

  /** Waits for the process to end; fails (after killing it) past the deadline. */
  async result(timeoutMs = 60_000): Promise<AxResult> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.kill('SIGKILL');
        reject(new Error(`ax ${this.args.join(' ')} did not exit within ${timeoutMs} ms\n--- stdout:\n${this.stdout}\n--- stderr:\n${this.stderr}`));
      }, timeoutMs);
    });
    try {
      const { code, signal } = await Promise.race([this.exited, deadline]);
      return { code, signal, stdout: this.stdout, stderr: this.stderr, ms: (this.exitedAt ?? Date.now()) - this.startedAt };
    } finally {
      clearTimeout(timer);
    }
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (this.running) this.child.kill(signal);
  }
}

/** Starts `ax ARGS` in the background. */
export function axStart(args: string[], opts: AxOptions): AxProcess {
  return new AxProcess(args, opts);
}

/** Runs `ax ARGS` to the end. */
export async function ax(args: string[], opts: AxOptions): Promise<AxResult> {
  return new AxProcess(args, opts).result(opts.timeoutMs ?? 60_000);
}

/** Runs `ax --json ARGS`, expects exit 0, and parses stdout. */
export async function axJson<T>(args: string[], opts: AxOptions): Promise<T> {
  const r = await ax(['--json', ...args], opts);
  if (r.code !== 0) throw new Error(`ax --json ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}

/** The engine lock of a data dir as written, whether or not its process lives. */
export function readLockFile(dataDir: string): EngineLockInfo | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dataDir, 'engine.lock'), 'utf8')) as EngineLockInfo;
  } catch {
    return undefined;
  }
}

export interface ServeProcess extends AxProcess {
  port: number;
}

/** Starts `ax serve` and waits until its engine.lock names it with an API port. */
export async function startServe(opts: AxOptions, extraArgs: string[] = []): Promise<ServeProcess> {
  const proc = axStart(['serve', ...extraArgs], opts);
  const lock = await waitFor(
    () => {
      if (!proc.running) throw new Error(`ax serve exited ${proc.exit?.code}: ${proc.stderr}`);
      const l = readLockFile(opts.dataDir);
      return l && l.pid === proc.pid && l.port ? l : undefined;
    },
    { timeoutMs: 30_000, intervalMs: 50, message: 'ax serve did not write its port to engine.lock' },
  ).catch((err: unknown) => {
    throw new Error(`${String(err)}\n--- stdout:\n${proc.stdout}\n--- stderr:\n${proc.stderr}`);
  });
  // Its start-up lines are printed before the port is published; wait until they have arrived.
  await proc.waitForLine(/^ax serve: /, 10_000, 'stdout');
  return Object.assign(proc, { port: lock.port as number });
}

/** Kills (SIGKILL) every `ax` process started through this module that is still running, except `keep`. */
export async function killAllAx(keep: (AxProcess | undefined)[] = []): Promise<void> {
  const left = [...started].filter((p) => !keep.includes(p));
  for (const p of left) p.kill('SIGKILL');
  await Promise.all(left.map((p) => p.exited));
}

/** /proc state letter of pid (Z: a zombie), or undefined when it is gone. */
export function procState(pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
  } catch {
    return undefined;
  }
}

/**
 * Whether a process is alive: on Linux from /proc, where a zombie (exited, not yet reaped by an
 * init that may never reap it) counts as gone.
 */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 1) return false;
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'latin1');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
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
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'latin1');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
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
  // Tasks carry AXT_DATA_DIR (see childEnv): AX_DATA_DIR is AX's own and never reaches them.
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
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'latin1');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === enginePid && fs.readFileSync(`/proc/${entry}/cmdline`, 'latin1').includes('launcher-main.mjs')) found.push(Number(entry));
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
export async function killWithLaunchers(proc: AxProcess): Promise<void> {
  const launchers = launchersOf(proc.pid);
  if (launchers.length === 0) throw new Error(`ax (pid ${proc.pid}) has no task launcher`);
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

/** Writes a workflow file into dir and returns its path. */
export function writeFile(dir: string, name: string, text: string): string {
  const file = path.join(dir, name);
  fs.writeFileSync(file, text);
  return file;
}

/**
 * The data dir's store, opened in this process for quick reads while the engine runs elsewhere
 * (SQLite WAL lets readers in); far cheaper than polling with an `ax --json` process.
 */
export async function openDataDirStore(dataDir: string): Promise<SqlStore> {
  return openSqliteStore(dbFile(dataDir));
}

/** Runs jobs with at most `limit` at a time: each `ax` start-up keeps a core busy for a second. */
export async function limited<T extends unknown[]>(jobs: [...{ [K in keyof T]: () => Promise<T[K]> }], limit = 3): Promise<T> {
  const list = jobs as (() => Promise<unknown>)[];
  const out: unknown[] = new Array(list.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < list.length; i = next++) out[i] = await (list[i] as () => Promise<unknown>)();
  };
  await Promise.all(Array.from({ length: Math.min(limit, list.length) }, lane));
  return out as T;
}

export interface CliSandbox {
  /** a temporary directory of the test file's own, removed after it */
  readonly root: string;
  /** ROOT/data */
  readonly dataDir: string;
  /** `ax` options on the data dir, run from ROOT (so relative file names stay short in messages) */
  opts(): AxOptions;
}

/**
 * A test file's sandbox for real `ax` processes: made before its tests; after each test every
 * `ax` it started is killed with the task process groups they left under ROOT (unless
 * `keepBetweenTests`, for files that share one `ax serve`); everything is removed at the end.
 */
export function cliSandbox(prefix: string, options: { keepBetweenTests?: boolean } = {}): CliSandbox {
  const box = {
    root: '',
    dataDir: '',
    opts: (): AxOptions => ({ dataDir: box.dataDir, cwd: box.root }),
  };
  beforeAll(() => {
    box.root = tempDir(prefix);
    box.dataDir = path.join(box.root, 'data');
  });
  if (!options.keepBetweenTests) {
    afterEach(async () => {
      await killAllAx();
      // tasks live in process groups of their own: a killed `ax` would leave them behind
      killStrays(box.root);
    });
  }
  afterAll(async () => {
    await killAllAx();
    killStrays(box.root);
    fs.rmSync(box.root, { recursive: true, force: true });
  });
  return box;
}

/** The status of a WebSocket upgrade to `ax serve`'s API: 101 when it opened, else the HTTP status refusing it. */
export function apiUpgrade(port: number, headers: Record<string, string>, query = ''): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api${query}`, { headers });
    ws.on('open', () => {
      ws.close();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('error', reject);
  });
}
