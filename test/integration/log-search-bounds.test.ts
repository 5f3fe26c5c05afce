// Log search bounded in time and concurrency (issue 20, item 8): five searches at once of a
// ~100 MB log that match nothing (so each would read it all) while engineInfo is asked every
// 50 ms. The engine keeps answering, and a search that ran out of its budget ends with the `cut`
// marker that says where it stopped. Figures are printed; the only timing bound is generous.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LogSearchHit } from '../../engine/api/engine-api.ts';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';

let t: TestEngine;
let instanceId: number;

beforeAll(async () => {
  t = await startTestEngine();
  // 500,000 lines of ~200 bytes
  await t.apply(`workflow: huge\ntasks:\n  talk:\n    command: 'seq 1 500000 | sed "s/$/ ${'z'.repeat(190)}/"'\n    timeout: 10m\n`);
  const run = await t.runToEnd('huge', { timeoutMs: 300_000 });
  instanceId = run.instances[0]?.id as number;
  const info = await t.engine.logInfo(instanceId);
  console.log(`log of ${info.lines} lines (~${Math.round((info.lines * 200) / 1e6)} MB)`);
  expect(info.lines).toBeGreaterThan(400_000);
}, 320_000);

afterAll(() => t?.close());

describe('searchLog of a big log', () => {
  it('five at once leave engineInfo answering; a search past its budget says it was cut and where', async () => {
    const started = performance.now();
    const searches = Array.from({ length: 5 }, () => t.engine.searchLog(instanceId, 'no-such-text-anywhere', {}).then((hits) => ({ hits, ms: performance.now() - started })));
    let done = false;
    const all = Promise.all(searches).finally(() => (done = true));
    const latencies: number[] = [];
    while (!done) {
      const t0 = performance.now();
      expect((await t.engine.engineInfo()).mode).toBe('solo');
      latencies.push(performance.now() - t0);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const results = await all;
    const max = Math.max(...latencies);
    console.log(
      `5 searches: ${results.map((r) => `${(r.ms / 1000).toFixed(1)} s${r.hits.at(-1)?.cut ? ' (cut)' : ''}`).join(', ')}; engineInfo ${latencies.length}×, max ${max.toFixed(0)} ms, median ${latencies.sort((a, b) => a - b)[Math.floor(latencies.length / 2)]?.toFixed(0)} ms`,
    );
    expect(max).toBeLessThan(1_000);
    const cut = results.map((r) => r.hits.at(-1)).find((h): h is LogSearchHit => h?.cut === true);
    expect(cut?.line).toMatch(/^partial results: searched lines 1–\d+ of \d+ in \d+\.\d s; narrow your search/);
    // going on from where it stopped searches the rest
    const more = await t.engine.searchLog(instanceId, 'no-such-text-anywhere', { afterSeq: cut?.seq });
    expect(more.every((h) => h.cut === true)).toBe(true);
  }, 120_000);

  it('finds what it is asked for, in a window past the first', async () => {
    const hits = await t.engine.searchLog(instanceId, '450000 zzz', {});
    expect(hits.filter((h) => !h.cut).map((h) => h.line.slice(0, 10))).toEqual(hits.some((h) => h.cut) ? [] : ['450000 zzz']);
  }, 60_000);
});
