// Dependencies across workflows, on real SQLite and MariaDB stores with a fake clock: runs are
// started at the logical times their cron schedules give (two workflows on different schedules
// and zones), and outcomes are written as the worker writes them (RunManager.finish). A waiter is
// held (WAITING, never due, saying what it waits for) until the upstream's SUCCESS releases it in
// the same step; a failure for good makes it UPSTREAM_FAILED; a successful re-run releases those
// still waiting; a wait past its wait_timeout fails with the reason and an alert.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MemoryCoordinator } from '../../engine/adapters/memory/memory-coordinator.ts';
import { openMysqlStore } from '../../engine/adapters/sql/mysql-store.ts';
import { openSqliteStore } from '../../engine/adapters/sql/sqlite-store.ts';
import type { SqlStore } from '../../engine/adapters/sql/sql-store.ts';
import type { InstanceRecord } from '../../engine/api/types.ts';
import { NO_ALERTS } from '../../engine/core/alerts/alert-rules.ts';
import { RunManager } from '../../engine/core/runs/run-manager.ts';
import { WorkflowCache } from '../../engine/core/workflow/workflow-cache.ts';
import { parseWorkflowFile } from '../../engine/core/workflow/workflow-file.ts';
import { HELD_FOR_UPSTREAM } from '../../engine/ports/store.ts';
import type { EngineEvent } from '../../engine/api/events.ts';
import { FakeClock } from '../helpers/fake-clock.ts';
import { createTestDatabase, mysqlAvailable } from '../helpers/services.ts';
import { tempDir } from '../helpers/files.ts';
import { nextTurn } from '../../engine/hosts/node/host-defaults.ts';

const HOUR = 3_600_000;
// A fires at 02:00 UTC; B at 03:00 in Shanghai (19:00 UTC the day before).
const A_30 = Date.parse('2026-11-30T02:00:00Z');
const A_29 = Date.parse('2026-11-29T02:00:00Z');
const B_30 = Date.parse('2026-11-29T19:00:00Z'); // 2026-11-30 03:00 +08:00
const B_01 = Date.parse('2026-11-30T19:00:00Z'); // 2026-12-01 03:00 +08:00

const TABLES = [
  'workflow',
  'task_definition',
  'task_dependency',
  'schedule_plan',
  'workflow_run',
  'task_instance',
  'cross_dependency',
  'upstream_wait',
] as const;
const mysql = await mysqlAvailable();
let database: Awaited<ReturnType<typeof createTestDatabase>> | undefined;
let mysqlStore: SqlStore | undefined;
let mysqlPeer: SqlStore | undefined;

beforeAll(async () => {
  if (!mysql) return;
  database = await createTestDatabase('ax_cross');
  mysqlStore = await openMysqlStore({ url: database.url });
  mysqlPeer = await openMysqlStore({ url: database.url });
});
afterAll(async () => {
  await mysqlStore?.close();
  await mysqlPeer?.close();
  await database?.drop();
});

let dir: string;
let store: SqlStore;
let clock: FakeClock;
let alerts: string[];
let events: EngineEvent[];
let runs: RunManager;
let woken: number;

async function openStore(backend: 'sqlite' | 'mysql'): Promise<void> {
  if (backend === 'sqlite') store = await openSqliteStore(path.join(dir, 'ax.db'));
  else {
    store = mysqlStore as SqlStore;
    for (const t of TABLES) await store.db.deleteFrom(t).execute();
  }
  const coordinator = new MemoryCoordinator();
  await coordinator.subscribe((e) => void events.push(e));
  runs = managerOn(store, coordinator);
}

function managerOn(s: SqlStore, coordinator = new MemoryCoordinator()): RunManager {
  const hooks = {
    ...NO_ALERTS,
    taskFailed: (inst: InstanceRecord, state: string, reason: string | undefined) =>
      void alerts.push(`${inst.taskName} ${state}: ${reason}`),
  };
  return new RunManager(
    s,
    coordinator,
    new WorkflowCache(s, () => clock.now(), nextTurn, 0),
    clock,
    () => void woken++,
    { max: 3, alert: (m) => alerts.push(m) },
    hooks,
  );
}

beforeEach(async () => {
  dir = tempDir('ax-cross-workflow-');
  clock = new FakeClock(A_29);
  alerts = [];
  events = [];
  woken = 0;
});

