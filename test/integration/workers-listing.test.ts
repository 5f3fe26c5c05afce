// The worker listing (`ax workers`, the UI) shows a worker draining from the moment a drain is
// asked, as the dispatcher already treats it, not only once the worker noticed at its next
// heartbeat. The heartbeat here is long, so the worker cannot have noticed.
import { afterEach, describe, expect, it } from 'vitest';
import { startTestEngine, type TestEngine } from '../helpers/solo-engine.ts';

describe('listWorkers and a drain request', () => {
  let t: TestEngine | undefined;

  afterEach(async () => {
    await t?.close();
    t = undefined;
  });

  it('shows a worker asked to drain as draining before it has noticed', async () => {
    t = await startTestEngine({ config: { workerHeartbeatMs: 600_000 } });
    const id = t.engine.worker?.id as string;
    expect(await t.engine.listWorkers()).toMatchObject([{ id, status: 'online', role: 'solo' }]);
    await t.engine.drainWorker(id, 'test');
    expect(await t.engine.listWorkers()).toMatchObject([{ id, status: 'draining', role: 'solo' }]);
    // the worker's own registration still says online: it has not looked yet
    expect((await t.engine.coordinator.listWorkers()).map((w) => w.status)).toEqual(['online']);
    // solo: no scheduler node of its own to list, and no leader to mark
    const all = await t.engine.listWorkers({ schedulers: true });
    expect(all).toHaveLength(1);
    expect(all[0]?.leader).toBeUndefined();
  });
});
