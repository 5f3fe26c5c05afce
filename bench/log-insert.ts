// SPEC §8 / §11: log lines per second into SQLite, batched (500 lines per appendLogs, one
// transaction) against one line per appendLogs (the seed's row-at-a-time inserts), plus the
// engine's own path (LogWriter.append, flushed in batches of config.logBatchLines).
import path from 'node:path';
import type { LogLine } from '../engine/api/types.ts';
import { openSqliteStore } from '../engine/adapters/sql/sqlite-store.ts';
import { systemClock } from '../engine/adapters/system-clock.ts';
import { DEFAULT_CONFIG } from '../engine/core/config.ts';
import { LogWriter } from '../engine/core/log-writer.ts';
import type { Store } from '../engine/ports/store.ts';
import { type BenchOptions, type BenchTable, fmt, removeDir, tempDir, timed } from './util.ts';

const LINE_BYTES = 100;
const BATCH = 500;
/** lines are spread over this many instances, as output from several running tasks would be */
const INSTANCES = 50;

function lineText(i: number): string {
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

/** A fresh store per case, so no case inserts into a table the previous one filled. */
async function withStore<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  const dir = tempDir('ax-bench-logs-');
  const store = await openSqliteStore(path.join(dir, 'ax.db'));
  try {
    return await fn(store);
  } finally {
    await store.close();
    removeDir(dir);
  }
}

export async function benchLogInsert(options: BenchOptions): Promise<BenchTable> {
  const batchedCount = options.quick ? 20_000 : 200_000;
  const singleCount = options.quick ? 2_000 : 20_000;

  options.progress(`logs: ${batchedCount} lines, appendLogs in batches of ${BATCH}`);
  const batched = makeLines(batchedCount);
  const batchedMs = await withStore(async (store) => {
    const [, ms] = await timed(async () => {
      for (let i = 0; i < batched.length; i += BATCH) await store.appendLogs(batched.slice(i, i + BATCH));
    });
    return ms;
  });

  options.progress(`logs: ${singleCount} lines, one appendLogs per line`);
  const single = makeLines(singleCount);
  const singleMs = await withStore(async (store) => {
    const [, ms] = await timed(async () => {
      for (const l of single) await store.appendLogs([l]);
    });
    return ms;
  });

  options.progress(`logs: ${batchedCount} lines through LogWriter (batch ${DEFAULT_CONFIG.logBatchLines})`);
  const writerMs = await withStore(async (store) => {
    const writer = new LogWriter(store, systemClock, {
      batchLines: DEFAULT_CONFIG.logBatchLines,
      flushMs: DEFAULT_CONFIG.logFlushMs,
      maxOutputBytes: Number.MAX_SAFE_INTEGER,
    });
    for (let i = 1; i <= INSTANCES; i++) writer.open(i);
    const [, ms] = await timed(async () => {
      for (const l of batched) writer.append(l.instanceId, 'stdout', l.line, LINE_BYTES);
      await writer.flush();
    });
    const failure = writer.takeFailure();
    if (failure) throw failure;
    return ms;
  });

  const rate = (count: number, ms: number) => count / (ms / 1000);
  const batchedRate = rate(batchedCount, batchedMs);
  const singleRate = rate(singleCount, singleMs);
  const writerRate = rate(batchedCount, writerMs);
  return {
    title: `Log lines into SQLite (~${LINE_BYTES}-byte lines)`,
    columns: ['how', 'lines', 'seconds', 'lines/s', 'MB/s'],
    rows: [
      [`appendLogs, batches of ${BATCH}`, batchedCount, fmt(batchedMs / 1000), fmt(batchedRate, 0), fmt((batchedRate * LINE_BYTES) / 1e6, 1)],
      ['appendLogs, 1 line each', singleCount, fmt(singleMs / 1000), fmt(singleRate, 0), fmt((singleRate * LINE_BYTES) / 1e6, 1)],
      [`LogWriter.append (engine path)`, batchedCount, fmt(writerMs / 1000), fmt(writerRate, 0), fmt((writerRate * LINE_BYTES) / 1e6, 1)],
      ['batched ÷ single', '', '', `${fmt(batchedRate / singleRate, 1)}×`, ''],
    ],
    notes: [
      'SQLite in WAL mode with synchronous=NORMAL (openSqliteStore): a commit does not fsync, so single-row inserts are cheaper here than in MySQL',
      `lines spread over ${INSTANCES} instance ids; fresh database per case`,
    ],
  };
}
