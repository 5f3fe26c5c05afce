// Issue 26 part 5: does the log store hold a pace for minutes, not only a burst? Lines are offered
// to the engine's LogWriter at a steady rate (--log-rate, default 50,000 lines/s, spread over
// INSTANCES running tasks) for --log-seconds (default 10 s); reported: the lines/s the store
// absorbed, how long it took to drain what was still buffered when the offer stopped, and the log
// tables' size on disk afterwards.
import fs from 'node:fs';
import mysql from 'mysql2/promise';
import pg from 'pg';
import { systemClock } from '../engine/adapters/system-clock.ts';
import { LogWriter } from '../engine/core/logs/log-writer.ts';
import { DEFAULT_CONFIG } from '../engine/core/model/config.ts';
import type { Store } from '../engine/ports/store.ts';
import { type Opener, INSTANCES, LINE_BYTES, lineText } from './log-insert.ts';
import { type BenchOptions, type BenchTable, fmt } from './util.ts';

const LOG_TABLES = ['execution_log', 'execution_log_chunk'];
const TICK_MS = 10;

export interface SustainedFigures {
  offered: number;
  /** lines the writer dropped because its buffer (the engine's default bound) was full: the store fell behind */
  dropped: number;
  seconds: number;
  /** lines stored per second, from the first line offered to the last one stored */
  rate: number;
  /** seconds from the end of the offer to the last line stored: a backlog the store did not keep up with */
  drainSeconds: number;
  /** the log tables' bytes on disk (data + indexes), undefined when not measurable */
  bytes?: number;
  /** the most bytes waiting for a write in each minute of the offer (the last one may be shorter) */
  backlogPerMinute: number[];
}

/** Offers `rate` lines/s for `seconds` through a LogWriter on the store; resolves once all are stored. */
async function offer(store: Store, rate: number, seconds: number): Promise<Omit<SustainedFigures, 'bytes'>> {
  const backlogPerMinute: number[] = [];
  let dropped = 0;
  // As the engine writes logs: its batch and interval, and its buffer bound (32 MiB), past which
  // lines are dropped, so a store that falls behind shows as dropped lines, not as memory.
  const writer = new LogWriter(store, systemClock, {
    batchLines: DEFAULT_CONFIG.logBatchLines,
    flushMs: DEFAULT_CONFIG.logFlushMs,
    maxOutputBytes: Number.MAX_SAFE_INTEGER,
    onDropped: () => void dropped++,
  });
  for (let i = 1; i <= INSTANCES; i++) writer.open(i);
  const t0 = performance.now();
  let sent = 0;
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const elapsed = (performance.now() - t0) / 1000;
      const due = Math.floor(rate * Math.min(elapsed, seconds));
      for (; sent < due; sent++) writer.append(1 + (sent % INSTANCES), 'stdout', lineText(sent), LINE_BYTES);
      const minute = Math.floor(Math.min(elapsed, seconds - 1e-9) / 60);
      backlogPerMinute[minute] = Math.max(backlogPerMinute[minute] ?? 0, writer.backlogBytes);
      if (elapsed >= seconds) {
        clearInterval(timer);
        resolve();
      }
    }, TICK_MS);
  });
  const offerEnd = performance.now();
  await writer.flush();
  const failure = writer.takeFailure();
  if (failure) throw failure;
  const end = performance.now();
  const took = (end - t0) / 1000;
  return {
    offered: sent,
    dropped,
    seconds: took,
    rate: (sent - dropped) / took,
    drainSeconds: (end - offerEnd) / 1000,
    backlogPerMinute: [...backlogPerMinute].map((b) => b ?? 0),
  };
}

/** Bytes of the log tables (data + indexes) in the store at `url` or `file`. */
export async function logBytes(where: { url?: string; file?: string }): Promise<number | undefined> {
  if (where.file) {
    const size = (f: string) => (fs.existsSync(f) ? fs.statSync(f).size : 0);
    return size(where.file) + size(`${where.file}-wal`);
  }
  if (!where.url) return undefined;
  if (where.url.startsWith('postgres')) {
    const c = new pg.Client({ connectionString: where.url });
    await c.connect();
    try {
      await c.query('checkpoint').catch(() => undefined);
      const r = await c.query<{ n: string }>(
        `select coalesce(sum(pg_total_relation_size(c.oid)), 0) as n from pg_class c where c.relname = any($1) and c.relkind = 'r'`,
        [LOG_TABLES],
      );
      return Number(r.rows[0]?.n ?? 0);
    } finally {
      await c.end();
    }
  }
  const c = await mysql.createConnection(where.url);
  try {
    const [present] = await c.query<mysql.RowDataPacket[]>(
      'select table_name as t from information_schema.tables where table_schema = database() and table_name in (?)',
      [LOG_TABLES],
    );
    // InnoDB's figures in information_schema are refreshed by ANALYZE TABLE
    for (const p of present) await c.query(`analyze table \`${String(p.t)}\``);
    const [rows] = await c.query<mysql.RowDataPacket[]>(
      'select coalesce(sum(data_length + index_length), 0) as n from information_schema.tables where table_schema = database() and table_name in (?)',
      [LOG_TABLES],
    );
    return Number(rows[0]?.n ?? 0);
  } finally {
    await c.end();
  }
}

