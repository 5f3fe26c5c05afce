// The log's hot path: a batch of lines stored as compressed chunks, one per instance in the batch
// (log-chunks.ts), in one transaction. 50,000 lines/s from the engine's LogWriter are then a few
// hundred rows a second, not 50,000 (issue 26 part 5: row-per-line inserts were the wall on
// MariaDB and PostgreSQL).
import type { Kysely } from 'kysely';
import type { LogLine } from '../../api/types.ts';
import { type ChunkRow, chunkLines, cutRuns, encodeChunk } from './log-chunks.ts';
import type { Database } from './schema.ts';

/** per insert statement: well under MySQL's max_allowed_packet */
const STATEMENT_BYTES = 4 << 20;
const STATEMENT_ROWS = 200;

/** Stores chunk rows in the current transaction (or `db`'s own statements); also the migration's. */
export async function insertChunks(db: Kysely<Database>, rows: ChunkRow[]): Promise<void> {
  for (const part of cutRuns(rows, STATEMENT_ROWS, STATEMENT_BYTES, (row) => row.body.length))
    await db.insertInto('execution_log_chunk').values(part).execute();
}

export async function insertLogs(db: Kysely<Database>, lines: LogLine[]): Promise<void> {
  if (lines.length === 0) return;
  // Compressed before the transaction opens, on the thread pool, one chunk at a time: a batch's
  // text is not held twice over while the store is away and the batch is retried.
  const rows: ChunkRow[] = [];
  for (const chunk of chunkLines(lines)) rows.push(await encodeChunk(chunk));
  if (rows.length === 1) return insertChunks(db, rows);
  await db.transaction().execute((trx) => insertChunks(trx, rows));
}
