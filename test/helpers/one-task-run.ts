// A run of a one-task workflow on a real store, with the run manager and the workflow cache the
// backstops and workers write through, and a worker of another node that took its instance: the
// setting of the tests that drive the scheduler's judgements (fail-over, lost start, stalls) by
// hand, on the in-memory coordinator and a fake clock.
import { expect } from 'vitest';
import { MemoryCoordinator } from '../../engine/adapters/memory/memory-coordinator.ts';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import type { WorkerRecord } from '../../engine/api/types.ts';
import { RunManager } from '../../engine/core/runs/run-manager.ts';
import { WorkflowCache } from '../../engine/core/workflow/workflow-cache.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { nextTurn } from '../../engine/hosts/node/host-defaults.ts';
import type { FakeClock } from './fake-clock.ts';

export interface OneTaskRun {
  coordinator: MemoryCoordinator;
  cache: WorkflowCache;
  runs: RunManager;
  /** what the run manager (and whatever the test hands this to) alerted */
  alerts: string[];
  runId: number;
  /** the run's first instance */
  instanceId: number;
}

/** Applies `file` (a workflow's YAML) and starts a manual run of it at the clock's now. */
export async function oneTaskRun(
  store: SqlStore,
  clock: FakeClock,
  file: string,
  maxFailovers = 3,
): Promise<OneTaskRun> {
  const { spec } = parseWorkflowFile(file, { file: 'w.yaml', defaultTimezone: 'UTC' });
  const { workflowId } = await store.applyWorkflow(spec, clock.now());
  const coordinator = new MemoryCoordinator();
  const cache = new WorkflowCache(store, () => clock.now(), nextTurn);
  const alerts: string[] = [];
  const runs = new RunManager(store, coordinator, cache, clock, () => undefined, {
    max: maxFailovers,
    alert: (m) => alerts.push(m),
  });
  const run = await runs.startRun({
    workflowId,
    trigger: 'manual',
    triggeredBy: 'test',
    logicalTime: clock.now(),
    applyOverlap: false,
  });
  const [inst] = await store.listInstances(run?.id as number);
  return { coordinator, cache, runs, alerts, runId: run?.id as number, instanceId: inst?.id as number };
}

/** Worker `id` of another host registers at `at` and takes the instance (DISPATCHED to it). */
export async function takenBy(store: SqlStore, instanceId: number, id: string, at: number): Promise<void> {
  const worker: WorkerRecord = {
    id,
    host: 'another-host',
    pid: 2,
    version: 'test',
    labels: [],
    maxConcurrency: 4,
    running: 0,
    startedAt: at,
    lastHeartbeat: at,
    status: 'online',
    acceptUnlabelled: true,
  };
  expect(await store.claimWorker(worker, `claim-${id}`, undefined)).toBe(true);
  expect(await store.claimDueInstances(id, [{ id: instanceId, attempt: 1 }], at)).toEqual([instanceId]);
}
