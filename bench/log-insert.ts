// design.md §8 / §11: log lines per second into SQLite and MariaDB, batched (500 lines per
// appendLogs, one transaction) against one line per appendLogs (the seed's row-at-a-time
// inserts), plus the engine's own path (LogWriter.append, flushed in batches of
// config.logBatchLines), and tasks finishing together: how many commits their closing logs cost.
import path from 'node:path';
import type { LogLine } from '../engine/api/types.ts';
import { openMysqlStore } from '../engine/adapters/sql/mysql-store.ts';
import { openPostgresStore } from '../engine/adapters/sql/postgres-store.ts';
import { openSqliteStore } from '../engine/adapters/sql/sqlite-store.ts';
import { systemClock } from '../engine/adapters/system-clock.ts';
import { DEFAULT_CONFIG } from '../engine/core/model/config.ts';
import { LogWriter } from '../engine/core/logs/log-writer.ts';
import type { Store } from '../engine/ports/store.ts';
import {
  createPostgresDatabase,
  createTestDatabase,
  mysqlAvailable,
  postgresAvailable,
} from '../test/helpers/services.ts';
import { type BenchOptions, type BenchTable, fmt, removeDir, tempDir, timed } from './util.ts';

export const LINE_BYTES = 100;
const BATCH = 500;
/** lines are spread over this many instances, as output from several running tasks would be */
export const INSTANCES = 50;
/** finishing tasks: this many at a time (a worker's slots), each printing this many lines */
const SLOTS = 50;
const TASK_LINES = 100;

export function lineText(i: number): string {
  const head = `2025-01-01T00:00:00.000Z INFO worker row ${i} `;
  return head + 'x'.repeat(Math.max(0, LINE_BYTES - head.length));
}

function makeLines(count: number): LogLine[] {
  const ts = Date.now();
  return Array.from({ length: count }, (_, i) => ({
    instanceId: 1 + (i % INSTANCES),
    seq: 1 + Math.floor(i / INSTANCES),
    stream: 'stdout' as const,
    ts,
    line: lineText(i),
  }));
}

/** A fresh store; `url` (MariaDB, PostgreSQL) or `file` (SQLite) says where, to measure its size. */
export type Opener = () => Promise<{ store: Store; url?: string; file?: string; dispose(): Promise<void> }>;

const sqliteOpener: Opener = async () => {
  const dir = tempDir('ax-bench-logs-');
  const store = await openSqliteStore(path.join(dir, 'ax.db'));
  return {
    store,
    file: path.join(dir, 'ax.db'),
    async dispose() {
      await store.close();
      removeDir(dir);
    },
  };
};

const mysqlOpener: Opener = async () => {
  const db = await createTestDatabase('ax_bench_logs');
  const store = await openMysqlStore({ url: db.url });
  return {
    store,
    url: db.url,
    async dispose() {
      await store.close();
      await db.drop();
    },
  };
};

const postgresOpener: Opener = async () => {
  const db = await createPostgresDatabase('ax_bench_logs');
  const store = await openPostgresStore({ url: db.url });
  return {
    store,
    url: db.url,
    async dispose() {
      await store.close();
      await db.drop();
    },
  };
};

/** A fresh store per case, so no case inserts into a table the previous one filled. */
async function withStore<T>(open: Opener, fn: (store: Store) => Promise<T>): Promise<T> {
  const { store, dispose } = await open();
  try {
    return await fn(store);
  } finally {
    await dispose();
  }
}

/** Counts the store's appendLogs calls: one transaction each. */
function countCommits(store: Store): { count: number } {
  const counter = { count: 0 };
  const append = store.appendLogs.bind(store);
  store.appendLogs = (lines) => {
    counter.count += 1;
    return append(lines);
  };
  return counter;
}

export function writerFor(store: Store): LogWriter {
  return new LogWriter(store, systemClock, {
    batchLines: DEFAULT_CONFIG.logBatchLines,
    flushMs: DEFAULT_CONFIG.logFlushMs,
    maxOutputBytes: Number.MAX_SAFE_INTEGER,
    // The lines are appended in one synchronous loop, faster than any process writes them:
    // unbounded here, so that the figure is the store's pace, not the drop rule's.
    maxBufferBytes: Number.MAX_SAFE_INTEGER,
  });
}

