// `npm run bench [-- --quick] [-- --only NAME[,NAME]] [-- --json FILE]`: runs the benchmarks
// one after another and prints their figures. Figures, not pass/fail: nothing here is a test.
// The diagnostics (sql-profile), sqlite-drivers, logs-migration, team-load and team-sim (they need MariaDB + Redis
// and take minutes) run only when named with --only; team-sim takes its sizes as --sim-* flags
// (bench/team-sim.ts). The ui-* ones drive headless Chromium against `ax serve`. The peer ones
// need Redis (BullMQ), peer-team MariaDB too.
import fs from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { benchCrossRelease } from './cross-release.ts';
import { benchDependencyAdvance } from './dependency-advance.ts';
import { benchEdgeWorker } from './edge-worker.ts';
import { benchEngineRss } from './engine-rss.ts';
import { benchGuardTimes } from './guard-times.ts';
import { benchLogInsert, logStores } from './log-insert.ts';
import { benchLogMigration } from './log-migration.ts';
import { benchLogSustained } from './log-sustained.ts';
import { benchPeerSolo, benchPeerTeam } from './peer.ts';
import { benchSoloThroughput } from './solo-throughput.ts';
import { benchSqlProfile } from './sql-profile.ts';
import { benchSqliteDrivers } from './sqlite-drivers.ts';
import { benchTeamLoad } from './team-load.ts';
import { benchTeamSim } from './team-sim.ts';
import { benchUiDashboard } from './ui-dashboard.ts';
import { benchUiHistory } from './ui-history.ts';
import { benchUiLayout } from './ui-layout.ts';
import { benchUiRunGraph } from './ui-run-graph.ts';
import { benchUiLogs } from './ui-logs.ts';
import { benchUiRealData } from './ui-real-data.ts';
import { benchUiRuns } from './ui-runs.ts';
import { type BenchOptions, type BenchTable, fmt } from './util.ts';

const BENCHMARKS: Record<string, (options: BenchOptions) => Promise<BenchTable>> = {
  advance: benchDependencyAdvance,
  // one SUCCESS that other workflows wait for, 1,000 workflows × 10 tasks
  cross: benchCrossRelease,
  throughput: benchSoloThroughput,
  // the times of guards the tests assert only by what they do (alias bombs, size limit, SIGTERM)
  guards: benchGuardTimes,
  logs: benchLogInsert,
  // the log store under a steady pace for --log-seconds at --log-rate lines/s (only when named)
  'logs-sustained': async (options) => benchLogSustained(options, await logStores()),
  // migration 0026 over --migrate-rows old log rows, per store (only when named)
  'logs-migration': benchLogMigration,
  rss: benchEngineRss,
  // against BullMQ + spawn and raw spawn, in the same run
  peer: benchPeerSolo,
  'peer-team': benchPeerTeam,
  'sql-profile': benchSqlProfile,
  // logs and peer under each runtime and SQLite driver (only when named: it runs them again per driver)
  'sqlite-drivers': benchSqliteDrivers,
  'team-load': benchTeamLoad,
  // schedulers + one process of simulated workers (ax serve --simulate), offered rising rates (only when named)
  'team-sim': benchTeamSim,
  // a database worker and an edge worker (URL + token) on the same workload (only when named)
  'edge-worker': benchEdgeWorker,
  // headless Chromium against `ax serve` (skipped with the reason when Chromium is missing)
  'ui-dashboard': benchUiDashboard,
  // the workflow page's history grid, 150 tasks × 50 runs: paint and scroll
  'ui-history': benchUiHistory,
  'ui-layout': benchUiLayout,
  'ui-logs': benchUiLogs,
  // the runs page across workflows: 10,000 runs, a filter change, the calendar of a year
  'ui-runs': benchUiRuns,
  'ui-run-graph': benchUiRunGraph,
  // one half of ui-logs (only when named): the 1,000,000-line instance, or the 10,000 lines/s task
  'ui-logs-big': (options) => benchUiLogs(options, ['big']),
  'ui-logs-firehose': (options) => benchUiLogs(options, ['firehose']),
  // the main screens with the realistic data set (test/helpers/real-data.ts)
  'ui-real-data': benchUiRealData,
};
const DEFAULT = [
  'advance',
  'cross',
  'throughput',
  'guards',
  'logs',
  'rss',
  'peer',
  'peer-team',
  'ui-dashboard',
  'ui-history',
  'ui-layout',
  'ui-logs',
  'ui-real-data',
  'ui-runs',
  'ui-run-graph',
];

