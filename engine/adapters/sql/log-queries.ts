// Log lines: read by seq, searched, measured and purged by age, from execution_log_chunk
// (log-chunks.ts; appending is log-insert.ts). Callers see lines, never chunks: a read decodes
// the chunks that cover its seqs, in seq order, and keeps the lines it asked for.
import type { Kysely } from 'kysely';
import type { LogLine } from '../../api/types.ts';
import { decodeChunk } from './log-chunks.ts';
import { num } from './rows.ts';
import type { Database } from './schema.ts';

/** chunks fetched per round trip, at most: a page of the viewer is usually in the first one or two */
const MAX_PAGE = 32;

/**
 * An instance's lines after `afterSeq` (and up to `untilSeq`), chunk by chunk in seq order, each
 * offered to `take` until it says it has enough. An instance's chunks do not overlap (its lines
 * are numbered in order), so ordering them by last_seq orders their lines; id breaks ties, so two
 * late lines that raced for one seq are both read, as they were when each line was a row.
 */
async function scanLines(
  db: Kysely<Database>,
  instanceId: number,
  afterSeq: number,
  untilSeq: number | undefined,
  take: (line: LogLine) => boolean,
): Promise<void> {
  /** the last chunk read: the next page starts after it */
  let after: { lastSeq: number; id: number } | undefined;
  let page = 2;
  for (;;) {
    let q = db
      .selectFrom('execution_log_chunk')
      .select(['id', 'last_seq', 'body'])
      .where('instance_id', '=', instanceId);
    const last = after;
    q = last
      ? q
          .where('last_seq', '>=', last.lastSeq)
          .where((eb) => eb.or([eb('last_seq', '>', last.lastSeq), eb('id', '>', last.id)]))
      : q.where('last_seq', '>', afterSeq);
    if (untilSeq !== undefined) q = q.where('first_seq', '<=', untilSeq);
    const chunks = await q.orderBy('last_seq').orderBy('id').limit(page).execute();
    for (const chunk of chunks) {
      for (const line of await decodeChunk(instanceId, chunk.body)) {
        if (line.seq <= afterSeq || (untilSeq !== undefined && line.seq > untilSeq)) continue;
        if (!take(line)) return;
      }
      after = { lastSeq: num(chunk.last_seq), id: num(chunk.id) };
    }
    if (chunks.length < page) return;
    page = Math.min(page * 2, MAX_PAGE);
  }
}

export async function readLogs(
  db: Kysely<Database>,
  instanceId: number,
  afterSeq: number,
  limit: number,
): Promise<LogLine[]> {
  const out: LogLine[] = [];
  if (limit <= 0) return out;
  await scanLines(db, instanceId, afterSeq, undefined, (line) => out.push(line) < limit);
  return out;
}

/** Lines containing `query` (case-insensitive, literal) after afterSeq, up to untilSeq, in seq order. */
export async function searchLog(
  db: Kysely<Database>,
  instanceId: number,
  query: string,
  afterSeq: number,
  limit: number,
  untilSeq?: number,
): Promise<LogLine[]> {
  const out: LogLine[] = [];
  if (limit <= 0) return out;
  const wanted = query.toLowerCase();
  await scanLines(db, instanceId, afterSeq, untilSeq, (line) =>
    line.line.toLowerCase().includes(wanted) ? out.push(line) < limit : true,
  );
  return out;
}

export async function logExtent(
  db: Kysely<Database>,
  instanceId: number,
): Promise<{ firstSeq: number; lastSeq: number; lines: number }> {
  // Two index look-ups, not a count: an instance's seqs are contiguous (retention deletes the
  // oldest chunks first), so the extent gives the count, even at a million lines.
  const end = (dir: 'asc' | 'desc') =>
    db
      .selectFrom('execution_log_chunk')
      .select(['first_seq', 'last_seq'])
      .where('instance_id', '=', instanceId)
      .orderBy('last_seq', dir)
      .limit(1)
      .executeTakeFirst();
  const [first, last] = await Promise.all([end('asc'), end('desc')]);
  if (!first || !last) return { firstSeq: 0, lastSeq: 0, lines: 0 };
  const firstSeq = num(first.first_seq);
  const lastSeq = num(last.last_seq);
  return { firstSeq, lastSeq, lines: lastSeq - firstSeq + 1 };
}

/**
 * Retention: deletes the chunks whose newest line is older than `before`, in bulk (one statement
 * removes thousands of lines); a chunk with a line at or after `before` stays whole. Returns how
 * many lines went.
 */
export async function purgeLogs(db: Kysely<Database>, before: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('execution_log_chunk')
      .select((eb) => eb.fn.sum<number>('lines_count').as('n'))
      .where('ts_last', '<', before)
      .executeTakeFirst();
    const lines = num(row?.n ?? 0);
    if (lines === 0) return 0;
    await trx.deleteFrom('execution_log_chunk').where('ts_last', '<', before).execute();
    return lines;
  });
}
