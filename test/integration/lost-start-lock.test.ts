// A worker killed between its start lock and its start (found with simulated workers: a kill -9 of
// a simulating process): the scheduler returns the DISPATCHED attempt to WAITING as lost before
// its start, and frees that attempt's start lock with it, so the next worker's delivery of the
// same attempt is not refused for the lock's whole TTL (up to a day for a task without a timeout).
// Driven on a real SQLite store, the in-memory coordinator and a fake clock.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import { DEFAULT_CONFIG } from '../../engine/core/model/config.ts';
import { BackstopPass } from '../../engine/core/scheduling/backstop-pass.ts';
import { FakeClock } from '../helpers/fake-clock.ts';
import { tempDir } from '../helpers/files.ts';
import { oneTaskRun, takenBy } from '../helpers/one-task-run.ts';

const T0 = Date.UTC(2026, 0, 5, 12);
let dir: string;
let store: SqlStore;

beforeEach(async () => {
  dir = tempDir('ax-lost-start-lock-');
  store = await openSqliteStore(path.join(dir, 'ax.db'));
});
afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

it('a DISPATCHED attempt whose worker died holding its start lock is requeued with the lock freed', async () => {
  const clock = new FakeClock(T0);
  const { coordinator, cache, runs, alerts, instanceId } = await oneTaskRun(
    store,
    clock,
    "workflow: w\ntasks:\n  t:\n    command: 'true'\n",
  );
  await takenBy(store, instanceId, 'w1', T0);
  // w1 took the message and its start lock (a day long: no timeout), then died before RUNNING.
  expect(await coordinator.acquireStartLock(instanceId, 1, 86_400_000)).toBe(true);

  clock.advance(4 * DEFAULT_CONFIG.workerHeartbeatMs);
  const pass = new BackstopPass(
    store,
    coordinator,
    cache,
    clock,
    DEFAULT_CONFIG,
    runs,
    () => undefined,
    (m) => alerts.push(m),
  );
  await pass.checkRunning();

  const after = await store.getInstance(instanceId);
  expect(after?.state).toBe('WAITING');
  expect(after?.attempt).toBe(1);
  expect(after?.reason).toMatch(/^worker w1 was lost \(no heartbeat for \d+s\) before it started the task$/);
  // the next worker's delivery of attempt 1 can take the lock
  expect(await coordinator.acquireStartLock(instanceId, 1, 60_000)).toBe(true);
});
