import { describe, expect, it } from 'vitest';
import type { LogSearchHit } from '../../../engine/api/engine-api.ts';
import { LogSearch, type SearchSource } from './log-search.ts';

/** hits at the given seqs; records every read */
function source(seqs: number[]) {
  const calls: { afterSeq?: number; limit?: number }[] = [];
  const src: SearchSource = {
    async searchLog(_id, query, options) {
      calls.push(options);
      return seqs
        .filter((s) => s > (options.afterSeq ?? 0))
        .slice(0, options.limit)
        .map((seq): LogSearchHit => ({ seq, stream: 'stdout', line: `${query} at ${seq}` }));
    },
  };
  return { src, calls };
}

describe('LogSearch', () => {
  it('reads hits a page at a time as the user steps, and wraps at the end', async () => {
    const { src, calls } = source([10, 20, 30, 40, 50]);
    const search = new LogSearch(src, 1, 'err', 2);
    expect((await search.start())?.seq).toBe(10);
    expect(calls).toEqual([{ afterSeq: 0, limit: 2 }]);
    expect((await search.next())?.seq).toBe(20);
    expect((await search.next())?.seq).toBe(30);
    expect(calls.at(-1)).toEqual({ afterSeq: 20, limit: 2 });
    await search.next();
    expect((await search.next())?.seq).toBe(50);
    expect(search.snapshot().complete).toBe(true);
    expect((await search.next())?.seq).toBe(10);
    expect(search.snapshot()).toMatchObject({ index: 0, complete: true, loading: false });
    expect(search.snapshot().hits).toHaveLength(5);
  });

  it('wraps backwards to the real last hit, reading the rest first', async () => {
    const { src } = source([1, 2, 3, 4, 5, 6, 7]);
    const search = new LogSearch(src, 1, 'x', 3);
    await search.start();
    expect((await search.previous())?.seq).toBe(7);
    expect((await search.previous())?.seq).toBe(6);
  });

  it('starts at the first hit at or after a position', async () => {
    const { src } = source([5, 15, 25, 35]);
    const search = new LogSearch(src, 1, 'x', 2);
    expect((await search.start(30))?.seq).toBe(35);
    expect((await search.next())?.seq).toBe(5);
  });

  it('has no current hit when nothing matches', async () => {
    const search = new LogSearch(source([]).src, 1, 'x', 2);
    expect(await search.start()).toBeUndefined();
    expect(await search.next()).toBeUndefined();
    expect(search.snapshot()).toMatchObject({ index: -1, complete: true });
  });

  it('keeps steps in order when they are asked for quickly', async () => {
    const { src } = source([1, 2, 3, 4, 5, 6]);
    const search = new LogSearch(src, 1, 'x', 2);
    const results = await Promise.all([search.start(), search.next(), search.next(), search.next()]);
    expect(results.map((h) => h?.seq)).toEqual([1, 2, 3, 4]);
  });
});
