// `on: engine_start` under a fake clock with a real SQLite store: a long-running engine's start
// gives each enabled such workflow one run (trigger engine_start, by the node); every start
// another; a one-shot engine (fireSchedules false, as `ax run` has) none; a standby that takes the
// lead later none (a failover, not a start); a store failure before them is retried on the next
// tick; while scheduling is paused none, said in the audit and an alert.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCoordinator } from '../../engine/adapters/memory/memory-coordinator.ts';
import { NodeProcessRunner } from '../../engine/adapters/process/node-process-runner.ts';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import { Engine } from '../../engine/core/engine.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { nodeHostDefaults } from '../../engine/hosts/node/host-defaults.ts';
import { FakeClock } from '../helpers/fake-clock.ts';
import { tempDir } from '../helpers/files.ts';

const T0 = Date.parse('2026-03-01T00:30:00Z');
const TICK = 5_000;
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const spec = (text: string) => parseWorkflowFile(text, { defaultTimezone: 'UTC' }).spec;

async function setup() {
  const dir = tempDir();
  const clock = new FakeClock(T0);
  const store = await openSqliteStore(path.join(dir, 'ax.db'));
  const coordinator = new MemoryCoordinator({ now: () => clock.now() });
  const engines: Engine[] = [];
  const alerts: string[] = [];
  const newEngine = (nodeId: string, o: { fireSchedules?: boolean } = {}) => {
    // Scheduler only: instances stay WAITING, which is all these tests look at.
    const engine = new Engine({
      ...nodeHostDefaults(),
      store,
      coordinator,
      runner: new NodeProcessRunner(),
      clock,
      nodeId,
      onAlert: (m) => alerts.push(m),
      config: { tickMs: TICK, ...(o.fireSchedules === false && { fireSchedules: false }) },
    });
    engines.push(engine);
    return engine;
  };
  cleanups.push(async () => {
    for (const e of engines) await e.stop(0);
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const setupEngine = newEngine('setup');
  const at = 'tasks:\n  a: { command: "true" }\n';
  await setupEngine.apply(spec(`workflow: boot\non: engine_start\n${at}`), 'test');
  await setupEngine.apply(spec(`workflow: boot-nightly\nschedule: "0 3 * * *"\non: engine_start\n${at}`), 'test');
  await setupEngine.apply(spec(`workflow: boot-off\non: engine_start\n${at}`), 'test');
  await setupEngine.setEnabled('boot-off', false, 'test');
  await setupEngine.apply(spec(`workflow: plain\n${at}`), 'test');
  return { clock, store, coordinator, newEngine, alerts };
}

const startRuns = async (store: SqlStore) =>
  (await store.listRuns({ limit: 1000 }))
    .filter((r) => r.trigger === 'engine_start')
    .map((r) => [r.workflowName, r.triggeredBy])
    .sort();

describe('on: engine_start', () => {
  it('each start of a long-running engine gives each enabled such workflow one run, by the node', async () => {
    const { store, newEngine } = await setup();
    const first = newEngine('host-a:1');
    await first.start();
    expect(await startRuns(store)).toEqual([
      ['boot', 'host-a:1'],
      ['boot-nightly', 'host-a:1'],
    ]);
    const run = (await store.listRuns({ workflowName: 'boot', limit: 10 }))[0];
    expect(run?.state).toBe('RUNNING');
    expect((await store.listRuns({ workflowName: 'plain', limit: 10 })).length).toBe(0);
    await first.stop(0);
    const second = newEngine('host-a:2');
    await second.start();
    expect(await startRuns(store)).toEqual([
      ['boot', 'host-a:1'],
      ['boot', 'host-a:2'],
      ['boot-nightly', 'host-a:1'],
      ['boot-nightly', 'host-a:2'],
    ]);
  });

  it('a one-shot engine (fireSchedules false, as "ax run" has) starts none', async () => {
    const { store, newEngine } = await setup();
    const oneShot = newEngine('host-a:3', { fireSchedules: false });
    await oneShot.start();
    // start() returns after the first tick, which is the one that would have started them
    expect(await startRuns(store)).toEqual([]);
  });

  it('a standby that takes the lead later starts none: a failover is not a start', async () => {
    const { clock, store, coordinator, newEngine } = await setup();
    const leader = newEngine('node-1');
    const standby = newEngine('node-2');
    await leader.start();
    await standby.start();
    expect(await startRuns(store)).toEqual([
      ['boot', 'node-1'],
      ['boot-nightly', 'node-1'],
    ]);
    await leader.stop(0); // frees the lease: the standby's next tick takes it
    await clock.advance(TICK);
    // someone holds the lease, and node-2 is the only scheduler left
    expect(await coordinator.acquireLease('scheduler', 'probe', 1_000)).toBeNull();
    expect(await startRuns(store)).toEqual([
      ['boot', 'node-1'],
      ['boot-nightly', 'node-1'],
    ]);
  });

  it('a store failure before the runs started: the alert says so and the next tick starts them, once', async () => {
    const { clock, store, newEngine, alerts } = await setup();
    const real = store.workflowsForEngineStart.bind(store);
    let failures = 1;
    store.workflowsForEngineStart = async () => {
      if (failures-- > 0) throw new Error('database is locked');
      return real();
    };
    const engine = newEngine('host-a:5');
    await engine.start();
    expect(await startRuns(store)).toEqual([]);
    expect(alerts).toContain('scheduler: database is locked');
    await clock.advance(TICK);
    await clock.advance(TICK);
    expect(await startRuns(store)).toEqual([
      ['boot', 'host-a:5'],
      ['boot-nightly', 'host-a:5'],
    ]);
  });

  it('while scheduling is paused none starts; the audit names each workflow and an alert says so', async () => {
    const { store, newEngine, alerts } = await setup();
    await newEngine('setup-2').setSchedulingPaused(true, 'alice@laptop');
    const engine = newEngine('host-a:4');
    await engine.start();
    expect(await startRuns(store)).toEqual([]);
    const skips = (await store.listAudit(50)).filter((a) => a.action === 'engine_start.skip');
    expect(skips.map((a) => a.object).sort()).toEqual(['workflow:boot', 'workflow:boot-nightly']);
    expect(skips[0]?.detail).toMatch(
      /^not run at the start of host-a:4: scheduling is paused \(since .*, by alice@laptop\)$/,
    );
    expect(alerts.filter((m) => m.includes('on: engine_start'))).toEqual([
      'scheduling is paused: 2 workflow(s) with "on: engine_start" not run at the start of host-a:4 (boot, boot-nightly); start them by hand with "ax run WORKFLOW" if they are needed',
    ]);
  });
});
