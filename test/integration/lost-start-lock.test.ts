// A worker killed between its start lock and its start (found with simulated workers: a kill -9 of
// a simulating process): the scheduler returns the DISPATCHED attempt to WAITING as lost before
// its start, and frees that attempt's start lock with it, so the next worker's delivery of the
// same attempt is not refused for the lock's whole TTL (up to a day for a task without a timeout).
// Driven on a real SQLite store, the in-memory coordinator and a fake clock.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { MemoryCoordinator } from '../../engine/adapters/memory/memory-coordinator.ts';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import type { WorkerRecord } from '../../engine/api/types.ts';
import { DEFAULT_CONFIG } from '../../engine/core/model/config.ts';
import { RunManager } from '../../engine/core/runs/run-manager.ts';
import { BackstopPass } from '../../engine/core/scheduling/backstop-pass.ts';
import { WorkflowCache } from '../../engine/core/workflow/workflow-cache.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { nextTurn } from '../../engine/hosts/node/host-defaults.ts';
import { FakeClock } from '../helpers/fake-clock.ts';
import { tempDir } from '../helpers/files.ts';

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
  const coordinator = new MemoryCoordinator();
  const { spec } = parseWorkflowFile("workflow: w\ntasks:\n  t:\n    command: 'true'\n", {
    file: 'w.yaml',
    defaultTimezone: 'UTC',
  });
  const { workflowId } = await store.applyWorkflow(spec, T0);
  const cache = new WorkflowCache(store, () => clock.now(), nextTurn);
  const alerts: string[] = [];
  const runs = new RunManager(store, coordinator, cache, clock, () => undefined, {
    max: 3,
    alert: (m) => alerts.push(m),
  });
  const run = await runs.startRun({
    workflowId,
    trigger: 'manual',
    triggeredBy: 'test',
    logicalTime: T0,
    applyOverlap: false,
  });
  const [inst] = await store.listInstances(run?.id as number);
  const worker: WorkerRecord = {
    id: 'w1',
    host: 'h',
    pid: 2,
    version: 'test',
    labels: [],
    maxConcurrency: 4,
    running: 0,
    startedAt: T0,
    lastHeartbeat: T0,
    status: 'online',
    acceptUnlabelled: true,
  };
  expect(await store.claimWorker(worker, 'claim-1', undefined)).toBe(true);
  expect(await store.claimDueInstances('w1', [{ id: inst?.id as number, attempt: 1 }], T0)).toEqual([inst?.id]);
  // w1 took the message and its start lock (a day long: no timeout), then died before RUNNING.
  expect(await coordinator.acquireStartLock(inst?.id as number, 1, 86_400_000)).toBe(true);

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

  const after = await store.getInstance(inst?.id as number);
  expect(after?.state).toBe('WAITING');
  expect(after?.attempt).toBe(1);
  expect(after?.reason).toMatch(/^worker w1 was lost \(no heartbeat for \d+s\) before it started the task$/);
  // the next worker's delivery of attempt 1 can take the lock
  expect(await coordinator.acquireStartLock(inst?.id as number, 1, 60_000)).toBe(true);
});