interface Case {
  how: string;
  lines: number;
  ms: number;
  commits?: number;
  /** finishing tasks: the mean time from a task's last line to its close() resolving */
  closeMs?: number;
}

/** Tasks finishing as fast as they can, SLOTS at a time: each prints its lines, then closes. */
async function finishingTasks(store: Store, tasks: number): Promise<Case> {
  const commits = countCommits(store);
  const writer = writerFor(store);
  let next = 0;
  let closeTotal = 0;
  const [, ms] = await timed(() =>
    Promise.all(
      Array.from({ length: SLOTS }, async () => {
        while (next < tasks) {
          const id = ++next;
          writer.open(id);
          for (let i = 0; i < TASK_LINES; i++) writer.append(id, 'stdout', lineText(i), LINE_BYTES);
          // the process's exit arrives on a later turn of the event loop than its last line
          await new Promise((resolve) => setImmediate(resolve));
          const t0 = performance.now();
          const unstored = await writer.close(id);
          closeTotal += performance.now() - t0;
          if (unstored > 0) throw new Error(`task ${id}: ${unstored} line(s) not stored`);
        }
      }),
    ),
  );
  return {
    how: `${tasks} tasks of ${TASK_LINES} lines finishing, ${SLOTS} at a time`,
    lines: tasks * TASK_LINES,
    ms,
    commits: commits.count,
    closeMs: closeTotal / tasks,
  };
}

/**
 * Tasks finishing at a steady pace (one a millisecond, each with a few lines), as a busy worker
 * sees them: what each finish costs in commits, and how long its close() waits.
 */
