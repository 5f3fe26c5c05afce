// What pure core takes from its host instead of reaching for it (core/engine-deps.ts): the
// machine's time zone, asked each time it is needed; a turn of the event loop between the slices
// of a large graph's indexing (the Node host's lets due timers run, which a microtask would not);
// and the dispatcher's one wake-up, which runs a pass only while this process leads.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCoordinator } from '../../engine/adapters/memory/memory-coordinator.ts';
import { NodeProcessRunner } from '../../engine/adapters/process/node-process-runner.ts';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import { systemClock } from '../../engine/adapters/system-clock.ts';
import { Dispatcher } from '../../engine/core/dispatch/dispatcher.ts';
import { Engine } from '../../engine/core/engine.ts';
import { Router } from '../../engine/core/model/routing.ts';
import { indexWorkflow, WorkflowCache } from '../../engine/core/workflow/workflow-cache.ts';
import { nextTurn, nodeHostDefaults } from '../../engine/hosts/node/host-defaults.ts';
import type { Store, TaskDefinition, WorkflowGraph } from '../../engine/ports/store.ts';
import { tempDir } from '../helpers/files.ts';
import { waitFor } from '../helpers/wait-for.ts';

const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe("the host's time zone", () => {
  it('is the default of a file and a fire preview that name none, and engineInfo says it; asked each time', async () => {
    const dir = tempDir('ax-host-zone-');
    cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
    let zone = 'Asia/Tokyo';
    const engine = new Engine({
      ...nodeHostDefaults(),
      zone: () => zone,
      store: await openSqliteStore(path.join(dir, 'ax.db')),
      coordinator: new MemoryCoordinator(),
      runner: new NodeProcessRunner(),
      clock: systemClock,
      nodeId: 'zone-test',
    });
    cleanups.push(() => engine.dispose());

    expect((await engine.engineInfo()).timezone).toBe('Asia/Tokyo');
    const report = await engine.validate({
      text: 'workflow: w\nschedule:\n  cron: "0 9 * * *"\ntasks:\n  a:\n    command: x\n',
    });
    expect(report.spec?.schedule).toMatchObject({ cron: '0 9 * * *', timezone: 'Asia/Tokyo' });
    expect((await engine.nextFires({ cron: '0 9 * * *' }, 1)).timezone).toBe('Asia/Tokyo');
    // A zone named wins over the host's.
    expect((await engine.nextFires({ cron: '0 9 * * *', timezone: 'Europe/Berlin' }, 1)).timezone).toBe(
      'Europe/Berlin',
    );

    // The machine moved (a laptop travels): the next answer follows.
    zone = 'America/New_York';
    expect((await engine.engineInfo()).timezone).toBe('America/New_York');
    expect((await engine.nextFires({ cron: '0 9 * * *' }, 1)).timezone).toBe('America/New_York');
  });
});

/** A graph of `count` independent tasks (no edges): enough to be indexed in several slices. */
function wideGraph(count: number): WorkflowGraph {
  const task = (id: number) =>
    ({
      id,
      workflowId: 1,
      name: `t${id}`,
      command: 'true',
      env: {},
      retries: 0,
      retryBackoff: 'fixed',
      labels: [],
    }) as unknown as TaskDefinition;
  return {
    id: 1,
    name: 'wide',
    enabled: true,
    version: 1,
    routing: 'least_busy',
    tasks: Array.from({ length: count }, (_, i) => task(i + 1)),
    edges: [],
  };
}

describe('indexing a large graph', () => {
  it("takes the host's turn between slices, not for a small graph", async () => {
    let turns = 0;
    const counting = async () => void turns++;
    await indexWorkflow(wideGraph(10), 0, counting);
    expect(turns).toBe(0);
    const wf = await indexWorkflow(wideGraph(12_000), 0, counting);
    expect(turns).toBeGreaterThan(0);
    expect(wf.roots).toHaveLength(12_000);
  });

  it("with the Node host's turn, what the event loop has queued runs before the indexing ends", async () => {
    // An I/O callback or a timer that came due is queued the same way; a microtask would run
    // every slice before any of them.
    let queuedRan = false;
    let ranDuringIndexing = false;
    setImmediate(() => (queuedRan = true));
    const graphStore = { getWorkflowGraph: async () => wideGraph(12_000) } as unknown as Store;
    const cache = new WorkflowCache(
      graphStore,
      () => 0,
      async () => {
        await nextTurn();
        ranDuringIndexing ||= queuedRan;
      },
    );
    expect((await cache.get(1))?.roots).toHaveLength(12_000);
    expect(ranDuringIndexing).toBe(true);
  });
});

describe('Dispatcher.wake', () => {
  function dispatcher(leading: boolean, alerts: string[]) {
    const coordinator = new MemoryCoordinator();
    const calls = { listWorkers: 0 };
    coordinator.listWorkers = async () => {
      calls.listWorkers++;
      throw new Error('redis away');
    };
    // The pass fails at its first read (listWorkers): the store is never reached.
    const store = {} as Store;
    const d = new Dispatcher(
      store,
      coordinator,
      new WorkflowCache(store, () => 0, nextTurn),
      systemClock,
      new Router(Math.random),
      { staleAfterMs: 1_000, queueAlertThreshold: 100, batch: 500 },
      () => undefined,
      async () => true,
      { isLeader: leading },
      (message) => alerts.push(message),
    );
    return { d, calls };
  }

  it('does nothing in a process that does not lead', async () => {
    const alerts: string[] = [];
    const { d, calls } = dispatcher(false, alerts);
    d.wake();
    expect(calls.listWorkers).toBe(0);
    // The awaited pass (the leader's tick) is not gated: it reads at once.
    await expect(d.runPass()).rejects.toThrow('redis away');
    expect(calls.listWorkers).toBe(1);
  });

  it('runs a pass in the background on the leader, and a failed pass is an alert', async () => {
    const alerts: string[] = [];
    const { d, calls } = dispatcher(true, alerts);
    d.wake();
    expect(calls.listWorkers).toBe(1);
    await waitFor(() => alerts.length > 0);
    expect(alerts).toEqual(['dispatch: redis away']);
  });
});