afterEach(async () => {
  if (store !== mysqlStore) await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

async function apply(text: string): Promise<number> {
  const { spec } = parseWorkflowFile(text, { defaultTimezone: 'UTC' });
  return (await store.applyWorkflow(spec, clock.now())).workflowId;
}

const A = `workflow: a\nschedule: { cron: "0 2 * * *", timezone: UTC }\ntasks:\n  extract: { command: "true" }\n  report: { command: "true", upstream: [extract] }\n`;
const B = (upstream: string, extra = '') =>
  `workflow: b\nschedule: { cron: "0 3 * * *", timezone: Asia/Shanghai }\ntasks:\n  load: { command: "true", upstream: ${upstream}, retries: 3${extra} }\n  publish: { command: "true", upstream: [load] }\n`;

async function start(workflowId: number, logicalTime: number): Promise<number> {
  const run = await runs.startRun({
    workflowId,
    trigger: 'cron',
    triggeredBy: 'cron',
    logicalTime,
    applyOverlap: false,
  });
  return run?.id as number;
}

async function latest(runId: number, task: string): Promise<InstanceRecord> {
  const mine = (await store.listInstances(runId)).filter((i) => i.taskName === task);
  return mine[mine.length - 1] as InstanceRecord;
}

/** What the worker writes when a task it ran ends (here straight from WAITING: no process runs). */
async function end(runId: number, task: string, to: 'SUCCESS' | 'FAILED'): Promise<void> {
  const inst = await latest(runId, task);
  expect(inst.state).toBe('WAITING');
  expect(inst.notBefore).toBeLessThanOrEqual(clock.now()); // due: a held one would never be handed out
  expect(
    await runs.finish(inst, { from: ['WAITING'], attempt: inst.attempt }, to, {
      finishedAt: clock.now(),
      exitCode: to === 'SUCCESS' ? 0 : 1,
    }),
  ).toBe(true);
}

const due = async () => (await store.dueWaiting(clock.now(), 100)).map((i) => i.taskName);

// Not under CI (mysqlAvailable throws there): a developer machine without MariaDB runs SQLite only.
describe.each(mysql ? (['sqlite', 'mysql'] as const) : (['sqlite'] as const))(
  'an upstream in another workflow (%s)',
  (backend) => {
    beforeEach(() => openStore(backend));

    it('B.load waits for a.extract of the same day in B’s zone, and is released by its SUCCESS in the same step', async () => {
      const a = await apply(A);
      const b = await apply(B('[a.extract]'));
      const bRun = await start(b, B_30);
      const held = await latest(bRun, 'load');
      expect(held).toMatchObject({
        state: 'WAITING',
        notBefore: HELD_FOR_UPSTREAM,
        reason: 'waiting for a.extract of 2026-11-30',
      });
      expect(await due()).toEqual([]);

      // The day before does not count, nor another task of the same run.
      clock.jump(A_29 - clock.now() + 1);
      const aRun29 = await start(a, A_29);
      await end(aRun29, 'extract', 'SUCCESS');
      expect((await latest(bRun, 'load')).notBefore).toBe(HELD_FOR_UPSTREAM);

      clock.jump(A_30 - clock.now());
      const aRun = await start(a, A_30);
      woken = 0;
      await end(aRun, 'extract', 'SUCCESS');
      const released = await latest(bRun, 'load');
      expect(released).toMatchObject({ state: 'WAITING', notBefore: clock.now() });
      expect(released.reason).toBeUndefined();
      expect(await due()).toContain('load');
      expect(woken).toBeGreaterThan(0); // the dispatcher is told at once: no poll finds it
      expect(events.some((e) => e.type === 'instance' && e.instanceId === released.id && e.state === 'WAITING')).toBe(
        true,
      );

      await end(bRun, 'load', 'SUCCESS');
      await end(bRun, 'publish', 'SUCCESS');
      expect((await store.getRun(bRun))?.state).toBe('SUCCESS');
    });

    it('with date: previous_day it uses yesterday’s run: created due when that already succeeded', async () => {
      const a = await apply(A);
      const b = await apply(B('[{ ref: a.extract, date: previous_day }]'));
      const aRun29 = await start(a, A_29);
      await end(aRun29, 'extract', 'SUCCESS');
      // B of 2026-11-30 (Shanghai) needs a.extract of the 29th: done.
      const bRun = await start(b, B_30);
      expect(await latest(bRun, 'load')).toMatchObject({ state: 'WAITING', notBefore: clock.now() });
      // B of 2026-12-01 needs the 30th's.
      const bNext = await start(b, B_01);
      expect((await latest(bNext, 'load')).reason).toBe('waiting for a.extract of 2026-11-30');
      const aRun = await start(a, A_30);
      await end(aRun, 'extract', 'SUCCESS');
      expect((await latest(bNext, 'load')).notBefore).toBe(clock.now());
    });

    it('A failing for good makes B.load UPSTREAM_FAILED (and its downstream); a re-run of A that succeeds releases B', async () => {
      const a = await apply(A);
      const b = await apply(B('[a.extract]'));
      const bRun = await start(b, B_30);
      const aRun = await start(a, A_30);
      await end(aRun, 'extract', 'FAILED');
      expect(await latest(bRun, 'load')).toMatchObject({
        state: 'UPSTREAM_FAILED',
        reason: 'upstream a.extract of 2026-11-30 failed for good: re-run it, then this task',
      });
      expect((await latest(bRun, 'publish')).state).toBe('UPSTREAM_FAILED');
      expect((await store.getRun(bRun))?.state).toBe('FAILED');

      // Another run of B for that day, made meanwhile, waits (A's failure is not a SUCCESS).
      const bAgain = await start(b, B_30 + HOUR);
      expect((await latest(bAgain, 'load')).notBefore).toBe(HELD_FOR_UPSTREAM);
      await runs.rerun(aRun, 'extract');
      await end(aRun, 'extract', 'SUCCESS');
      expect((await latest(bAgain, 'load')).notBefore).toBe(clock.now());
      // And B's failed load can be re-run too: it waits again, and is due at once.
      await runs.rerun(bRun, 'load');
      expect(await latest(bRun, 'load')).toMatchObject({ state: 'WAITING', attempt: 2, notBefore: clock.now() });
    });

    it('the wait timeout fails B.load with the reason and an alert, without a retry', async () => {
      await apply(A);
      const b = await apply(B('[a.extract]', ', wait_timeout: 2h'));
      const bRun = await start(b, B_30);
      clock.jump(2 * HOUR - 1);
      await runs.expireWaits();
      expect((await latest(bRun, 'load')).state).toBe('WAITING');
      clock.jump(1);
      await runs.expireWaits();
      const failed = await latest(bRun, 'load');
      expect(failed).toMatchObject({
        state: 'FAILED',
        attempt: 1,
        reason: 'wait_timeout: waited 2h for a.extract of 2026-11-30, which did not succeed in time',
      });
      expect((await store.listInstances(bRun)).filter((i) => i.taskName === 'load')).toHaveLength(1);
      expect((await latest(bRun, 'publish')).state).toBe('UPSTREAM_FAILED');
      expect(alerts).toEqual([
        'load FAILED: wait_timeout: waited 2h for a.extract of 2026-11-30, which did not succeed in time',
      ]);
      // Nothing is left to expire.
      expect(await store.expiredWaits(clock.now() + 100 * HOUR, 10)).toEqual([]);
    });

    it('a workflow that does not exist yet: B waits, and is released once it is applied and runs', async () => {
      const b = await apply(B('[later.extract]'));
      const bRun = await start(b, B_30);
      expect((await latest(bRun, 'load')).reason).toBe('waiting for later.extract of 2026-11-30');
      const later = await apply('workflow: later\ntasks:\n  extract: { command: "true" }\n');
      const lRun = await start(later, A_30);
      await end(lRun, 'extract', 'SUCCESS');
      expect((await latest(bRun, 'load')).notBefore).toBe(clock.now());
    });

    it('a whole workflow (a.*) releases once its run ends SUCCESS, not at its first task', async () => {
      const a = await apply(A);
      const b = await apply(B('[a.*]'));
      const bRun = await start(b, B_30);
      expect((await latest(bRun, 'load')).reason).toBe('waiting for the whole of a of 2026-11-30');
      const aRun = await start(a, A_30);
      await end(aRun, 'extract', 'SUCCESS');
      expect((await latest(bRun, 'load')).notBefore).toBe(HELD_FOR_UPSTREAM);
      await end(aRun, 'report', 'SUCCESS');
      expect((await store.getRun(aRun))?.state).toBe('SUCCESS');
      expect((await latest(bRun, 'load')).notBefore).toBe(clock.now());
    });

    it('a run of one task of the upstream is not its whole run', async () => {
      const a = await apply(A);
      const b = await apply(B('[a.*]'));
      const one = await runs.startRun({
        workflowId: a,
        trigger: 'manual',
        triggeredBy: 'test',
        logicalTime: A_30,
        onlyTask: 'extract',
        applyOverlap: false,
      });
      await end(one?.id as number, 'extract', 'SUCCESS');
      expect((await store.getRun(one?.id as number))?.state).toBe('SUCCESS');
      const bRun = await start(b, B_30);
      expect((await latest(bRun, 'load')).notBefore).toBe(HELD_FOR_UPSTREAM);
    });

    it('waits for two upstreams: the reason lists what is left; the last one releases it', async () => {
      const a = await apply(A);
      const c = await apply('workflow: c\ntasks:\n  x: { command: "true" }\n');
      const b = await apply(B('[a.extract, c.x]'));
      const bRun = await start(b, B_30);
      expect((await latest(bRun, 'load')).reason).toBe('waiting for a.extract of 2026-11-30, c.x of 2026-11-30');
      const cRun = await start(c, A_30);
      await end(cRun, 'x', 'SUCCESS');
      expect(await latest(bRun, 'load')).toMatchObject({
        notBefore: HELD_FOR_UPSTREAM,
        reason: 'waiting for a.extract of 2026-11-30',
      });
      const aRun = await start(a, A_30);
      await end(aRun, 'extract', 'SUCCESS');
      expect((await latest(bRun, 'load')).notBefore).toBe(clock.now());
    });

    it('date: latest waits for the upstream’s most recent run, or any later one, to succeed', async () => {
      const a = await apply(A);
      const b = await apply(B('[{ ref: a.extract, date: latest }]'));
      const aRun29 = await start(a, A_29);
      await end(aRun29, 'extract', 'FAILED');
      const bRun = await start(b, B_30);
      expect((await latest(bRun, 'load')).reason).toBe('waiting for a.extract (its latest run)');
      const aRun = await start(a, A_30);
      await end(aRun, 'extract', 'SUCCESS');
      expect((await latest(bRun, 'load')).notBefore).toBe(clock.now());
    });

    it('cancelling the upstream’s run makes its waiters UPSTREAM_FAILED; a waiter for another day waits on', async () => {
      const a = await apply(A);
      const b = await apply(B('[a.report]'));
      const other = await apply(
        'workflow: other\ntasks:\n  use: { command: "true", upstream: [{ ref: a.*, date: previous_day }] }\n',
      );
      const bRun = await start(b, B_30);
      const otherRun = await start(other, A_30);
      const aRun = await start(a, A_30);
      await runs.cancel(aRun, undefined, 'cancelled by test');
      expect(await latest(bRun, 'load')).toMatchObject({
        state: 'UPSTREAM_FAILED',
        reason: `upstream a.report of 2026-11-30: its run #${aRun} was cancelled`,
      });
      expect((await latest(otherRun, 'use')).reason).toBe('waiting for the whole of a of 2026-11-29');
    });

    it('a cancelled waiter leaves no wait behind', async () => {
      await apply(A);
      const b = await apply(B('[a.extract]'));
      const bRun = await start(b, B_30);
      await runs.cancel(bRun, undefined, 'cancelled by test');
      expect(await store.expiredWaits(clock.now() + 100 * HOUR, 10)).toEqual([]);
    });
  },
);

// Two connections racing, as two schedulers or workers of a team do (SQLite has one writer at a
// time). Not under CI without MariaDB: mysqlAvailable throws there.
describe.runIf(mysql)('races across two connections (mysql)', () => {
  beforeEach(() => openStore('mysql'));

  it('two upstreams releasing one waiter’s last two waits at once release it exactly once', async () => {
    const peerRuns = managerOn(mysqlPeer as SqlStore);
    const a = await apply(A);
    const c = await apply('workflow: c\ntasks:\n  x: { command: "true" }\n');
    const b = await apply(B('[a.extract, c.x]'));
    for (let round = 0; round < 8; round++) {
      const bRun = await start(b, B_30 + round);
      const aRun = await start(a, A_30 + round);
      const cRun = await start(c, A_30 + round);
      const [ax, cx] = [await latest(aRun, 'extract'), await latest(cRun, 'x')];
      const patch = { finishedAt: clock.now(), exitCode: 0 };
      const done = await Promise.all([
        runs.finish(ax, { from: ['WAITING'], attempt: 1 }, 'SUCCESS', patch),
        peerRuns.finish(cx, { from: ['WAITING'], attempt: 1 }, 'SUCCESS', patch),
      ]);
      expect(done).toEqual([true, true]);
      const load = await latest(bRun, 'load');
      expect(load).toMatchObject({ state: 'WAITING', notBefore: clock.now() });
      expect(
        await mysqlStore?.db.selectFrom('upstream_wait').select('id').where('instance_id', '=', load.id).execute(),
      ).toEqual([]);
    }
  });

  it('a waiter created while its upstream succeeds is never left held', async () => {
    const peerRuns = managerOn(mysqlPeer as SqlStore);
    const a = await apply(A);
    const b = await apply(B('[a.extract]'));
    for (let round = 0; round < 8; round++) {
      const aRun = await start(a, A_30 + round * 86_400_000);
      const ax = await latest(aRun, 'extract');
      const [, bRun] = await Promise.all([
        peerRuns.finish(ax, { from: ['WAITING'], attempt: 1 }, 'SUCCESS', { finishedAt: clock.now(), exitCode: 0 }),
        runs.startRun({
          workflowId: b,
          trigger: 'cron',
          triggeredBy: 'cron',
          logicalTime: B_30 + round * 86_400_000,
          applyOverlap: false,
        }),
      ]);
      expect((await latest(bRun?.id as number, 'load')).notBefore).not.toBe(HELD_FOR_UPSTREAM);
    }
  });
});
