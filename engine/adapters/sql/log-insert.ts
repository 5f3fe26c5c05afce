// The log's hot path: a batch of lines stored as compressed chunks, one per instance in the batch
// (log-chunks.ts), in one transaction. 50,000 lines/s from the engine's LogWriter are then a few
// hundred rows a second, not 50,000 (issue 26 part 5: row-per-line inserts were the wall on
// MariaDB and PostgreSQL).
import type { Kysely } from 'kysely';
import type { LogLine } from '../../api/types.ts';
import { type ChunkRow, chunkLines, encodeChunk } from './log-chunks.ts';
import type { Database } from './schema.ts';

/** per insert statement: well under MySQL's max_allowed_packet */
const STATEMENT_BYTES = 4 << 20;
const STATEMENT_ROWS = 200;

/** Rows cut into statements of at most STATEMENT_ROWS rows and about STATEMENT_BYTES of bodies. */
function statements(rows: ChunkRow[]): ChunkRow[][] {
  const out: ChunkRow[][] = [];
  let part: ChunkRow[] = [];
  let bytes = 0;
  for (const row of rows) {
    if (part.length > 0 && (part.length >= STATEMENT_ROWS || bytes + row.body.length > STATEMENT_BYTES)) {
      out.push(part);
      part = [];
      bytes = 0;
    }
    part.push(row);
    bytes += row.body.length;
  }
  if (part.length > 0) out.push(part);
  return out;
}

/** Stores chunk rows in the current transaction (or `db`'s own statements); also the migration's. */
export async function insertChunks(db: Kysely<Database>, rows: ChunkRow[]): Promise<void> {
  for (const part of statements(rows)) await db.insertInto('execution_log_chunk').values(part).execute();
}

export async function insertLogs(db: Kysely<Database>, lines: LogLine[]): Promise<void> {
  if (lines.length === 0) return;
  // Compressed before the transaction opens, in parallel on the thread pool.
  const rows = await Promise.all(chunkLines(lines).map(encodeChunk));
  if (rows.length === 1) return insertChunks(db, rows);
  await db.transaction().execute((trx) => insertChunks(trx, rows));
}
