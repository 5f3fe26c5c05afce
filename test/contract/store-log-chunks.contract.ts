// Store contract, logs stored in chunks (issue 26 part 5): an instance's lines are stored as one
// compressed chunk per instance per appendLogs. Callers must not see it: paging, search, extent
// and retention across chunk boundaries, and lines appended after a chunk exists.
import { describe, expect, it } from 'vitest';
import type { LogLine } from '../../engine/api/types.ts';
import { appendLateLine } from '../../engine/core/logs/late-log-line.ts';
import type { Coordinator } from '../../engine/ports/coordinator.ts';
import { addInstance, seedRun, T0 } from './store-fixtures.ts';
import type { StoreGetter } from './store-fixtures.ts';

const line = (instanceId: number, seq: number, text = `line ${seq}`, ts = T0 + seq): LogLine => ({
  instanceId,
  seq,
  stream: seq % 5 === 0 ? 'stderr' : 'stdout',
  ts,
  line: text,
});
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** appendLogs call sizes: single lines, a statement's 1,000 either side, a chunk cut in two */
const BATCHES = [1, 7, 1, 999, 1000, 1001, 3, 2047, 1];
const TOTAL = BATCHES.reduce((a, b) => a + b, 0);

export function logChunksContract(store: StoreGetter): void {
  const instance = async (): Promise<number> => (await addInstance(store(), await seedRun(store()), 'a')).id;

  /** an instance whose TOTAL lines were appended in BATCHES, with another instance's lines between */
  const chunked = async (text: (seq: number) => string = (seq) => `line ${seq}`): Promise<number> => {
    const id = await instance();
    const other = await instance();
    let seq = 0;
    for (const size of BATCHES) {
      const lines = range(seq + 1, seq + size).map((s) => line(id, s, text(s)));
      await store().appendLogs([...lines, line(other, seq + 1, 'not this one')]);
      seq += size;
    }
    return id;
  };

  describe('logs across chunks', () => {
    it('readLogs pages across chunk boundaries with any afterSeq and limit', async () => {
      const id = await chunked();
      const afters = [0, 1, 2, 8, 9, 1007, 1008, 1009, 2008, 3008, 3009, 3010, 5000, TOTAL - 1, TOTAL, TOTAL + 3];
      for (const after of afters) {
        for (const limit of [1, 2, 999, 1000, 1001, 3000, 10_000]) {
          const read = await store().readLogs(id, after, limit);
          const want = range(after + 1, Math.min(TOTAL, after + limit));
          expect(
            read.map((l) => l.seq),
            `after ${after}, limit ${limit}`,
          ).toEqual(want);
        }
      }
      // every field of every line, read back whole
      expect(await store().readLogs(id, 0, TOTAL)).toEqual(range(1, TOTAL).map((s) => line(id, s)));
      // a reader paging through the whole log, as the viewer and `ax logs -f` do
      const seen: number[] = [];
      for (let after = 0; ;) {
        const page = await store().readLogs(id, after, 333);
        if (page.length === 0) break;
        seen.push(...page.map((l) => l.seq));
        after = page[page.length - 1]?.seq ?? after;
      }
      expect(seen).toEqual(range(1, TOTAL));
    });

    it('searchLog finds lines in several chunks, within afterSeq, untilSeq and limit', async () => {
      const hits = [1, 8, 9, 500, 1008, 2008, 2009, 3010, 4000, TOTAL];
      const id = await chunked((s) => (hits.includes(s) ? `step ${s}: NeedLE found` : `line ${s}`));
      const seqs = async (after: number, limit: number, until?: number) =>
        (await store().searchLog(id, 'needle', after, limit, until)).map((l) => l.seq);
      expect(await seqs(0, 100)).toEqual(hits);
      expect(await seqs(0, 3)).toEqual([1, 8, 9]);
      expect(await seqs(9, 3)).toEqual([500, 1008, 2008]);
      expect(await seqs(2008, 100)).toEqual([2009, 3010, 4000, TOTAL]);
      expect(await seqs(0, 100, 2008)).toEqual([1, 8, 9, 500, 1008, 2008]);
      expect(await seqs(1008, 100, 3009)).toEqual([2008, 2009]);
      expect(await seqs(3010, 100, 3999)).toEqual([]);
      expect(await seqs(TOTAL, 100)).toEqual([]);
      const found = await store().searchLog(id, 'NEEDLE FOUND', 2008, 1);
      expect(found).toEqual([line(id, 2009, 'step 2009: NeedLE found')]);
    });

    it('logExtent spans every chunk, and lines appended after a chunk exists follow it', async () => {
      const id = await chunked();
      expect(await store().logExtent(id)).toEqual({ firstSeq: 1, lastSeq: TOTAL, lines: TOTAL });
      await store().appendLogs([line(id, TOTAL + 1, 'one more')]);
      await store().appendLogs([line(id, TOTAL + 2, 'and another'), line(id, TOTAL + 3, 'last')]);
      expect(await store().logExtent(id)).toEqual({ firstSeq: 1, lastSeq: TOTAL + 3, lines: TOTAL + 3 });
      expect((await store().readLogs(id, TOTAL - 1, 10)).map((l) => l.line)).toEqual([
        `line ${TOTAL}`,
        'one more',
        'and another',
        'last',
      ]);
      expect(await store().logExtent(id + 1000)).toEqual({ firstSeq: 0, lastSeq: 0, lines: 0 });
    });

    it('a late line (a note after a finished attempt) takes the seq after the last chunk, and racing notes are both kept', async () => {
      const id = await chunked();
      const published: unknown[] = [];
      // the coordinator only carries the note to live viewers here; the store is what is under test
      const coordinator = { publish: async (e: unknown) => void published.push(e) } as unknown as Coordinator;
      const clock = { now: () => T0 + 10_000 } as Parameters<typeof appendLateLine>[2];
      await appendLateLine(store(), coordinator, clock, id, 'retry 2 of 3 in 5s');
      expect(await store().readLogs(id, TOTAL, 10)).toEqual([
        { instanceId: id, seq: TOTAL + 1, stream: 'system', ts: T0 + 10_000, line: 'retry 2 of 3 in 5s' },
      ]);
      await Promise.all([
        appendLateLine(store(), coordinator, clock, id, 'note a'),
        appendLateLine(store(), coordinator, clock, id, 'note b'),
      ]);
      const notes = (await store().readLogs(id, TOTAL + 1, 10)).map((l) => l.line);
      expect([...notes].sort()).toEqual(['note a', 'note b']);
      expect(published).toHaveLength(3);
    });

    it('purgeLogs removes whole chunks older than the cut-off; the rest reads on from the new first line', async () => {
      const id = await instance();
      await store().appendLogs(range(1, 1500).map((s) => line(id, s, `old ${s}`, T0 + 100)));
      await store().appendLogs(range(1501, 1510).map((s) => line(id, s, `mixed ${s}`, T0 + (s === 1510 ? 900 : 100))));
      await store().appendLogs(range(1511, 1600).map((s) => line(id, s, `new ${s}`, T0 + 1_000)));
      // the first append made two chunks (1,000 lines at most each), both before the cut-off
      expect(await store().purgeLogs(T0 + 500)).toBe(1500);
      // a chunk with a line at or after the cut-off stays whole
      expect(await store().logExtent(id)).toEqual({ firstSeq: 1501, lastSeq: 1600, lines: 100 });
      expect((await store().readLogs(id, 0, 2)).map((l) => l.line)).toEqual(['mixed 1501', 'mixed 1502']);
      expect((await store().searchLog(id, 'new 16', 0, 10)).map((l) => l.seq)).toEqual([1600]);
      expect(await store().purgeLogs(T0 + 500)).toBe(0);
      expect(await store().purgeLogs(T0 + 2_000)).toBe(100);
      expect(await store().readLogs(id, 0, 10)).toEqual([]);
      expect(await store().logExtent(id)).toEqual({ firstSeq: 0, lastSeq: 0, lines: 0 });
    });
  });
}
