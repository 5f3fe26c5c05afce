// Fail-over accounting: whether an attempt was failed over is a column the scheduler
// sets, not text parsed out of its reason, and fail-overs never spend a retry: a task with
// `retries: 2` that fails over once still gets two retries after it. Fail-overs are capped per
// task and run; past the cap a fail-over counts as a failed try, with an alert. Driven on a real
// SQLite store with a fake clock, the outcomes written as the backstops and the worker write them.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import type { InstanceRecord } from '../../engine/api/types.ts';
import { RunManager } from '../../engine/core/runs/run-manager.ts';
import { FakeClock } from '../helpers/fake-clock.ts';
import { tempDir } from '../helpers/files.ts';
import { oneTaskRun } from '../helpers/one-task-run.ts';

const T0 = Date.UTC(2026, 0, 5, 12);

let dir: string;
let store: SqlStore;
let clock: FakeClock;
let alerts: string[];

beforeEach(async () => {
  dir = tempDir('ax-failover-accounting-');
  store = await openSqliteStore(path.join(dir, 'ax.db'));
  clock = new FakeClock(T0);
  alerts = [];
});

afterEach(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function setUp(retries: number, maxFailovers = 3): Promise<{ runs: RunManager; runId: number }> {
  const file = `workflow: acct\ntasks:\n  t:\n    command: 'true'\n    retries: ${retries}\n    retry_backoff: 10s\n`;
  const set = await oneTaskRun(store, clock, file, maxFailovers);
  alerts = set.alerts;
  return set;
}

/** The latest attempt, ended as the backstops (fail-over) or the worker (the task's own failure) end it. */
async function end(runs: RunManager, runId: number, how: 'failover' | 'fail'): Promise<InstanceRecord> {
  const list = await store.listInstances(runId);
  const inst = list[list.length - 1] as InstanceRecord;
  expect(inst.state).toBe('WAITING');
  const patch =
    how === 'failover'
      ? { reason: 'worker w1 went away', failedOver: true, finishedAt: clock.now() }
      : { reason: 'exit code 1', exitCode: 1, finishedAt: clock.now() };
  expect(await runs.finish(inst, { from: ['WAITING'], attempt: inst.attempt }, 'FAILED', patch)).toBe(true);
  return (await store.getInstance(inst.id)) as InstanceRecord;
}

const attempts = async (runId: number) =>
  (await store.listInstances(runId)).map((i) => [
    i.attempt,
    i.state,
    i.failovers ?? 0,
    i.failedOver ?? false,
    i.notBefore - T0,
  ]);

describe('fail-over accounting', () => {
  it('a task with retries: 2 that fails over once still has both retries, whatever its reason text says', async () => {
    const { runs, runId } = await setUp(2);
    const first = await end(runs, runId, 'failover');
    expect(first).toMatchObject({ failedOver: true, failovers: 0 });
    await end(runs, runId, 'fail');
    await end(runs, runId, 'fail');
    await end(runs, runId, 'fail');
    expect(await attempts(runId)).toEqual([
      [1, 'FAILED', 0, true, 0], // failed over: re-run at once, nothing spent
      [2, 'FAILED', 1, false, 0], // first try
      [3, 'FAILED', 1, false, 10_000], // retry 1, after the backoff
      [4, 'FAILED', 1, false, 10_000], // retry 2
    ]);
    expect((await store.getRun(runId))?.state).toBe('FAILED');
    expect(alerts).toEqual([]);
  });

  it('fail-overs are capped per task and run: past the cap one counts as a failed try, with an alert', async () => {
    const { runs, runId } = await setUp(1, 2);
    await end(runs, runId, 'failover');
    await end(runs, runId, 'failover');
    // the third fail-over is past the cap of 2: it spends the one retry
    await end(runs, runId, 'failover');
    expect(alerts).toEqual([
      'task "t" of run #1 failed over more than 2 times (the cap): this fail-over counts as a failed try',
    ]);
    await end(runs, runId, 'failover');
    expect(await attempts(runId)).toEqual([
      [1, 'FAILED', 0, true, 0],
      [2, 'FAILED', 1, true, 0],
      [3, 'FAILED', 2, true, 0],
      [4, 'FAILED', 2, true, 10_000],
    ]);
    expect(alerts).toHaveLength(2);
    expect((await store.getRun(runId))?.state).toBe('FAILED');
  });

  it('an ordinary failure whose reason merely reads like a fail-over spends a retry', async () => {
    const { runs, runId } = await setUp(0);
    const [inst] = await store.listInstances(runId);
    expect(
      await runs.finish(inst as InstanceRecord, { from: ['WAITING'], attempt: 1 }, 'FAILED', {
        reason: 'failed over: said the task',
        finishedAt: T0,
      }),
    ).toBe(true);
    expect(await attempts(runId)).toEqual([[1, 'FAILED', 0, false, 0]]);
    expect((await store.getRun(runId))?.state).toBe('FAILED');
  });
});
