// Migration 0026 (issue 26 part 5): logs as compressed chunks per instance (log-chunks.ts) instead
// of a row per line. The lines already stored move into chunks here, then execution_log goes:
// one layout to read, on every store.
import { type Kysely, type Migration, sql } from 'kysely';
import type { LogLine, LogStream } from '../../api/types.ts';
import { chunkLines, encodeChunk } from './log-chunks.ts';
import { insertChunks } from './log-insert.ts';
import { autoId, type SqlDialectName, tableEnd, types } from './migration-sql.ts';
import { num } from './rows.ts';
import type { Database } from './schema.ts';

/** old rows moved per round: in id order, so each instance's lines come in the order they were written */
const PAGE = 5_000;

interface OldRow {
  id: number | string;
  instance_id: number;
  seq: number;
  stream: string;
  ts: number | string;
  line: string;
}

/** Moves every execution_log row into chunks, a page at a time. */
export async function moveLogRows(db: Kysely<Database>): Promise<number> {
  let after = 0;
  let moved = 0;
  for (;;) {
    const { rows } = await sql<OldRow>`
      select id, instance_id, seq, stream, ts, line from execution_log where id > ${after} order by id limit ${PAGE}
    `.execute(db);
    const last = rows[rows.length - 1];
    if (!last) return moved;
    const lines: LogLine[] = rows.map((r) => ({
      instanceId: r.instance_id,
      seq: r.seq,
      stream: r.stream as LogStream,
      ts: num(r.ts),
      line: r.line,
    }));
    await insertChunks(db, await Promise.all(chunkLines(lines).map(encodeChunk)));
    moved += rows.length;
    after = num(last.id);
  }
}

/** `onNote` is told, before and after, when old lines are moved: it takes about 10 s per million. */
export function logChunks(dialect: SqlDialectName, onNote?: (message: string) => void): Migration {
  const t = types(dialect);
  const blob = dialect === 'mysql' ? sql`longblob` : dialect === 'postgres' ? sql`bytea` : sql`blob`;
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('execution_log_chunk')
        .addColumn('id', 'integer', autoId(dialect))
        .addColumn('instance_id', 'integer', (c) => c.notNull())
        .addColumn('first_seq', 'integer', (c) => c.notNull())
        .addColumn('last_seq', 'integer', (c) => c.notNull())
        .addColumn('ts_first', t.big, (c) => c.notNull())
        .addColumn('ts_last', t.big, (c) => c.notNull())
        .addColumn('lines_count', 'integer', (c) => c.notNull())
        .addColumn('body', blob, (c) => c.notNull())
        .modifyEnd(tableEnd(dialect))
        .execute();
      // reads: an instance's chunks by seq (chunks do not overlap: last_seq orders them)
      await db.schema
        .createIndex('execution_log_chunk_instance')
        .on('execution_log_chunk')
        .columns(['instance_id', 'last_seq'])
        .execute();
      // retention: the chunks whose newest line is older than the cut-off
      await db.schema.createIndex('execution_log_chunk_ts').on('execution_log_chunk').columns(['ts_last']).execute();
      // Counted only for someone to tell: on a large table the count is a scan of its own.
      const { rows } = onNote
        ? await sql<{ n: number | string }>`select count(*) as n from execution_log`.execute(db)
        : { rows: [] };
      const old = num(rows[0]?.n ?? 0);
      const lines = old.toLocaleString('en-US');
      if (old > 0)
        onNote?.(
          `upgrading the log store (once): moving ${lines} stored log lines into compressed chunks, about 10 s per million`,
        );
      const started = Date.now();
      await moveLogRows(db as Kysely<Database>);
      if (old > 0)
        onNote?.(`log store upgraded: ${lines} lines moved in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      await db.schema.dropTable('execution_log').execute();
    },
  };
}
