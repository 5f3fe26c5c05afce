// The SQLite drivers, node:sqlite against better-sqlite3, side by side in one run. Each line is one child
// process running `bench/run.ts --only logs,peer` (log lines/s into the store, and solo
// throughput through the real CLI against BullMQ and raw spawn) under one runtime and driver:
//   the machine's Node with better-sqlite3 (Node 20 has no node:sqlite);
//   Node 24 (scripts/second-node.mjs) with node:sqlite, the driver it picks;
//   Node 24 with better-sqlite3 forced, when a build of it for Node 24 is at AX_BENCH_BS3_NODE24
//   (default ~/.cache/ax-scheduler/bs3-node24/better-sqlite3: a copy of node_modules/better-sqlite3
//   rebuilt there by Node 24's node-gyp with --nodedir=<Node 24's folder>, and a node_modules link
//   beside it to the project's, for its own dependencies): the same runtime, only the driver differs.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
// @ts-expect-error: a plain .mjs script without types
import { secondNode } from '../scripts/second-node.mjs';
import { type BenchOptions, type BenchTable, fmt, removeDir, tempDir } from './util.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const REDIRECT = path.join(ROOT, 'bench', 'better-sqlite3-from.mjs');

interface Lane {
  label: string;
  node: string;
  env: NodeJS.ProcessEnv;
}

function lanes(): { lanes: Lane[]; notes: string[] } {
  const notes: string[] = [];
  const found = secondNode() as { node?: string; version?: string; reason?: string };
  const list: Lane[] = [{ label: `${process.version}, better-sqlite3`, node: process.execPath, env: {} }];
  if (!found.node) {
    notes.push(`no Node 24: ${found.reason}`);
    return { lanes: list, notes };
  }
  list.push({ label: `${found.version}, node:sqlite`, node: found.node, env: {} });
  const built =
    process.env.AX_BENCH_BS3_NODE24 ??
    path.join(os.homedir(), '.cache', 'ax-scheduler', 'bs3-node24', 'better-sqlite3');
  if (fs.existsSync(path.join(built, 'build', 'Release', 'better_sqlite3.node'))) {
    list.push({
      label: `${found.version}, better-sqlite3 (built for it)`,
      node: found.node,
      // Every process of the lane (the CLI the peer bench starts, too) loads that build instead.
      env: {
        AX_SQLITE_DRIVER: 'better-sqlite3',
        AX_BENCH_BS3_DIR: built,
        NODE_OPTIONS: `--import=${pathToFileURL(REDIRECT).href}`,
      },
    });
  } else notes.push(`no better-sqlite3 built for Node 24 at ${built}: that line is left out`);
  return { lanes: list, notes };
}

function cell(table: BenchTable | undefined, match: (row: string[]) => boolean, column: number): string {
  return String(table?.rows.map((r) => r.map(String)).find(match)?.[column] ?? '—');
}

export async function benchSqliteDrivers(options: BenchOptions): Promise<BenchTable> {
  const { lanes: list, notes } = lanes();
  const dir = tempDir('ax-bench-drivers-');
  const rows: string[][] = [];
  try {
    for (const lane of list) {
      options.progress(`sqlite-drivers: ${lane.label}`);
      const out = path.join(dir, `${rows.length}.json`);
      const args = [
        '--import',
        'tsx',
        path.join(ROOT, 'bench', 'run.ts'),
        '--only',
        'logs,peer',
        '--json',
        out,
        ...(options.quick ? ['--quick'] : []),
      ];
      const run = spawnSync(lane.node, args, {
        cwd: ROOT,
        env: { ...process.env, ...lane.env },
        encoding: 'utf8',
        maxBuffer: 64 * 2 ** 20,
      });
      if (run.status !== 0) {
        rows.push([
          lane.label,
          `failed (exit ${run.status}): ${run.stderr.trim().split('\n').pop() ?? ''}`,
          '',
          '',
          '',
          '',
        ]);
        continue;
      }
      const { results } = JSON.parse(fs.readFileSync(out, 'utf8')) as { results: BenchTable[] };
      const logs = results.find((t) => /^Log lines/.test(t.title));
      const peer = results.find((t) => /against the peer/.test(t.title));
      const sqlite = (how: RegExp) => cell(logs, (r) => r[0] === 'SQLite' && how.test(r[1] ?? ''), 4);
      const ax = (c: string) => cell(peer, (r) => r[0] === c && /ax run FILE --wait/.test(r[1] ?? ''), 2);
      rows.push([
        lane.label,
        sqlite(/batches of 500/),
        sqlite(/1 line each/),
        sqlite(/engine path/),
        ax('8'),
        ax('20'),
      ]);
    }
  } finally {
    removeDir(dir);
  }
  return {
    title: 'SQLite drivers side by side',
    columns: [
      'runtime, driver',
      'lines/s, batches of 500',
      'lines/s, 1 line each',
      'lines/s, engine path',
      'ax run --wait tasks/s, c8',
      'tasks/s, c20',
    ],
    rows,
    notes: [
      'one child process per line, one after the other, each running bench/run.ts --only logs,peer (the tables of those benchmarks, measured as they describe)',
      `${fmt(os.cpus().length, 0)} CPUs; figures of one run each: compare lines of the same run, not across runs`,
      ...notes,
    ],
  };
}
