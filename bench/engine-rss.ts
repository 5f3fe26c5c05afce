// Resident memory of a fresh engine process: idle, and with 10k defined tasks (10 workflows ×
// 1k), before and after their graphs are in the engine's workflow cache. Each figure comes from
// its own child process (bench/rss-child.ts), so nothing of the benchmark runner is counted.
// The same for what users run, `ax serve` through bin/ax.mjs (the bundle dist/ax.mjs when it is
// fresh), driven with `ax apply` and `ax run` like a user would; its RSS read from /proc.
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { serializeWorkflow } from '../engine/core/workflow/workflow-serialize.ts';
import { type BenchOptions, type BenchTable, fmt, layeredWorkflow, removeDir, tempDir, bundleIsFresh } from './util.ts';

const CHILD = fileURLToPath(new URL('./rss-child.ts', import.meta.url));
const REPO = fileURLToPath(new URL('..', import.meta.url));
const AX = path.join(REPO, 'bin', 'ax.mjs');
const MB = 2 ** 20;
const SETTLE_MS = 2_000;
/** How long an idle process is left alone for V8's memory reducer to shrink its heap (it starts after some seconds of low allocation). */
const QUIET_MS = 60_000;

interface Sample {
  rss: number;
  heapUsed: number;
}

async function child(args: string[]): Promise<Record<string, Sample | number>> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD, ...args], {
    maxBuffer: 1 << 20,
    timeout: 10 * 60_000,
  });
  const last = stdout.trim().split('\n').pop() ?? '';
  return JSON.parse(last) as Record<string, Sample | number>;
}

async function inDataDir(args: (dir: string) => string[]): Promise<Record<string, Sample | number>> {
  const dir = tempDir('ax-bench-rss-');
  try {
    return await child(args(dir));
  } finally {
    removeDir(dir);
  }
}

/** Plain node, no tsx: tsx's loader hooks run in their own thread, a second V8 heap. */
async function plainNode(): Promise<Sample> {
  const script =
    'setTimeout(() => { gc(); const m = process.memoryUsage(); console.log(JSON.stringify({ rss: m.rss, heapUsed: m.heapUsed })); }, 2000);';
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '-e', script]);
  return JSON.parse(stdout) as Sample;
}

/** VmRSS of a process, bytes (/proc/PID/status). */
function rssOf(pid: number): number {
  const m = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

/** Children of pid (its task launchers), from /proc/N/stat's ppid field. */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) found.push(Number(entry));
    } catch {
      // gone
    }
  }
  return found;
}

interface ServeSample {
  rss: number;
  /** RSS of each task launcher the serve has started */
  launchers: number[];
}

/** `ax serve` on a fresh data dir: idle, after `ax apply` of workflows × tasks, after a one-task run of each. */
async function serveRss(
  workflows: number,
  tasks: number,
  quietMs: number,
): Promise<{
  idle: ServeSample;
  quiet: ServeSample;
  applied: ServeSample;
  cached: ServeSample;
  cachedQuiet: ServeSample;
  bundled: boolean;
}> {
  const dir = tempDir('ax-bench-rss-serve-');
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('AX_')) env[k] = v;
  const ax = (...args: string[]) =>
    promisify(execFile)(process.execPath, [AX, '--data-dir', path.join(dir, 'data'), ...args], {
      cwd: dir,
      env,
      maxBuffer: 16 << 20,
      timeout: 10 * 60_000,
    });
  const bundled = bundleIsFresh(REPO);
  const serve = spawn(process.execPath, [AX, '--data-dir', path.join(dir, 'data'), 'serve'], {
    cwd: dir,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => serve.once('close', () => resolve()));
  const sample = async (waitMs = SETTLE_MS): Promise<ServeSample> => {
    await new Promise((resolve) => setTimeout(resolve, waitMs));
    const pid = serve.pid as number;
    return { rss: rssOf(pid), launchers: childrenOf(pid).map(rssOf) };
  };
  try {
    await new Promise<void>((resolve, reject) => {
      readline
        .createInterface({ input: serve.stdout })
        .on('line', (l) => l.startsWith('ax serve: solo engine') && resolve());
      serve.once('close', (code) => reject(new Error(`ax serve exited ${code} before it was ready`)));
    });
    const idle = await sample();
    const quiet = await sample(quietMs - SETTLE_MS);
    for (let w = 0; w < workflows; w++) {
      const { spec } = layeredWorkflow(`rss-${w}`, tasks, 100, 100 + w);
      const file = path.join(dir, `${spec.name}.yaml`);
      fs.writeFileSync(file, serializeWorkflow(spec));
      await ax('apply', file);
    }
    const applied = await sample();
    // A one-task run loads the workflow's whole graph into the cache and spawns one process.
    for (let w = 0; w < workflows; w++)
      await ax(
        'run',
        `rss-${w}`,
        '--task',
        layeredWorkflow(`rss-${w}`, tasks, 100, 100 + w).layers[0]?.[0] ?? '',
        '--wait',
      );
    const cached = await sample();
    const cachedQuiet = await sample(quietMs - SETTLE_MS);
    return { idle, quiet, applied, cached, cachedQuiet, bundled };
  } finally {
    serve.kill('SIGTERM');
    const timer = setTimeout(() => serve.kill('SIGKILL'), 30_000);
    await exited;
    clearTimeout(timer);
    removeDir(dir);
  }
}

