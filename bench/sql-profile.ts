// Where the solo engine's time goes per task: every SQL statement the engine runs during the
// throughput benchmark, counted per execution with its prepare and execute time and the rows it
// returned (statements are cached and reused, so preparing is not executing).
// A diagnostic, not part of the default run (`npm run bench -- --only sql-profile`): the
// counting wraps better-sqlite3's prepare, which adds a little to every query.
import Database from 'better-sqlite3';
import { performance } from 'node:perf_hooks';
import { engineThroughput } from './solo-throughput.ts';
import { type BenchOptions, type BenchTable, fmt } from './util.ts';

interface QueryStats {
  count: number;
  prepareMs: number;
  executeMs: number;
  rows: number;
}

type Method = (...args: unknown[]) => unknown;

/** Counts every statement prepared on any better-sqlite3 connection until the returned stop(). */
function countQueries(): { stats: Map<string, QueryStats>; stop: () => void } {
  const stats = new Map<string, QueryStats>();
  const proto = Database.prototype as unknown as { prepare: (sql: string) => Record<string, unknown> };
  const original = proto.prepare;
  proto.prepare = function (this: unknown, sql: string) {
    const t0 = performance.now();
    const statement = original.call(this, sql);
    // Placeholder lists differ in length only: one entry per statement shape.
    const key = sql.replace(/\?(, \?)+/g, '?, …');
    const s = stats.get(key) ?? { count: 0, prepareMs: 0, executeMs: 0, rows: 0 };
    s.prepareMs += performance.now() - t0;
    stats.set(key, s);
    for (const name of ['all', 'get', 'run']) {
      const method = statement[name] as Method | undefined;
      if (typeof method !== 'function') continue;
      statement[name] = (...args: unknown[]) => {
        const t = performance.now();
        const result = method.apply(statement, args);
        s.count += 1;
        s.executeMs += performance.now() - t;
        if (Array.isArray(result)) s.rows += result.length;
        else if (name === 'get' && result !== undefined) s.rows += 1;
        return result;
      };
    }
    return statement;
  };
  return { stats, stop: () => (proto.prepare = original) };
}

/** The start of a statement, enough to tell which engine query it is. */
function shortSql(sql: string): string {
  return sql
    .replace(/"/g, '')
    .replace(/select (.{40}).* from/, 'select $1… from')
    .slice(0, 110);
}

export async function benchSqlProfile(options: BenchOptions): Promise<BenchTable> {
  const tasks = options.quick ? 200 : 1_000;
  options.progress(`sql-profile: engine, ${tasks} independent true tasks, counting queries`);
  const { stats, stop } = countQueries();
  let run;
  try {
    run = await engineThroughput(tasks);
  } finally {
    stop();
  }
  const all = [...stats.values()];
  const total = (f: (s: QueryStats) => number) => all.reduce((n, s) => n + f(s), 0);
  const sqlMs = total((s) => s.prepareMs + s.executeMs);
  const top = [...stats]
    .sort((a, b) => b[1].prepareMs + b[1].executeMs - (a[1].prepareMs + a[1].executeMs))
    .slice(0, 12);
  return {
    title: `SQL per task in solo mode (${tasks} independent \`true\` tasks; one instrumented run)`,
    columns: ['statement', 'per task', 'rows per task', 'prepare ms', 'execute ms', '% of run'],
    rows: [
      ...top.map(([sql, s]) => [
        shortSql(sql),
        fmt(s.count / tasks),
        fmt(s.rows / tasks, 1),
        fmt(s.prepareMs, 0),
        fmt(s.executeMs, 0),
        fmt(((s.prepareMs + s.executeMs) / run.totalMs) * 100, 1),
      ]),
      [
        'all statements',
        fmt(total((s) => s.count) / tasks, 1),
        fmt(total((s) => s.rows) / tasks, 1),
        fmt(
          total((s) => s.prepareMs),
          0,
        ),
        fmt(
          total((s) => s.executeMs),
          0,
        ),
        fmt((sqlMs / run.totalMs) * 100, 1),
      ],
    ],
    notes: [
      `the run took ${fmt(run.totalMs / 1000)} s (${fmt(tasks / (run.totalMs / 1000), 1)} tasks/s, slowed a little by the counting); SQL ran ${fmt(sqlMs / 1000)} s of it, on the engine's one thread`,
      'better-sqlite3 is synchronous: while a statement runs, the event loop (heartbeats, process exits, timers) waits',
    ],
  };
}
