// Log search bounded in time and concurrency: a LIKE over a long log holds
// SQLite on the engine's thread, and five at once stalled every other request for over a second.
// A search now reads in windows with a turn of the event loop between them, at most two run per
// engine, and one past its time budget ends with the `cut` marker saying where it stopped. Tested
// on a real store with a 300,000-line log written straight into it (the engine's own path would
// spend minutes producing it), by order of events, not by timing; latencies are printed only.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogSearchHit } from '../../engine/api/engine-api.ts';
import type { LogLine } from '../../engine/api/types.ts';
import { LogSearch } from '../../engine/core/logs/log-search.ts';
import { nextTurn } from '../../engine/hosts/node/host-defaults.ts';
import type { LogStore, Store } from '../../engine/ports/store.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';

const LINES = 300_000;
let t: TestEngine;
let instanceId: number;

beforeAll(async () => {
  t = await startTestEngine();
  await t.apply('workflow: huge\ntasks:\n  talk:\n    command: echo start\n');
  const run = await t.runToEnd('huge');
  instanceId = run.instances[0]?.id as number;
  const ts = Date.now();
  for (let from = 2; from <= LINES; from += 5_000) {
    const batch: LogLine[] = [];
    for (let seq = from; seq < Math.min(from + 5_000, LINES + 1); seq++)
      batch.push({ instanceId, seq, stream: 'stdout', ts, line: `${seq} ${'z'.repeat(190)}` });
    await t.engine.store.appendLogs(batch);
  }
  expect((await t.engine.logInfo(instanceId)).lines).toBe(LINES);
}, 120_000);

afterAll(() => t?.close());

/** The store, recording the order in which each query's windows were searched. */
function recording(store: Store) {
  const calls: string[] = [];
  const wrapped: LogStore = {
    appendLogs: (lines) => store.appendLogs(lines),
    readLogs: (id, afterSeq, limit) => store.readLogs(id, afterSeq, limit),
    purgeLogs: (before) => store.purgeLogs(before),
    logExtent: (id) => store.logExtent(id),
    searchLog: (id, query, afterSeq, limit, untilSeq) => {
      calls.push(query);
      return store.searchLog(id, query, afterSeq, limit, untilSeq);
    },
  };
  /** the most queries between their first and last window at any one point */
  const overlap = () => {
    const first = new Map<string, number>();
    const last = new Map<string, number>();
    calls.forEach((q, i) => {
      if (!first.has(q)) first.set(q, i);
      last.set(q, i);
    });
    return Math.max(
      ...calls.map(
        (_, i) => [...first.keys()].filter((q) => (first.get(q) as number) <= i && i <= (last.get(q) as number)).length,
      ),
    );
  };
  return { wrapped, calls, overlap };
}

// the host's time, as a served engine is given it: the budget measures real time spent
const REAL_TIME = { clock: { now: () => performance.now() }, nextTurn };

describe('searchLog of a long log', () => {
  it('at most two searches read at once; the others wait their turn', async () => {
    const r = recording(t.engine.store);
    const search = new LogSearch(r.wrapped, REAL_TIME, 60_000);
    const queries = ['no-a', 'no-b', 'no-c', 'no-d', 'no-e'];
    const results = await Promise.all(queries.map((q) => search.search(instanceId, q, 0, 100)));
    expect(results.every((hits) => hits.length === 0)).toBe(true);
    // every query read the whole log in windows, never all five interleaved
    for (const q of queries) expect(r.calls.filter((c) => c === q).length).toBeGreaterThan(1);
    expect(r.overlap()).toBe(2);
  });

  it('past its budget a search ends with the cut marker, and going on from it searches the rest', async () => {
    const search = new LogSearch(t.engine.store, REAL_TIME, 0);
    const hits = await search.search(instanceId, 'no-such-text-anywhere', 0, 100);
    const cut = hits.at(-1) as LogSearchHit;
    expect(cut).toMatchObject({ cut: true, stream: 'system' });
    expect(cut.line).toMatch(
      new RegExp(
        `^partial results: searched lines 1–${cut.seq} of ${LINES} in \\d+\\.\\d s; narrow your search, or search on from line ${cut.seq}$`,
      ),
    );
    expect(cut.seq).toBeLessThan(LINES);
    let from = cut.seq;
    for (let i = 0; from < LINES && i < 100; i++) {
      const more = await search.search(instanceId, 'no-such-text-anywhere', from, 100);
      const marker = more.at(-1);
      from = marker?.cut ? marker.seq : LINES;
    }
    expect(from).toBe(LINES);
    // what is there is found, in a window past the first
    const found = await new LogSearch(t.engine.store, REAL_TIME, 60_000).search(
      instanceId,
      `250000 ${'z'.repeat(10)}`,
      0,
      10,
    );
    expect(found.map((h) => h.seq)).toEqual([250_000]);
  });

  it('the engine answers other requests while five searches run (by order; latencies printed)', async () => {
    const started = performance.now();
    let finished = 0;
    const searches = Array.from({ length: 5 }, () =>
      t.engine.searchLog(instanceId, 'no-such-text-anywhere', {}).finally(() => finished++),
    );
    const latencies: number[] = [];
    let answeredDuring = 0;
    while (finished < 5) {
      const t0 = performance.now();
      expect((await t.engine.engineInfo()).mode).toBe('solo');
      latencies.push(performance.now() - t0);
      if (finished < 5) answeredDuring++;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await Promise.all(searches);
    expect(answeredDuring).toBeGreaterThan(0);
    latencies.sort((a, b) => a - b);
    console.log(
      `5 searches of ${LINES} lines in ${((performance.now() - started) / 1000).toFixed(1)} s; engineInfo answered ${latencies.length}×, median ${latencies[Math.floor(latencies.length / 2)]?.toFixed(0)} ms, max ${latencies.at(-1)?.toFixed(0)} ms`,
    );
  }, 60_000);
});