export async function benchEngineRss(options: BenchOptions): Promise<BenchTable> {
  const workflows = options.quick ? 2 : 10;
  const tasks = options.quick ? 100 : 1_000;
  options.progress('rss: plain node');
  const plain = await plainNode();
  options.progress('rss: node + tsx alone');
  const bare = await child(['bare']);
  options.progress('rss: idle engine');
  const idle = await inDataDir((dir) => ['idle', dir]);
  options.progress(`rss: engine with ${workflows} × ${tasks} tasks`);
  const loaded = await inDataDir((dir) => ['loaded', dir, String(workflows), String(tasks)]);
  options.progress(`rss: ax serve (bin/ax.mjs), idle, then ${workflows} × ${tasks} tasks applied and run once`);
  const quietMs = options.quick ? 20_000 : QUIET_MS;
  const serve = await serveRss(workflows, tasks, quietMs);

  const row = (what: string, s: Sample | number | undefined): string[] => {
    const sample = s as Sample;
    return [what, fmt(sample.rss / MB, 1), fmt(sample.heapUsed / MB, 1)];
  };
  const runs = serve.bundled ? 'dist/ax.mjs, the bundle' : 'tsx: dist/ax.mjs is older than engine/';
  const serveRow = (what: string, s: ServeSample): string[] => [
    `**ax serve** (${runs}): ${what}`,
    fmt(s.rss / MB, 1),
    s.launchers.length > 0
      ? `– (+ ${s.launchers.length} launcher process(es): ${s.launchers.map((r) => fmt(r / MB, 1)).join(', ')} MiB)`
      : '–',
  ];
  return {
    title: 'Engine memory (fresh process, after a 2 s settle; the rss-child rows after gc)',
    columns: ['state', 'RSS (MiB)', 'JS heap used (MiB)'],
    rows: [
      row('plain node, nothing loaded (no tsx)', plain),
      row('node --import tsx, nothing loaded', bare.bare),
      row('solo engine started, idle, empty data dir', idle.idle),
      row(`same process before applying (loaded run)`, loaded.idle),
      row(`${loaded.defined} tasks applied + listWorkflows`, loaded.applied),
      row(`${loaded.defined} tasks, all ${workflows} graphs in the workflow cache`, loaded.cached),
      serveRow('just started, empty data dir', serve.idle),
      serveRow(`idle, empty data dir, left alone ${quietMs / 1000} s (goal < 80 MB)`, serve.quiet),
      serveRow(`${workflows * tasks} tasks applied with ax apply`, serve.applied),
      serveRow(`${workflows * tasks} tasks, all ${workflows} graphs cached by a one-task ax run each`, serve.cached),
      serveRow(`the same, left alone ${quietMs / 1000} s (goal < 120 MB)`, serve.cachedQuiet),
    ],
    notes: [
      "every engine row runs under tsx (as npm run bench does): its loader thread is in each of them; the bundle the CLI prefers (dist/ax.mjs) does not carry it, so subtract the first two rows' difference for a bundled engine",
      `graphs loaded by one one-task run per workflow (runWorkflow --task), so only ${workflows} processes were spawned`,
      'the ax serve rows are the real CLI process (API server and UI files included), read from /proc/PID/status without a forced gc; its task launchers are separate processes, listed beside it',
      `"left alone": no request, no task for ${quietMs / 1000} s, as a tray app sits most of the day; V8's memory reducer shrinks the young generation grown during start-up or the last burst of work (nothing of ours forces a gc)`,
    ],
  };
}
