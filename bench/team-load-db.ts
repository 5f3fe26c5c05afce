// The benchmarks' own connection to the team database, MariaDB/MySQL or PostgreSQL, for reading
// figures (task_instance, workflow_run, log chunks) and the server's counters once runs end.
import mysql from 'mysql2/promise';
import pg from 'pg';
import { teamDatabaseKind } from '../engine/adapters/sql/team-store.ts';

/** Rows as the figures read them: any column by name (numbers as numbers on both databases). */
export type BenchRow = mysql.RowDataPacket;

export interface BenchDb {
  kind: 'mysql' | 'postgres';
  rows(sql: string): Promise<BenchRow[]>;
  close(): Promise<void>;
}

/** A MySQL connection the caller opened, as a BenchDb (closing it ends the connection). */
export function mysqlBenchDb(c: mysql.Connection): BenchDb {
  return {
    kind: 'mysql',
    rows: async (sql) => (await c.query<mysql.RowDataPacket[]>(sql))[0],
    close: () => c.end(),
  };
}

/** A BenchDb as given, or a MySQL connection wrapped as one. */
export function benchDbOf(db: BenchDb | mysql.Connection): BenchDb {
  return 'rows' in db ? db : mysqlBenchDb(db);
}

// bigint (count, epoch ms columns) and numeric (sum) as numbers, like mysql2's supportBigNumbers
// without bigNumberStrings: the figures are far below 2^53.
const NUMERIC_OIDS = new Set([20, 1700]);

/** Opens one connection to the team database at url (mysql:// or postgres://). */
export async function openBenchDb(url: string): Promise<BenchDb> {
  if (teamDatabaseKind(url) !== 'postgres')
    return mysqlBenchDb(await mysql.createConnection({ uri: url, supportBigNumbers: true, bigNumberStrings: false }));
  const c = new pg.Client({
    connectionString: url,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        NUMERIC_OIDS.has(oid) ? Number : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
    },
  });
  await c.connect();
  return {
    kind: 'postgres',
    rows: async (sql) => (await c.query(sql)).rows as BenchRow[],
    close: () => c.end(),
  };
}
