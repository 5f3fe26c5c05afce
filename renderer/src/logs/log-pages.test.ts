import { describe, expect, it } from 'vitest';
import type { LogLine } from '../../../engine/api/types.ts';
import { LogPages, type LogSource } from './log-pages.ts';

const line = (seq: number, instanceId = 7): LogLine => ({
  instanceId,
  seq,
  stream: seq % 10 === 0 ? 'stderr' : 'stdout',
  ts: 1000 + seq,
  line: `line ${seq}`,
});

/** A store of `total` lines that records every read and answers when told to. */
function fakeSource(total: number, options: { missing?: Set<number> } = {}) {
  const calls: { afterSeq: number; limit: number }[] = [];
  const waiting: (() => void)[] = [];
  let stored = total;
  const source: LogSource = {
    readLogs(_id, afterSeq, limit) {
      calls.push({ afterSeq, limit });
      return new Promise((resolve) => {
        waiting.push(() => {
          const out: LogLine[] = [];
          for (let s = afterSeq + 1; s <= stored && out.length < limit; s++)
            if (!options.missing?.has(s)) out.push(line(s));
          resolve(out);
        });
      });
    },
  };
  return {
    source,
    calls,
    setStored: (n: number) => (stored = n),
    /** answers every pending read and lets the promises settle */
    async flush() {
      while (waiting.length) waiting.shift()?.();
      await new Promise((r) => setTimeout(r, 0));
    },
  };
}

describe('LogPages', () => {
  it('reads only the pages of the visible window, once, in pages of pageSize', async () => {
    const src = fakeSource(1_000_000);
    const pages = new LogPages(src.source, 7, { pageSize: 500 });
    pages.setRange(1, 1_000_000);
    expect(pages.count).toBe(1_000_000);
    pages.ensure(999_950, 1_000_000);
    pages.ensure(999_960, 1_000_000); // same page, already in flight: no second read
    expect(src.calls).toEqual([{ afterSeq: 999_500, limit: 500 }]);
    expect(pages.get(999_999)).toBeUndefined();
    expect(pages.isPending(999_999)).toBe(true);
    await src.flush();
    expect(pages.get(999_999)?.line).toBe('line 999999');
    expect(pages.isPending(999_999)).toBe(false);
    // a window across a page boundary reads both pages, and only the missing one
    pages.ensure(999_400, 999_600);
    expect(src.calls.slice(1)).toEqual([{ afterSeq: 999_000, limit: 500 }]);
  });

  it('keeps at most maxPages, dropping the least recently wanted outside the window', async () => {
    const src = fakeSource(100_000);
    const pages = new LogPages(src.source, 7, { pageSize: 100, maxPages: 5 });
    pages.setRange(1, 100_000);
    for (let p = 0; p < 20; p++) {
      pages.ensure(p * 100 + 1, p * 100 + 50);
      await src.flush();
    }
    expect(pages.cachedPages).toBeLessThanOrEqual(5);
    expect(pages.get(1950)?.line).toBe('line 1950');
    expect(pages.get(50)).toBeUndefined();
    // coming back reads it again
    const before = src.calls.length;
    pages.ensure(1, 50);
    expect(src.calls.length).toBe(before + 1);
  });

  it('takes live lines into the range and the cache, and tells listeners once per batch', () => {
    const src = fakeSource(0);
    const pages = new LogPages(src.source, 7, { pageSize: 100 });
    let heard = 0;
    pages.subscribe(() => heard++);
    pages.appendLive([line(1), line(2), line(3), line(4, 99)]);
    expect(heard).toBe(1);
    expect(pages.count).toBe(3);
    expect(pages.get(2)?.line).toBe('line 2');
    pages.setRange(1, 2); // a late logInfo answer never shrinks the range
    expect(pages.lastSeq).toBe(3);
  });

  it('does not read a page that live lines filled already', () => {
    const src = fakeSource(0);
    const pages = new LogPages(src.source, 7, { pageSize: 100 });
    pages.setRange(1, 100);
    pages.appendLive(Array.from({ length: 150 }, (_, i) => line(101 + i)));
    pages.ensure(150, 250);
    expect(src.calls).toEqual([]);
    expect(pages.isPending(200)).toBe(false);
    pages.ensure(1, 100); // the page logInfo reported is still read
    expect(src.calls).toEqual([{ afterSeq: 0, limit: 100 }]);
  });

  it('keeps live lines that arrive while their page is being read', async () => {
    const src = fakeSource(150);
    const pages = new LogPages(src.source, 7, { pageSize: 100 });
    pages.setRange(1, 150);
    pages.ensure(101, 150);
    pages.appendLive([line(151), line(152)]);
    await src.flush();
    expect(pages.get(120)?.line).toBe('line 120');
    expect(pages.get(152)?.line).toBe('line 152');
    expect(pages.count).toBe(152);
  });

  it('reads a page again later when it came back with holes below the known end', async () => {
    let now = 0;
    const missing = new Set([5]);
    const src = fakeSource(10, { missing });
    const pages = new LogPages(src.source, 7, { pageSize: 100, retryMs: 1000, now: () => now });
    pages.setRange(1, 10);
    pages.ensure(1, 10);
    await src.flush();
    expect(pages.get(5)).toBeUndefined();
    pages.ensure(1, 10);
    expect(src.calls.length).toBe(1); // not before retryMs
    now = 1500;
    missing.clear();
    pages.ensure(1, 10);
    expect(src.calls.length).toBe(2);
    await src.flush();
    expect(pages.get(5)?.line).toBe('line 5');
    now = 5000;
    pages.ensure(1, 10);
    expect(src.calls.length).toBe(2); // complete now: never read again
  });

  it('starts at the first stored seq when older lines were purged', async () => {
    const src = fakeSource(1000);
    const pages = new LogPages(src.source, 7, { pageSize: 100 });
    pages.setRange(951, 1000);
    expect(pages.count).toBe(50);
    expect(pages.seqAt(0)).toBe(951);
    expect(pages.indexOf(1000)).toBe(49);
    pages.ensure(pages.seqAt(0), pages.seqAt(49));
    await src.flush();
    expect(pages.get(951)?.line).toBe('line 951');
  });
});