export async function sustained(open: Opener, rate: number, seconds: number): Promise<SustainedFigures> {
  const opened = await open();
  try {
    const figures = await offer(opened.store, rate, seconds);
    return { ...figures, bytes: await logBytes(opened) };
  } finally {
    await opened.dispose();
  }
}

/** The stores named by --log-stores (labels, any case, comma-separated), or every one available. */
export function chooseStores<T extends { label: string }>(stores: T[], names: string | undefined): T[] {
  if (names === undefined) return stores;
  const wanted = names.split(',').map((n) => n.trim().toLowerCase());
  const known = stores.map((s) => s.label.toLowerCase());
  const unknown = wanted.filter((n) => !known.includes(n));
  if (unknown.length || !wanted.length)
    throw new Error(
      `--log-stores names stores among those reachable here (${known.join(', ')}); not: ${unknown.join(', ') || '(none given)'}`,
    );
  return stores.filter((s) => wanted.includes(s.label.toLowerCase()));
}

export async function benchLogSustained(
  options: BenchOptions,
  stores: { label: string; open: Opener }[],
): Promise<BenchTable> {
  const seconds = Number(options.args?.['log-seconds'] ?? (options.quick ? 3 : 10));
  const rate = Number(options.args?.['log-rate'] ?? 50_000);
  if (!(seconds > 0) || !(rate > 0))
    throw new Error('--log-seconds and --log-rate take positive numbers, e.g. --log-seconds 60 --log-rate 50000');
  const chosen = chooseStores(stores, options.args?.['log-stores']);
  const rows: (string | number)[][] = [];
  const minutes: string[] = [];
  for (const { label, open } of chosen) {
    options.progress(`logs-sustained ${label}: ${rate} lines/s offered for ${seconds} s`);
    const f = await sustained(open, rate, seconds);
    rows.push([
      label,
      f.offered,
      f.dropped,
      fmt(f.seconds),
      fmt(f.rate, 0),
      fmt(f.drainSeconds, 1),
      f.bytes === undefined ? '' : fmt(f.bytes / 2 ** 20, 1),
      f.bytes === undefined || f.offered === f.dropped ? '' : fmt(f.bytes / (f.offered - f.dropped), 0),
      fmt(Math.max(0, ...f.backlogPerMinute) / 2 ** 20, 1),
    ]);
    minutes.push(`${label}: ${f.backlogPerMinute.map((b) => fmt(b / 2 ** 20, 1)).join(' · ')}`);
  }
  return {
    title: `Log store under a sustained pace: ${rate} lines/s offered for ${seconds} s (~${LINE_BYTES}-byte lines)`,
    columns: [
      'store',
      'lines offered',
      'dropped',
      'seconds',
      'lines/s stored',
      'drain s',
      'MiB on disk',
      'bytes/line',
      'max backlog MiB',
    ],
    rows,
    notes: [
      `lines offered every ${TICK_MS} ms to LogWriter (the engine's batching), spread over ${INSTANCES} instances; seconds = first line offered to last line stored`,
      'dropped: lines LogWriter dropped with its default 32 MiB buffer full, i.e. the store did not keep up (0: it held the pace)',
      'drain s: time from the end of the offer to the last line stored (near the flush interval when the store keeps up)',
      'max backlog: the most bytes of lines waiting for a write at any moment of the offer (the writer drops lines past 32 MiB); a store that keeps up stays near one flush interval of lines',
      `max backlog per minute of the offer (MiB): ${minutes.join('; ')}`,
      'on disk: the log tables with their indexes (MariaDB: information_schema after ANALYZE TABLE; PostgreSQL: pg_total_relation_size; SQLite: the file and its WAL)',
    ],
  };
}
