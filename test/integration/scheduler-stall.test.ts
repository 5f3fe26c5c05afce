// A scheduler whose own process was not run for a while — the machine stalled (a virtual machine
// paused, a host asleep) or its event loop was held. On a stalled machine the workers were not
// run either, so the scheduler's first look afterwards finds their heartbeats as old as the stall,
// though they are alive: a fresh-clone CI saw two live workers failed over 7 s into a run, their
// tasks then run twice. A tick whose timer fires late now leaves that time out of everyone's
// silence; a worker that is really gone is still judged lost, as much later as the stall was long.
// A real SQLite store, the in-memory coordinator, a fake clock whose jump is the stall; the
// scheduler's timer and the backstops are the real ones.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import { DEFAULT_CONFIG, type EngineConfig, workerLostAfterMs } from '../../engine/core/model/config.ts';
import { BackstopPass } from '../../engine/core/scheduling/backstop-pass.ts';
import { LeaderLease } from '../../engine/core/scheduling/leader-lease.ts';
import { Scheduler, type SchedulerParts } from '../../engine/core/scheduling/scheduler.ts';
import { FakeClock } from '../helpers/fake-clock.ts';
import { tempDir } from '../helpers/files.ts';
import { oneTaskRun, takenBy } from '../helpers/one-task-run.ts';

const T0 = Date.UTC(2026, 0, 5, 12);
const CONFIG: EngineConfig = { ...DEFAULT_CONFIG, fireSchedules: false };
let dir: string;
let store: SqlStore;
let scheduler: Scheduler | undefined;

beforeEach(async () => {
  dir = tempDir('ax-scheduler-stall-');
  store = await openSqliteStore(path.join(dir, 'ax.db'));
});
afterEach(async () => {
  await scheduler?.stop();
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('a stall of the whole machine fails no live worker over; a worker that stays silent after it is judged lost', async () => {
  const clock = new FakeClock(T0);
  const {
    coordinator,
    cache,
    runs,
    alerts,
    instanceId: id,
  } = await oneTaskRun(store, clock, "workflow: w\ntasks:\n  t:\n    command: 'sleep 600'\n");
  await takenBy(store, id, 'w1', T0);
  expect(await store.markRunning(id, { from: ['DISPATCHED'], attempt: 1, workerId: 'w1' }, T0)).toBe(true);

  const backstops = new BackstopPass(
    store,
    coordinator,
    cache,
    clock,
    CONFIG,
    runs,
    () => undefined,
    (m) => alerts.push(m),
  );
  const idle = async (): Promise<void> => undefined;
  // Only the lease, the backstops and the tick's timer matter here; the other parts do nothing.
  const parts = {
    lease: new LeaderLease(coordinator, 'sched:1', 3 * CONFIG.workerHeartbeatMs, () => clock.now()),
    cron: { stop: () => undefined },
    checkRuns: idle,
    backstops,
    dispatcher: { runPass: idle, wake: () => undefined },
    retryWakeupAndPurge: { wakeForRetries: idle, purgeLogs: idle, stop: () => undefined },
    expireWaits: idle,
    engineStart: idle,
    checkMonitors: idle,
    topUpBackfills: idle,
  } as unknown as SchedulerParts;
  scheduler = new Scheduler(parts, coordinator, clock, CONFIG, (m) => alerts.push(m));
  await scheduler.start();
  const state = async () => (await store.getInstance(id))?.state;

  // The machine stalls for longer than a worker may stay silent: no timer of anyone runs.
  const stall = workerLostAfterMs(CONFIG) + 5_000;
  clock.jump(stall);
  await clock.advance(0); // it runs again: the tick's timer fires, that late
  expect(await state(), alerts.join('\n')).toBe('RUNNING');
  expect(alerts).toEqual([]);

  // The worker does not come back: judged lost once silent for the lost window after the stall
  // (at the backstops' next look past it: they look every heartbeat interval), not never.
  await clock.advance(workerLostAfterMs(CONFIG) - CONFIG.tickMs);
  expect(await state()).toBe('RUNNING');
  await clock.advance(Math.min(CONFIG.workerHeartbeatMs, CONFIG.taskHeartbeatMs) + CONFIG.tickMs);
  expect(await store.getInstance(id)).toMatchObject({ state: 'FAILED', failedOver: true });
  expect(alerts.join('\n')).toMatch(/failed over: worker w1 lost \(no heartbeat for \d+s\)/);
});
