// Migration 0026 on a database an older AX wrote, a row per log line: the lines move into chunks
// and read as before (paging, search, extent), and lines appended afterwards follow them.
// SQLite, MariaDB and PostgreSQL alike.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { LogLine } from '../../engine/api/types.ts';
import type { SqlDialectName } from '../../engine/adapters/sql/migrations.ts';
import { openMysqlStore } from '../../engine/adapters/sql/mysql-store.ts';
import { openPostgresStore } from '../../engine/adapters/sql/postgres-store.ts';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import { asBeforeLogChunks, insertOldRows } from '../helpers/old-log-rows.ts';
import {
  createPostgresDatabase,
  createTestDatabase,
  MYSQL_ADMIN_URL,
  mysqlAvailable,
  POSTGRES_ADMIN_URL,
  postgresAvailable,
} from '../helpers/services.ts';

const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);
const mysql = await mysqlAvailable();
const postgres = await postgresAvailable();

const BIG = 7;
const SMALL = 8;
/** 5,500 lines of one instance and 500 of another, interleaved as two running tasks write them: more than one page of the move */
function oldLines(): LogLine[] {
  const out: LogLine[] = [];
  let small = 0;
  for (let seq = 1; seq <= 5_500; seq++) {
    out.push({ instanceId: BIG, seq, stream: seq % 7 === 0 ? 'stderr' : 'stdout', ts: T0 + seq, line: `big ${seq}` });
    if (seq % 11 === 0) {
      small += 1;
      out.push({ instanceId: SMALL, seq: small, stream: 'stdout', ts: T0 + seq, line: `small ${small} ünï` });
    }
  }
  return out;
}

async function checkMoved(store: SqlStore, lines: LogLine[]): Promise<void> {
  const big = lines.filter((l) => l.instanceId === BIG);
  const small = lines.filter((l) => l.instanceId === SMALL);
  expect(await store.readLogs(BIG, 0, 10_000)).toEqual(big);
  expect(await store.readLogs(SMALL, 0, 10_000)).toEqual(small);
  expect(await store.readLogs(BIG, 4_998, 3)).toEqual(big.slice(4_998, 5_001));
  expect(await store.logExtent(BIG)).toEqual({ firstSeq: 1, lastSeq: 5_500, lines: 5_500 });
  expect(await store.logExtent(SMALL)).toEqual({ firstSeq: 1, lastSeq: 500, lines: 500 });
  expect((await store.searchLog(BIG, 'BIG 500', 0, 100)).map((l) => l.seq)).toEqual([
    500,
    5_000,
    ...range(5_001, 5_009),
  ]);
  expect((await store.searchLog(SMALL, 'ÜNÏ', 495, 100)).map((l) => l.seq)).toEqual(range(496, 500));
  // the old table is gone: every line is in chunks
  const { rows } = await sql<{ n: number | string }>`select count(*) as n from execution_log_chunk`.execute(store.db);
  expect(Number(rows[0]?.n)).toBeGreaterThanOrEqual(3);
  await expect(sql`select count(*) from execution_log`.execute(store.db)).rejects.toThrow();
  // a line appended after the move follows the moved ones
  await store.appendLogs([{ instanceId: BIG, seq: 5_501, stream: 'system', ts: T0 + 9_999, line: 'after the move' }]);
  expect((await store.readLogs(BIG, 5_499, 10)).map((l) => l.line)).toEqual(['big 5500', 'after the move']);
  // and retention takes the moved lines by age
  expect(await store.purgeLogs(T0 + 9_000)).toBe(6_000);
  expect(await store.logExtent(BIG)).toEqual({ firstSeq: 5_501, lastSeq: 5_501, lines: 1 });
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

type Open = (onNote: (message: string) => void) => Promise<SqlStore>;

async function migrateOld(open: Open, dialect: SqlDialectName): Promise<void> {
  const lines = oldLines();
  const notes: string[] = [];
  const old = await open((m) => notes.push(m));
  await asBeforeLogChunks(old.db, dialect);
  await insertOldRows(old.db, lines);
  await old.close();
  expect(notes, 'a new database has no old lines to move').toEqual([]);
  const reopened = await open((m) => notes.push(m));
  try {
    await checkMoved(reopened, lines);
  } finally {
    await reopened.close();
  }
  // The start that moves old lines says so (it can take minutes), before and after.
  expect(notes).toEqual([
    expect.stringContaining('moving 6,000 stored log lines into compressed chunks'),
    expect.stringMatching(/^log store upgraded: 6,000 lines moved in \d+\.\d s$/),
  ]);
}

describe('the log chunk migration on a database with a row per line', () => {
  it('sqlite: the old lines move into chunks and read as before', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ax-log-chunks-'));
    try {
      await migrateOld((onNote) => openSqliteStore(join(dir, 'ax.db'), { onNote }), 'sqlite');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // Not under CI (mysqlAvailable throws there): a developer machine without MariaDB.
  it.skipIf(!mysql)(`mysql: the same on a team database (needs MariaDB/MySQL at ${MYSQL_ADMIN_URL})`, async () => {
    const database = await createTestDatabase('ax_log_chunks');
    try {
      await migrateOld((onNote) => openMysqlStore({ url: database.url, onNote }), 'mysql');
    } finally {
      await database.drop();
    }
  });

  // Not under CI (postgresAvailable throws there): a developer machine without PostgreSQL.
  it.skipIf(!postgres)(`postgres: the same on PostgreSQL (needs it at ${POSTGRES_ADMIN_URL})`, async () => {
    const database = await createPostgresDatabase('ax_log_chunks');
    try {
      await migrateOld((onNote) => openPostgresStore({ url: database.url, onNote }), 'postgres');
    } finally {
      await database.drop();
    }
  });
});