async function steadyFinishes(store: Store, tasks: number): Promise<Case> {
  const commits = countCommits(store);
  const writer = writerFor(store);
  const lines = 20;
  let closeTotal = 0;
  const closes: Promise<void>[] = [];
  const [, ms] = await timed(async () => {
    for (let id = 1; id <= tasks; id++) {
      writer.open(id);
      for (let i = 0; i < lines; i++) writer.append(id, 'stdout', lineText(i), LINE_BYTES);
      const t0 = performance.now();
      closes.push(
        writer.close(id).then((unstored) => {
          closeTotal += performance.now() - t0;
          if (unstored > 0) throw new Error(`task ${id}: ${unstored} line(s) not stored`);
        }),
      );
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    await Promise.all(closes);
  });
  return {
    how: `${tasks} tasks of ${lines} lines, one finishing each ms`,
    lines: tasks * lines,
    ms,
    commits: commits.count,
    closeMs: closeTotal / tasks,
  };
}

async function casesFor(open: Opener, options: BenchOptions, label: string, withSingle: boolean): Promise<Case[]> {
  const batchedCount = options.quick ? 20_000 : 200_000;
  const singleCount = options.quick ? 2_000 : 20_000;
  const tasks = options.quick ? 200 : 2_000;
  const cases: Case[] = [];

  options.progress(`logs ${label}: ${batchedCount} lines, appendLogs in batches of ${BATCH}`);
  const batched = makeLines(batchedCount);
  cases.push({
    how: `appendLogs, batches of ${BATCH}`,
    lines: batchedCount,
    ms: await withStore(open, async (store) => {
      const [, ms] = await timed(async () => {
        for (let i = 0; i < batched.length; i += BATCH) await store.appendLogs(batched.slice(i, i + BATCH));
      });
      return ms;
    }),
  });

  if (withSingle) {
    options.progress(`logs ${label}: ${singleCount} lines, one appendLogs per line`);
    const single = makeLines(singleCount);
    cases.push({
      how: 'appendLogs, 1 line each',
      lines: singleCount,
      ms: await withStore(open, async (store) => {
        const [, ms] = await timed(async () => {
          for (const l of single) await store.appendLogs([l]);
        });
        return ms;
      }),
    });
  }

  options.progress(`logs ${label}: ${batchedCount} lines through LogWriter (batch ${DEFAULT_CONFIG.logBatchLines})`);
  cases.push(
    await withStore(open, async (store) => {
      const commits = countCommits(store);
      const writer = writerFor(store);
      for (let i = 1; i <= INSTANCES; i++) writer.open(i);
      const [, ms] = await timed(async () => {
        for (const l of batched) writer.append(l.instanceId, 'stdout', l.line, LINE_BYTES);
        await writer.flush();
      });
      const failure = writer.takeFailure();
      if (failure) throw failure;
      return { how: 'LogWriter.append (engine path)', lines: batchedCount, ms, commits: commits.count };
    }),
  );

  options.progress(`logs ${label}: ${tasks} finishing tasks through LogWriter.close`);
  cases.push(await withStore(open, (store) => finishingTasks(store, tasks)));
  options.progress(`logs ${label}: ${tasks} tasks finishing one a millisecond`);
  cases.push(await withStore(open, (store) => steadyFinishes(store, tasks)));
  return cases;
}

export async function benchLogInsert(options: BenchOptions): Promise<BenchTable> {
  const rows: (string | number)[][] = [];
  const row = (db: string, c: Case) => {
    const rate = c.lines / (c.ms / 1000);
    rows.push([
      db,
      c.how,
      c.lines,
      fmt(c.ms / 1000),
      fmt(rate, 0),
      fmt((rate * LINE_BYTES) / 1e6, 1),
      c.commits ?? '',
      c.closeMs === undefined ? '' : fmt(c.closeMs, 1),
    ]);
  };
  for (const c of await casesFor(sqliteOpener, options, 'SQLite', true)) row('SQLite', c);
  const notes = [
    'SQLite in WAL mode with synchronous=NORMAL (openSqliteStore): a commit does not fsync, so single-row inserts are cheaper here than in MySQL',
    `lines spread over ${INSTANCES} instance ids; fresh database per case; commits = appendLogs calls (one transaction each)`,
    `finishing tasks: ${SLOTS} loops, each opening a task, appending its ${TASK_LINES} lines, yielding one event-loop turn (its exit), then awaiting close(); close ms = mean wait in close(); "one finishing each ms": a timer of 1 ms between finishes (Node makes it ≥ 1 ms), lines/s is then the offered pace, not a capacity`,
  ];
  const servers = [
    {
      label: 'MariaDB',
      open: mysqlOpener,
      available: mysqlAvailable,
      note: 'the local server (AX_TEST_MYSQL_URL or root@127.0.0.1:3306), a fresh database per case, InnoDB defaults of the server',
    },
    {
      label: 'PostgreSQL',
      open: postgresOpener,
      available: postgresAvailable,
      note: 'the local server (AX_TEST_POSTGRES_URL or postgres@127.0.0.1:5432), a fresh database per case, server defaults',
    },
  ];
  for (const server of servers) {
    if (!(await server.available())) {
      notes.push(`${server.label}: not reachable, not measured`);
      continue;
    }
    for (const c of await casesFor(server.open, options, server.label, true)) row(server.label, c);
    notes.push(`${server.label}: ${server.note}`);
  }
  return {
    title: `Log lines into SQLite, MariaDB and PostgreSQL (~${LINE_BYTES}-byte lines)`,
    columns: ['store', 'how', 'lines', 'seconds', 'lines/s', 'MB/s', 'commits', 'close ms'],
    rows,
    notes,
  };
}

/** The stores the log benchmarks measure: SQLite, and MariaDB and PostgreSQL when reachable. */
export async function logStores(): Promise<{ label: string; open: Opener }[]> {
  const stores = [{ label: 'SQLite', open: sqliteOpener }];
  if (await mysqlAvailable()) stores.push({ label: 'MariaDB', open: mysqlOpener });
  if (await postgresAvailable()) stores.push({ label: 'PostgreSQL', open: postgresOpener });
  return stores;
}
