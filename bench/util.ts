// Shared pieces of the benchmarks: figures tables, percentiles, temp dirs, and generated
// workflows (spec objects, not YAML: a 100k-task file would spend its time in the parser).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { TaskSpec, WorkflowSpec } from '../engine/api/types.ts';

export interface BenchOptions {
  /** small sizes: a smoke run that checks the benchmark works, not a measurement */
  quick: boolean;
  /** progress lines (stderr), so a long run shows where it is */
  progress: (message: string) => void;
  /** the sizes a benchmark takes as flags (team-sim's --sim-workers, …), by name without the dashes */
  args?: Record<string, string | undefined>;
}

/** What every benchmark returns and bench/run.ts prints. */
export interface BenchTable {
  title: string;
  columns: string[];
  rows: (string | number)[][];
  notes: string[];
}

/** Nearest-rank percentile (q in 0..1) of a non-empty sample. */
export function percentile(values: number[], q: number): number {
  if (values.length === 0) throw new Error('percentile of an empty sample');
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] as number;
}

export const median = (values: number[]): number => percentile(values, 0.5);

/** Runs fn and returns its result with the elapsed milliseconds. */
export async function timed<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const result = await fn();
  return [result, performance.now() - t0];
}

/**
 * Runs fn and returns its result, the elapsed milliseconds, and the longest stretch in that time
 * during which the event loop ran no timer (work that blocks the loop stalls heartbeats too).
 */
export async function timedWithStall<T>(fn: () => Promise<T>): Promise<[T, number, number]> {
  let last = performance.now();
  let stall = 0;
  const timer = setInterval(() => {
    const now = performance.now();
    stall = Math.max(stall, now - last);
    last = now;
  }, 1);
  try {
    const t0 = performance.now();
    const result = await fn();
    const ms = performance.now() - t0;
    // One more tick, so a stall that lasted to the end of fn is seen.
    await new Promise((resolve) => setTimeout(resolve, 2));
    return [result, ms, stall];
  } finally {
    clearInterval(timer);
  }
}

/** Fixed-point text for a table cell: more digits for small numbers. */
export function fmt(value: number, digits?: number): string {
  const d = digits ?? (Math.abs(value) >= 100 ? 0 : Math.abs(value) >= 10 ? 1 : 2);
  return value.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
}

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function removeDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
}

/** mulberry32: a seeded generator, so every run builds the same graph. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j] as T, out[i] as T];
  }
  return out;
}

export function taskSpec(name: string, command: string, upstream: string[]): TaskSpec {
  return {
    name,
    command,
    env: {},
    retries: 0,
    retryBackoff: { kind: 'fixed', delayMs: 10_000, maxDelayMs: 10_000 },
    labels: [],
    upstream,
  };
}

export interface LayeredWorkflow {
  spec: WorkflowSpec;
  /** task names, layer by layer; layer 0 are the roots */
  layers: string[][];
  edges: number;
}

/**
 * A layered DAG of n tasks, `width` per layer: every task after the first layer has 1–3
 * distinct upstreams in the layer before it (so fan-in and fan-out both average about 2).
 */
export function layeredWorkflow(
  name: string,
  n: number,
  width: number,
  seed: number,
  command = 'true',
): LayeredWorkflow {
  const random = seededRandom(seed);
  const digits = String(n).length;
  const tasks: TaskSpec[] = [];
  const layers: string[][] = [];
  let edges = 0;
  for (let i = 0; i < n; i++) {
    const layer = Math.floor(i / width);
    const taskName = `t${String(i).padStart(digits, '0')}`;
    const previous = layers[layer - 1];
    const upstream: string[] = [];
    if (previous) {
      const wanted = Math.min(previous.length, 1 + Math.floor(random() * 3));
      while (upstream.length < wanted) {
        const pick = previous[Math.floor(random() * previous.length)] as string;
        if (!upstream.includes(pick)) upstream.push(pick);
      }
    }
    edges += upstream.length;
    (layers[layer] ??= []).push(taskName);
    tasks.push(taskSpec(taskName, command, upstream));
  }
  return { spec: { name, routing: 'round_robin', tasks }, layers, edges };
}

/** The shell the engine runs commands with: $SHELL if it exists, else /bin/sh. */
export function engineShell(): string {
  const shell = process.env.SHELL;
  return shell !== undefined && shell !== '' && fs.existsSync(shell) ? shell : '/bin/sh';
}

/** Whether bin/ax.mjs runs the bundle (dist/ax.mjs newer than every file under engine/) or tsx. */
export function bundleIsFresh(repo: string): boolean {
  const newest = (dir: string): number =>
    Math.max(
      0,
      ...fs
        .readdirSync(dir, { withFileTypes: true })
        .map((e) => (e.isDirectory() ? newest(path.join(dir, e.name)) : fs.statSync(path.join(dir, e.name)).mtimeMs)),
    );
  try {
    return fs.statSync(path.join(repo, 'dist', 'ax.mjs')).mtimeMs >= newest(path.join(repo, 'engine'));
  } catch {
    return false;
  }
}
