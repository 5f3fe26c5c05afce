// The log's storage unit (issue 26 part 5): an instance's lines stored as compressed chunks, not a
// row per line. One chunk holds consecutive lines of one instance (one per instance per batch the
// engine's LogWriter writes, at most MAX_CHUNK_LINES / MAX_CHUNK_BYTES), so 50,000 lines/s are
// a few hundred rows a second and retention deletes thousands of lines in one row.
//
// A body is a format byte (1) followed by the raw-deflated JSON of [seq, stream, ts, line] rows in
// seq order. Compression runs on libuv's thread pool (zlib's async calls), not the event loop.
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { LogLine, LogStream } from '../../api/types.ts';
import type { ExecutionLogChunkTable } from './schema.ts';

const deflate = promisify(zlib.deflateRaw);
const inflate = promisify(zlib.inflateRaw);

const FORMAT = 1;
/** zlib level 1: most of level 6's ratio on log text at a fraction of its CPU */
const LEVEL = 1;
export const MAX_CHUNK_LINES = 1_000;
/** text per chunk: a read of one line decompresses its whole chunk */
export const MAX_CHUNK_BYTES = 1 << 20;

/** A chunk's row in execution_log_chunk, body compressed. */
export type ChunkRow = Omit<ExecutionLogChunkTable, 'id'>;

type Packed = [number, string, number, string];

/**
 * Items cut into consecutive runs of at most `maxCount` items and about `maxBytes` (an item larger
 * than that is a run of its own); no run is empty.
 */
export function cutRuns<T>(items: T[], maxCount: number, maxBytes: number, bytes: (item: T) => number): T[][] {
  const out: T[][] = [];
  let run: T[] = [];
  let size = 0;
  for (const item of items) {
    if (run.length > 0 && (run.length >= maxCount || size + bytes(item) > maxBytes)) {
      out.push(run);
      run = [];
      size = 0;
    }
    run.push(item);
    size += bytes(item);
  }
  if (run.length > 0) out.push(run);
  return out;
}

/** Lines grouped into chunks: by instance, in seq order, cut at the chunk limits. */
export function chunkLines(lines: LogLine[]): LogLine[][] {
  const byInstance = new Map<number, LogLine[]>();
  for (const l of lines) {
    const list = byInstance.get(l.instanceId);
    if (list) list.push(l);
    else byInstance.set(l.instanceId, [l]);
  }
  return [...byInstance.values()].flatMap((list) =>
    cutRuns(
      list.sort((a, b) => a.seq - b.seq),
      MAX_CHUNK_LINES,
      MAX_CHUNK_BYTES,
      (l) => l.line.length,
    ),
  );
}

/** One chunk's row: `lines` are one instance's, in seq order (chunkLines). */
export async function encodeChunk(lines: LogLine[]): Promise<ChunkRow> {
  const first = lines[0];
  const last = lines[lines.length - 1];
  if (!first || !last) throw new Error('a log chunk needs at least one line');
  let tsFirst = first.ts;
  let tsLast = first.ts;
  const packed: Packed[] = lines.map((l) => {
    if (l.ts < tsFirst) tsFirst = l.ts;
    if (l.ts > tsLast) tsLast = l.ts;
    return [l.seq, l.stream, l.ts, l.line];
  });
  const body = await deflate(JSON.stringify(packed), { level: LEVEL });
  return {
    instance_id: first.instanceId,
    first_seq: first.seq,
    last_seq: last.seq,
    ts_first: tsFirst,
    ts_last: tsLast,
    lines_count: lines.length,
    body: Buffer.concat([Buffer.from([FORMAT]), body]),
  };
}

/** A chunk's lines, in seq order. */
export async function decodeChunk(instanceId: number, body: Uint8Array): Promise<LogLine[]> {
  const bytes = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (bytes[0] !== FORMAT)
    throw new Error(`log chunk of instance ${instanceId}: unknown format ${bytes[0]}: written by a newer AX?`);
  const packed = JSON.parse((await inflate(bytes.subarray(1))).toString()) as Packed[];
  return packed.map(([seq, stream, ts, line]) => ({ instanceId, seq, stream: stream as LogStream, ts, line }));
}