function printTable(table: BenchTable): void {
  const cells = [table.columns, ...table.rows.map((r) => r.map(String))];
  const widths = table.columns.map((_, c) => Math.max(...cells.map((r) => (r[c] ?? '').length)));
  const line = (r: string[]) => `| ${r.map((v, c) => v.padEnd(widths[c] as number)).join(' | ')} |`;
  console.log(`\n## ${table.title}\n`);
  console.log(line(table.columns));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const r of cells.slice(1)) console.log(line(r));
  if (table.notes.length > 0) console.log('');
  for (const n of table.notes) console.log(`- ${n}`);
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      only: { type: 'string' },
      json: { type: 'string' },
      // team-sim's sizes (bench/team-sim.ts)
      'sim-workers': { type: 'string' },
      'sim-slots': { type: 'string' },
      'sim-schedulers': { type: 'string' },
      'sim-rates': { type: 'string' },
      'sim-tasks': { type: 'string' },
      'sim-duration': { type: 'string' },
      // logs-sustained's pace and length (bench/log-sustained.ts)
      'log-seconds': { type: 'string' },
      'log-rate': { type: 'string' },
      // which of them: sqlite, mariadb, postgresql (comma-separated; default every one reachable);
      // logs-migration takes it too
      'log-stores': { type: 'string' },
      // logs-migration's size: old log rows to move (bench/log-migration.ts)
      'migrate-rows': { type: 'string' },
      'sim-kill': { type: 'string' },
      'sim-database': { type: 'string' },
    },
  });
  const names = values.only ? values.only.split(',') : DEFAULT;
  const unknown = names.filter((n) => !(n in BENCHMARKS));
  if (unknown.length > 0)
    throw new Error(`unknown benchmark ${unknown.join(', ')}: choose from ${Object.keys(BENCHMARKS).join(', ')}`);

  const started = Date.now();
  const options: BenchOptions = {
    quick: values.quick,
    progress: (m) => process.stderr.write(`[${fmt((Date.now() - started) / 1000, 0).padStart(4)} s] ${m}\n`),
    args: { ...values, quick: undefined },
  };
  const load = os
    .loadavg()
    .map((l) => fmt(l))
    .join(' ');
  console.log(`# AX Scheduler benchmarks${values.quick ? ' (--quick: smoke sizes, not measurements)' : ''}`);
  console.log(
    `node ${process.version}, ${os.cpus().length} CPUs (${os.cpus()[0]?.model ?? '?'}), ${fmt(os.totalmem() / 2 ** 30, 1)} GiB, ${os.type()} ${os.release()}`,
  );
  console.log(`load average at start: ${load}`);

  const results: BenchTable[] = [];
  for (const name of names) {
    options.progress(`${name}: start`);
    const table = await (BENCHMARKS[name] as (o: BenchOptions) => Promise<BenchTable>)(options);
    results.push(table);
    printTable(table);
  }
  console.log(
    `\nload average at end: ${os
      .loadavg()
      .map((l) => fmt(l))
      .join(' ')}; total ${fmt((Date.now() - started) / 1000, 0)} s`,
  );
  if (values.json)
    fs.writeFileSync(
      values.json,
      `${JSON.stringify({ quick: values.quick, node: process.version, results }, null, 2)}\n`,
    );
}

await main();
