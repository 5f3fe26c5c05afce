// The log's hot path: inserting execution_log rows, a transaction per batch (design.md §8: the seed
// saturated MySQL with row-at-a-time inserts). The statement text is written here rather than
// built by Kysely: compiling a 1,000-row insert costs about a quarter of the insert itself in
// SQLite. Plain identifiers and `?` placeholders: the same text for SQLite and MySQL; PostgreSQL
// numbers its placeholders ($1, $2, ...).
import { CompiledQuery, type Kysely } from 'kysely';
import type { LogLine } from '../../api/types.ts';
import { isPostgres } from './inserts.ts';
import type { Database } from './schema.ts';

const MAX_ROWS = 1_000;

const insertText = (rows: number): string =>
  `insert into execution_log (instance_id, seq, stream, ts, line) values ${'(?, ?, ?, ?, ?), '.repeat(rows - 1)}(?, ?, ?, ?, ?)`;
const FULL = insertText(MAX_ROWS);

const numbered = (text: string): string => {
  let n = 0;
  return text.replace(/\?/g, () => `$${++n}`);
};
const FULL_NUMBERED = numbered(FULL);

/** How many rows each statement inserts: 1,000 at a time, then the rest in one. */
function statementSizes(lines: number): number[] {
  const sizes: number[] = Array.from({ length: Math.floor(lines / MAX_ROWS) }, () => MAX_ROWS);
  if (lines % MAX_ROWS > 0) sizes.push(lines % MAX_ROWS);
  return sizes;
}

export async function insertLogs(db: Kysely<Database>, lines: LogLine[]): Promise<void> {
  if (lines.length === 0) return;
  const postgres = isPostgres(db);
  const text = (size: number) =>
    size === MAX_ROWS ? (postgres ? FULL_NUMBERED : FULL) : postgres ? numbered(insertText(size)) : insertText(size);
  await db.transaction().execute(async (trx) => {
    let at = 0;
    for (const size of statementSizes(lines.length)) {
      const params: unknown[] = new Array(size * 5);
      for (let i = 0; i < size; i++) {
        const l = lines[at + i] as LogLine;
        params[i * 5] = l.instanceId;
        params[i * 5 + 1] = l.seq;
        params[i * 5 + 2] = l.stream;
        params[i * 5 + 3] = l.ts;
        params[i * 5 + 4] = l.line;
      }
      at += size;
      await trx.executeQuery(CompiledQuery.raw(text(size), params));
    }
  });
}
