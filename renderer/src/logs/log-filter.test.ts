import { describe, expect, it } from 'vitest';
import type { LogLine } from '../../../engine/api/types.ts';
import { FilteredLog } from './log-filter.ts';
import type { LogSource } from './log-pages.ts';

// every 10th line is stderr, as a task might write a warning among its progress lines
const line = (seq: number): LogLine => ({
  instanceId: 7,
  seq,
  stream: seq % 10 === 0 ? 'stderr' : 'stdout',
  ts: 1000 + seq,
  line: `line ${seq}`,
});

/** A store holding lines 1..stored (which can grow), counting reads. */
function source(initial: number) {
  const state = { stored: initial, reads: 0 };
  const src: LogSource = {
    readLogs: async (_id, afterSeq, limit) => {
      state.reads += 1;
      const out: LogLine[] = [];
      for (let s = afterSeq + 1; s <= state.stored && out.length < limit; s++) out.push(line(s));
      return out;
    },
  };
  return { src, state };
}

describe('FilteredLog', () => {
  it('reads the whole log in large pages and keeps only its stream, with the lines’ own seqs', async () => {
    const { src, state } = source(12_000);
    const log = new FilteredLog(src, 7, 'stderr');
    log.want(12_000);
    await expect.poll(() => log.readTo).toBe(12_000);
    expect(log.lines).toHaveLength(1_200);
    expect(log.lines.slice(0, 3).map((l) => l.seq)).toEqual([10, 20, 30]);
    expect(log.loading).toBe(false);
    // 5,000 lines a read: three reads for 12,000 lines
    expect(state.reads).toBe(3);
    log.stop();
  });

  it('reads on as the log grows (a running task), and waits for lines the store does not have yet', async () => {
    const { src, state } = source(25);
    const log = new FilteredLog(src, 7, 'stderr');
    log.want(25);
    await expect.poll(() => log.lines.map((l) => l.seq)).toEqual([10, 20]);
    // the page heard of lines up to 40 before the store had them
    log.want(40);
    expect(log.loading).toBe(true);
    state.stored = 40;
    await expect.poll(() => log.lines.map((l) => l.seq), { timeout: 5_000 }).toEqual([10, 20, 30, 40]);
    expect(log.loading).toBe(false);
    log.stop();
  });

  it('rowOf finds the kept line at or after a seq (a search hit in another stream)', async () => {
    const { src } = source(50);
    const log = new FilteredLog(src, 7, 'stderr');
    log.want(50);
    await expect.poll(() => log.lines.length).toBe(5);
    expect(log.rowOf(10)).toBe(0);
    expect(log.rowOf(11)).toBe(1);
    expect(log.rowOf(35)).toBe(3);
    expect(log.rowOf(999)).toBe(4);
    log.stop();
  });
});
