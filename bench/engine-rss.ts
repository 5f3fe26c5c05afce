// Resident memory of a fresh engine process: idle, and with 10k defined tasks (10 workflows ×
// 1k), before and after their graphs are in the engine's workflow cache. Each figure comes from
// its own child process (bench/rss-child.ts), so nothing of the benchmark runner is counted.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type BenchOptions, type BenchTable, fmt, removeDir, tempDir } from './util.ts';

const CHILD = fileURLToPath(new URL('./rss-child.ts', import.meta.url));
const MB = 2 ** 20;

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
  const script = 'setTimeout(() => { gc(); const m = process.memoryUsage(); console.log(JSON.stringify({ rss: m.rss, heapUsed: m.heapUsed })); }, 2000);';
  const { stdout } = await promisify(execFile)(process.execPath, ['--expose-gc', '-e', script]);
  return JSON.parse(stdout) as Sample;
}

export async function benchEngineRss(options: BenchOptions): Promise<BenchTable> {
  const workflows = 10;
  const tasks = options.quick ? 100 : 1_000;
  options.progress('rss: plain node');
  const plain = await plainNode();
  options.progress('rss: node + tsx alone');
  const bare = await child(['bare']);
  options.progress('rss: idle engine');
  const idle = await inDataDir((dir) => ['idle', dir]);
  options.progress(`rss: engine with ${workflows} × ${tasks} tasks`);
  const loaded = await inDataDir((dir) => ['loaded', dir, String(workflows), String(tasks)]);

  const row = (what: string, s: Sample | number | undefined): string[] => {
    const sample = s as Sample;
    return [what, fmt(sample.rss / MB, 1), fmt(sample.heapUsed / MB, 1)];
  };
  return {
    title: 'Engine memory (fresh process, after gc and a 2 s settle)',
    columns: ['state', 'RSS (MiB)', 'JS heap used (MiB)'],
    rows: [
      row('plain node, nothing loaded (no tsx)', plain),
      row('node --import tsx, nothing loaded', bare.bare),
      row('solo engine started, idle, empty data dir', idle.idle),
      row(`same process before applying (loaded run)`, loaded.idle),
      row(`${loaded.defined} tasks applied + listWorkflows`, loaded.applied),
      row(`${loaded.defined} tasks, all ${workflows} graphs in the workflow cache`, loaded.cached),
    ],
    notes: [
      'every engine row runs under tsx (as npm run bench does): its loader thread is in each of them; the bundle the CLI prefers (dist/ax.mjs) does not carry it, so subtract the first two rows\' difference for a bundled engine',
      `graphs loaded by one one-task run per workflow (runWorkflow --task), so only ${workflows} processes were spawned`,
    ],
  };
}
