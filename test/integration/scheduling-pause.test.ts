// Pausing all scheduling, and catching up after sleep, under a fake clock with a real SQLite
// store: while paused no cron fire (on time or by a timer set before the pause) and no event
// starts a run, a manual run does; the pause survives a restart; on resume the fires held back
// are missed fires, which each misfire policy deals with as after downtime. catchUpSchedules
// deals with them at once after the clock jumped (a machine waking), without waiting for a tick.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MemoryCoordinator } from '../../engine/adapters/memory/memory-coordinator.ts';
import { NodeProcessRunner } from '../../engine/adapters/process/node-process-runner.ts';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import { AxError } from '../../engine/api/errors.ts';
import type { EngineEvent } from '../../engine/api/events.ts';
import type { MisfirePolicy } from '../../engine/api/types.ts';
import { Engine } from '../../engine/core/engine.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { FakeClock } from '../helpers/fake-clock.ts';
import { tempDir } from '../helpers/files.ts';
import { nodeHostDefaults } from '../../engine/hosts/node/host-defaults.ts';

const T0 = Date.parse('2026-03-01T00:30:00Z');
const HOUR = 3_600_000;
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(misfire: MisfirePolicy = 'run_once', o: { tickMs?: number } = {}) {
  const dir = tempDir();
  const clock = new FakeClock(T0);
  const store = await openSqliteStore(path.join(dir, 'ax.db'));
  const coordinator = new MemoryCoordinator({ now: () => clock.now() });
  const engines: Engine[] = [];
  const newEngine = () => {
    // Scheduler only: instances stay WAITING, which is all these tests look at.
    const engine = new Engine({
      ...nodeHostDefaults(),
      store,
      coordinator,
      runner: new NodeProcessRunner(),
      clock,
      nodeId: 'solo',
      config: { tickMs: o.tickMs ?? 5_000 },
    });
    engines.push(engine);
    return engine;
  };
  cleanups.push(async () => {
    for (const e of engines) await e.stop(0);
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const hourly = parseWorkflowFile(
    `workflow: hourly\nschedule: { cron: "0 * * * *", timezone: UTC, misfire: ${misfire}, overlap: parallel }\ntasks:\n  a: { command: "true" }\n`,
    { defaultTimezone: 'UTC' },
  ).spec;
  const onEvent = parseWorkflowFile('workflow: listener\non_event: orders-ready\ntasks:\n  a: { command: "true" }\n', {
    defaultTimezone: 'UTC',
  }).spec;
  const setupEngine = newEngine();
  await setupEngine.apply(hourly, 'test');
  await setupEngine.apply(onEvent, 'test');
  return { clock, store, newEngine };
}

const runsOf = async (store: SqlStore, workflow = 'hourly') =>
  (await store.listRuns({ workflowName: workflow, limit: 1000 }))
    .map((r) => [new Date(r.logicalTime).toISOString(), r.trigger])
    .sort();

describe('pause all scheduling', () => {
  it.each([
    ['run_once', ['2026-03-01T03:00:00.000Z']],
    ['skip', []],
    ['all', ['2026-03-01T01:00:00.000Z', '2026-03-01T02:00:00.000Z', '2026-03-01T03:00:00.000Z']],
  ] as const)(
    'no fire while paused; on resume misfire %s deals with the held-back fires as after downtime: %j',
    async (policy, expected) => {
      const { clock, store, newEngine } = await setup(policy);
      const engine = newEngine();
      await engine.start();
      // Paused 5 s before 01:00, when the fire's exact timer is already set: it must not fire either.
      await clock.advance(HOUR / 2 - 5_000);
      expect(await engine.setSchedulingPaused(true, 'alice@laptop')).toEqual({
        changed: true,
        paused: { since: clock.now(), by: 'alice@laptop' },
      });
      await clock.advance(2.5 * HOUR + 5_000); // 03:30: fires at 01:00, 02:00 and 03:00 held back
      expect(await runsOf(store)).toEqual([]);
      // The three fires are more than the misfire threshold late: missed, by the policy's rules.
      expect(await engine.setSchedulingPaused(false, 'bob@desk')).toEqual({ changed: true });
      await clock.advance(1_000);
      expect(await runsOf(store)).toEqual(expected.map((t) => [t, 'cron']));
      if (policy === 'skip') {
        expect((await store.listAudit(20)).find((a) => a.action === 'misfire.skip')?.detail).toMatch(
          /^3 missed fire\(s\) up to 2026-03-01T03:00:00.000Z not run/,
        );
      }
      // And on it goes at 04:00.
      await clock.advance(HOUR / 2);
      expect((await runsOf(store)).at(-1)).toEqual(['2026-03-01T04:00:00.000Z', 'cron']);
      const audit = (await store.listAudit(50))
        .filter((a) => a.action.startsWith('scheduling.'))
        .map((a) => [a.action, a.actor]);
      expect(audit).toEqual([
        ['scheduling.resume', 'bob@desk'],
        ['scheduling.pause', 'alice@laptop'],
      ]);
    },
  );

  it('a manual run starts while paused; an event is refused (conflict, saying so) and starts nothing; after the resume it starts', async () => {
    const { store, newEngine } = await setup();
    const engine = newEngine();
    await engine.start();
    await engine.setSchedulingPaused(true, 'alice@laptop');
    const manual = await engine.runWorkflow('hourly', { actor: 'alice@laptop' });
    expect(manual.trigger).toBe('manual');
    const refused = await engine.trigger('orders-ready', '{"n":1}', 'webhook').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(AxError);
    expect((refused as AxError).code).toBe('conflict');
    expect((refused as AxError).message).toMatch(
      /^scheduling is paused \(since .*, by alice@laptop\): event "orders-ready" started nothing; resume with "ax resume"/,
    );
    expect(await runsOf(store, 'listener')).toEqual([]);
    await engine.setSchedulingPaused(false, 'alice@laptop');
    expect((await engine.trigger('orders-ready', undefined, 'webhook')).map((r) => r.trigger)).toEqual(['event']);
  });

  it('is shown in the dashboard and engine info, announced to followers, and pausing twice keeps the first', async () => {
    const { clock, newEngine } = await setup();
    const engine = newEngine();
    await engine.start();
    const events: EngineEvent[] = [];
    const stop = await engine.subscribe(['workflows'], (e) => events.push(e));
    expect((await engine.dashboard()).schedulingPaused).toBeUndefined();
    const since = clock.now();
    await engine.setSchedulingPaused(true, 'alice@laptop');
    await clock.advance(60_000);
    expect(await engine.setSchedulingPaused(true, 'bob@desk')).toEqual({
      changed: false,
      paused: { since, by: 'alice@laptop' },
    });
    expect((await engine.dashboard()).schedulingPaused).toEqual({ since, by: 'alice@laptop' });
    expect((await engine.engineInfo()).schedulingPaused).toEqual({ since, by: 'alice@laptop' });
    await engine.setSchedulingPaused(false, 'bob@desk');
    expect(await engine.setSchedulingPaused(false, 'bob@desk')).toEqual({ changed: false });
    expect((await engine.engineInfo()).schedulingPaused).toBeUndefined();
    stop();
    expect(events.filter((e) => e.type === 'scheduling')).toEqual([
      { type: 'scheduling', paused: true, since, by: 'alice@laptop', at: since },
      { type: 'scheduling', paused: false, by: 'bob@desk', at: since + 60_000 },
    ]);
  });

  it('survives a restart of the engine: the next engine does not fire either', async () => {
    const { clock, store, newEngine } = await setup('all');
    const first = newEngine();
    await first.start();
    await first.setSchedulingPaused(true, 'alice@laptop');
    await first.stop(0);
    await clock.advance(2 * HOUR);
    const second = newEngine();
    await second.start();
    await clock.advance(HOUR);
    expect(await runsOf(store)).toEqual([]);
    expect((await second.dashboard()).schedulingPaused?.by).toBe('alice@laptop');
  });
});

describe('catchUpSchedules (waking from sleep)', () => {
  it('after the clock jumped, deals with the missed fires at once by the misfire policy, without a tick', async () => {
    // Ticks an hour apart: only the catch-up can explain a run right after the jump.
    const { clock, store, newEngine } = await setup('run_once', { tickMs: HOUR });
    const engine = newEngine();
    await engine.start();
    clock.jump(3 * HOUR); // asleep 00:30 → 03:30: no timer ran
    expect(await runsOf(store)).toEqual([]);
    expect(await engine.catchUpSchedules()).toEqual({ scanned: true, paused: false, fired: 1, dropped: 2 });
    expect(await runsOf(store)).toEqual([['2026-03-01T03:00:00.000Z', 'cron']]);
    // A second call finds nothing more to do.
    expect(await engine.catchUpSchedules()).toEqual({ scanned: true, paused: false, fired: 0, dropped: 0 });
  });

  it('while paused it fires nothing and says so; an engine that is not started does not scan', async () => {
    const { clock, store, newEngine } = await setup('all', { tickMs: HOUR });
    const engine = newEngine();
    await engine.start();
    await engine.setSchedulingPaused(true, 'alice@laptop');
    clock.jump(3 * HOUR);
    expect(await engine.catchUpSchedules()).toEqual({ scanned: true, paused: true, fired: 0, dropped: 0 });
    expect(await runsOf(store)).toEqual([]);
    expect(await newEngine().catchUpSchedules()).toEqual({ scanned: false, paused: true, fired: 0, dropped: 0 });
  });
});
