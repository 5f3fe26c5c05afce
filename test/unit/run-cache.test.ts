// The worker's cache of run records (core/execution/run-cache.ts): a run is read once for the
// tasks that start from it, also when a batch of them starts together, and a failed read is
// tried again by the next caller.
import { describe, expect, it } from 'vitest';
import type { RunRecord } from '../../engine/api/types.ts';
import { RunCache } from '../../engine/core/execution/run-cache.ts';
import type { RunStore } from '../../engine/ports/store.ts';

const run = (id: number) => ({ id, workflowName: 'etl', state: 'RUNNING' }) as RunRecord;

describe('RunCache', () => {
  it('reads a run once for the tasks that start from it together, and again after a failed read', async () => {
    let reads = 0;
    let fail = false;
    const store = {
      getRun: async (id: number) => {
        reads += 1;
        await new Promise((resolve) => setTimeout(resolve, 5));
        if (fail) throw new Error('database away (expected by the test)');
        return run(id);
      },
    } as unknown as RunStore;
    const cache = new RunCache(store);

    const together = await Promise.all(Array.from({ length: 20 }, () => cache.get(7)));
    expect(reads).toBe(1);
    expect(together.every((r) => r === together[0])).toBe(true);
    expect(await cache.get(7)).toBe(together[0]);
    expect(reads).toBe(1);

    fail = true;
    const failed = await Promise.allSettled([cache.get(8), cache.get(8)]);
    expect(failed.map((f) => f.status)).toEqual(['rejected', 'rejected']);
    expect(reads).toBe(2);
    fail = false;
    expect(await cache.get(8)).toEqual(run(8));
    expect(reads).toBe(3);
  });
});
