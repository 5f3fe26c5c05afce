// Store contract, part 2: runs and the compare-and-set writes on instances (their fencing, and
// idempotent cron fires).
import { describe, expect, it } from 'vitest';
import {
  addInstance,
  createRun,
  graphOf,
  hourly,
  manualRun,
  move,
  mustGet,
  runOn,
  seedRun,
  T0,
  task,
  workflow,
} from './store-fixtures.ts';
import type { StoreGetter } from './store-fixtures.ts';

export function runsContract(store: StoreGetter): void {
  describe('createRun', () => {
    it('returns the stored run with its workflow name', async () => {
      const { workflowId } = await store().applyWorkflow(workflow('etl', [task('a')]), T0);
      const run = await createRun(
        store(),
        manualRun(workflowId, {
          state: 'QUEUED',
          trigger: 'event',
          triggeredBy: 'event:files.arrived',
          onlyTask: 'a',
          eventPayload: '{"n":1}',
          reason: 'why',
        }),
      );
      expect(run).toMatchObject({
        workflowId,
        workflowName: 'etl',
        state: 'QUEUED',
        trigger: 'event',
        triggeredBy: 'event:files.arrived',
        logicalTime: T0,
        onlyTask: 'a',
        eventPayload: '{"n":1}',
        reason: 'why',
        createdAt: T0,
      });
      expect(run?.scheduleId).toBeUndefined();
      expect(await store().getRun(run?.id ?? -1)).toEqual(run);
      expect(await store().getRun((run?.id ?? 0) + 1000)).toBeUndefined();
    });

    it('makes at most one run per (schedule, fire time): the idempotent cron fire', async () => {
      const etl = await store().applyWorkflow(workflow('etl', [task('a')], { schedule: hourly }), T0);
      const other = await store().applyWorkflow(workflow('other', [task('a')], { schedule: hourly }), T0);
      const scheduleId = (await graphOf(store(), etl.workflowId)).schedule?.id ?? -1;
      const otherScheduleId = (await graphOf(store(), other.workflowId)).schedule?.id ?? -1;
      const fire = { trigger: 'cron' as const, triggeredBy: 'scheduler', logicalTime: T0 + 3_600_000, scheduleId };

      const first = await createRun(store(), manualRun(etl.workflowId, fire));
      expect(first).toMatchObject({ scheduleId, trigger: 'cron', logicalTime: T0 + 3_600_000 });
      expect(
        await createRun(store(), manualRun(etl.workflowId, { ...fire, triggeredBy: 'scheduler-2' })),
      ).toBeUndefined();
      expect(
        await createRun(store(), manualRun(etl.workflowId, { ...fire, logicalTime: T0 + 7_200_000 })),
      ).toBeDefined();
      expect(
        await createRun(store(), manualRun(other.workflowId, { ...fire, scheduleId: otherScheduleId })),
      ).toBeDefined();
      expect(await store().listRuns({ workflowName: 'etl' })).toHaveLength(2);
    });

    it("keeps a run's params (typed) and its downstream flag; the workflow's params come with its graph", async () => {
      const params = [
        { name: 'region', type: 'enum' as const, required: false, choices: ['eu', 'us'], default: 'eu' },
        { name: 'limit', type: 'number' as const, required: true, min: 1 },
      ];
      const { workflowId } = await store().applyWorkflow(workflow('etl', [task('a')], { params }), T0);
      expect((await graphOf(store(), workflowId)).params).toEqual(params);
      const values = { region: 'us', limit: 2.5, dry_run: false, note: 'ünïcode "quoted"' };
      const run = await createRun(
        store(),
        manualRun(workflowId, { params: values, onlyTask: 'a', withDownstream: true }),
      );
      expect(run).toMatchObject({ params: values, onlyTask: 'a', withDownstream: true });
      expect(await store().getRun(run?.id ?? -1)).toEqual(run);
      expect((await store().listRuns({ workflowName: 'etl' }))[0]?.params).toEqual(values);
      // none given: no params on the run, and a run of one task alone is no downstream run
      const plain = await createRun(store(), manualRun(workflowId, { onlyTask: 'a' }));
      expect(plain?.params).toBeUndefined();
      expect(plain?.withDownstream).toBeUndefined();
      // a workflow applied without params has none on its graph
      const other = await store().applyWorkflow(workflow('other', [task('a')]), T0);
      expect((await graphOf(store(), other.workflowId)).params).toBeUndefined();
    });

    it('lets any number of manual runs share a logical time', async () => {
      const { workflowId } = await store().applyWorkflow(workflow('etl', [task('a')], { schedule: hourly }), T0);
      const made = [];
      for (let i = 0; i < 4; i++)
        made.push(await createRun(store(), manualRun(workflowId, { logicalTime: T0 + 3_600_000 })));
      expect(made.every((r) => r !== undefined)).toBe(true);
      expect(new Set(made.map((r) => r?.id)).size).toBe(4);
    });
  });

  describe('listRuns', () => {
    it('filters by workflow, state and limit, newest first', async () => {
      const etl = await store().applyWorkflow(workflow('etl', [task('a')]), T0);
      const other = await store().applyWorkflow(workflow('other', [task('a')]), T0);
      const states = ['SUCCESS', 'FAILED', 'SUCCESS', 'RUNNING'] as const;
      const ids: number[] = [];
      for (const [i, state] of states.entries()) {
        const run = await createRun(store(), manualRun(etl.workflowId, { state, logicalTime: T0 + i }));
        ids.push(run?.id ?? -1);
        await createRun(store(), manualRun(other.workflowId, { state, logicalTime: T0 + i }));
      }
      const etlRuns = await store().listRuns({ workflowName: 'etl' });
      expect(etlRuns.map((r) => r.id)).toEqual([...ids].reverse());
      expect(etlRuns.every((r) => r.workflowName === 'etl')).toBe(true);
      expect((await store().listRuns({ workflowName: 'etl', states: ['SUCCESS'] })).map((r) => r.id)).toEqual([
        ids[2],
        ids[0],
      ]);
      expect((await store().listRuns({ workflowName: 'etl', states: ['FAILED', 'RUNNING'] })).map((r) => r.id)).toEqual(
        [ids[3], ids[1]],
      );
      expect((await store().listRuns({ workflowName: 'etl', limit: 2 })).map((r) => r.id)).toEqual([ids[3], ids[2]]);
      expect(await store().listRuns({})).toHaveLength(8);
      expect(await store().listRuns({ states: ['SUCCESS'] })).toHaveLength(4);
      expect(await store().listRuns({ workflowName: 'nope' })).toEqual([]);
      // a keyset page and a set of ids (the UI's history paging and the dashboard's failed runs)
      expect((await store().listRuns({ workflowName: 'etl', beforeId: ids[2] })).map((r) => r.id)).toEqual([
        ids[1],
        ids[0],
      ]);
      expect((await store().listRuns({ ids: [ids[3] as number, ids[0] as number] })).map((r) => r.id)).toEqual([
        ids[3],
        ids[0],
      ]);
      expect(await store().listRuns({ ids: [] })).toEqual([]);
      // counted from the state index, for the metrics
      expect(await store().countRuns(['SUCCESS'])).toBe(4);
      expect(await store().countRuns(['RUNNING', 'FAILED'])).toBe(4);
      expect(await store().countRuns(['QUEUED'])).toBe(0);
    });
  });

  describe('createInstance', () => {
    it('returns the stored instance and refuses a duplicate (run, task, attempt)', async () => {
      const seed = await seedRun(store());
      const first = await addInstance(store(), seed, 'a', { notBefore: T0 + 5, reason: 'ready' });
      expect(first).toMatchObject({
        runId: seed.runId,
        workflowId: seed.workflowId,
        taskId: seed.tasks.get('a'),
        taskName: 'a',
        attempt: 1,
        state: 'WAITING',
        notBefore: T0 + 5,
        createdAt: T0,
        reason: 'ready',
        handled: false,
      });
      expect(first.workerId).toBeUndefined();
      expect(await store().getInstance(first.id)).toEqual(first);

      expect(
        await store().createInstance({
          runId: seed.runId,
          workflowId: seed.workflowId,
          taskId: first.taskId,
          taskName: 'a',
          attempt: 1,
          state: 'WAITING',
          notBefore: T0,
          createdAt: T0 + 1,
        }),
      ).toBeUndefined();
      const retry = await addInstance(store(), seed, 'a', { attempt: 2 });
      expect(retry.id).not.toBe(first.id);
      expect((await store().listInstances(seed.runId)).map((i) => i.id)).toEqual([first.id, retry.id]);
    });

    it('creates an already-final instance as handled when told', async () => {
      const seed = await seedRun(store());
      const skipped = await addInstance(store(), seed, 'b', {
        state: 'UPSTREAM_FAILED',
        handled: true,
        reason: 'a failed',
      });
      expect(skipped).toMatchObject({ state: 'UPSTREAM_FAILED', handled: true });
      expect(await store().unhandledFinished(10)).toEqual([]);
    });
  });

  describe('the single-instance writes', () => {
    it('markRunning and recordPid move a DISPATCHED instance on when state, attempt and owner match', async () => {
      const seed = await seedRun(store());
      const inst = await move(store(), await addInstance(store(), seed, 'a'), 'DISPATCHED', {
        workerId: 'w1',
        dispatchedAt: T0 + 1,
      });
      const guard = { from: ['DISPATCHED' as const], attempt: 1, workerId: 'w1' };
      expect(await store().markRunning(inst.id, guard, T0 + 2)).toBe(true);
      expect(await store().recordPid(inst.id, { ...guard, from: ['RUNNING'] }, 777)).toBe(true);
      expect(await mustGet(store(), inst.id)).toMatchObject({
        state: 'RUNNING',
        workerId: 'w1',
        pid: 777,
        dispatchedAt: T0 + 1,
        startedAt: T0 + 2,
        heartbeatAt: T0 + 2,
      });
    });

    it('writes asked for together (one group commit): each answered by its own guard, a refused one taking none of the others with it', async () => {
      const seed = await seedRun(store());
      const all: Awaited<ReturnType<typeof move>>[] = [];
      for (const name of ['a', 'b', 'c'])
        for (const attempt of [1, 2])
          all.push(
            await move(store(), await addInstance(store(), seed, name, { attempt }), 'DISPATCHED', {
              workerId: 'w1',
              dispatchedAt: T0 + 1,
            }),
          );
      const guard = (i: Awaited<ReturnType<typeof move>>, from: 'DISPATCHED' | 'RUNNING', workerId = 'w1') => ({
        from: [from],
        attempt: i.attempt,
        workerId,
      });
      // All in one turn; the fourth names a stale attempt, so it alone is refused.
      const started = await Promise.all(
        all.map((i, n) =>
          store().markRunning(
            i.id,
            n === 3 ? { ...guard(i, 'DISPATCHED'), attempt: 9 } : guard(i, 'DISPATCHED'),
            T0 + 2,
          ),
        ),
      );
      expect(started).toEqual([true, true, true, false, true, true]);
      // The pids, in one turn with a missing instance and a wrong owner among them.
      const pids = await Promise.all([
        ...all.map((i, n) => store().recordPid(i.id, guard(i, 'RUNNING', n === 0 ? 'w2' : 'w1'), 100 + n)),
        store().recordPid(all[5]!.id + 1000, { from: ['RUNNING'], attempt: 1 }, 1),
      ]);
      expect(pids).toEqual([false, true, true, false, true, true, false]);
      const after = await Promise.all(all.map((i) => mustGet(store(), i.id)));
      expect(after.map((i) => [i.state, i.pid ?? null, i.startedAt ?? null])).toEqual([
        ['RUNNING', null, T0 + 2],
        ['RUNNING', 101, T0 + 2],
        ['RUNNING', 102, T0 + 2],
        ['DISPATCHED', null, null],
        ['RUNNING', 104, T0 + 2],
        ['RUNNING', 105, T0 + 2],
      ]);
    });

    it('getInstance asked for several at once (one query): each caller its own, the same id twice, a missing one undefined', async () => {
      const seed = await seedRun(store());
      const a = await runOn(store(), await addInstance(store(), seed, 'a'), 'w1');
      const launch = { command: 'true', cwd: '/tmp', env: { AX_TASK: 'a' } };
      expect(await store().recordPid(a.id, { from: ['RUNNING'], attempt: 1, workerId: 'w1' }, 4242, launch)).toBe(true);
      const b = await addInstance(store(), seed, 'b');
      const read = await Promise.all([a.id, b.id, a.id + b.id + 1000, b.id].map((id) => store().getInstance(id)));
      expect(read).toEqual([{ ...a, launch }, b, undefined, b]);
    });

    it('refuses a wrong state, a wrong attempt, a wrong owner and a missing instance, changing nothing', async () => {
      const seed = await seedRun(store());
      const running = await runOn(store(), await addInstance(store(), seed, 'a'), 'w1');
      expect(await store().markRunning(running.id, { from: ['DISPATCHED'], attempt: 1, workerId: 'w1' }, T0 + 99)).toBe(
        false,
      );
      expect(await store().recordPid(running.id, { from: ['RUNNING'], attempt: 2, workerId: 'w1' }, 1)).toBe(false);
      expect(await store().recordPid(running.id, { from: ['RUNNING'], attempt: 1, workerId: 'w2' }, 1)).toBe(false);
      expect(
        await store().requeueInstance(running.id, { from: ['DISPATCHED'], attempt: 1, workerId: 'w1' }, 'stale'),
      ).toBe(false);
      expect(await store().setWaitingReason(running.id, 1, 'waiting: stale')).toBe(false);
      expect(await store().recordPid(running.id + 1000, { from: ['RUNNING'], attempt: 1 }, 1)).toBe(false);
      expect(await mustGet(store(), running.id)).toEqual(running);
    });

    it('an owner guard refuses an instance that has no owner yet', async () => {
      const seed = await seedRun(store());
      const waiting = await addInstance(store(), seed, 'a');
      expect(await store().markRunning(waiting.id, { from: ['WAITING'], attempt: 1, workerId: 'w1' }, T0)).toBe(false);
      expect((await mustGet(store(), waiting.id)).state).toBe('WAITING');
    });

    it('recordPid without a pid is a pure ownership check', async () => {
      const seed = await seedRun(store());
      const running = await runOn(store(), await addInstance(store(), seed, 'a'), 'w1');
      const guard = { from: ['RUNNING' as const], attempt: 1, workerId: 'w1' };
      expect(await store().recordPid(running.id, guard, undefined)).toBe(true);
      expect(await store().recordPid(running.id, { ...guard, workerId: 'w2' }, undefined)).toBe(false);
      expect(await mustGet(store(), running.id)).toEqual(running);
    });

    it('recordPid keeps what the attempt ran for getInstance, not for lists', async () => {
      const seed = await seedRun(store());
      const running = await runOn(store(), await addInstance(store(), seed, 'a'), 'w1');
      const launch = { command: 'echo "é ${HOME}"', cwd: '/srv/etl', env: { AX_TASK: 'a', TOKEN: '***' } };
      const guard = { from: ['RUNNING' as const], attempt: 1, workerId: 'w1' };
      expect(await store().recordPid(running.id, guard, 4242, launch)).toBe(true);
      expect(await mustGet(store(), running.id)).toEqual({ ...running, pid: 4242, launch });
      const listed = (await store().listInstances(running.runId)).find((i) => i.id === running.id);
      expect(listed).toEqual({ ...running, pid: 4242 });
    });

    it('requeueInstance sends a DISPATCHED instance back to WAITING with why', async () => {
      const seed = await seedRun(store());
      const inst = await move(store(), await addInstance(store(), seed, 'a'), 'DISPATCHED', {
        workerId: 'w1',
        dispatchedAt: T0,
      });
      expect(
        await store().requeueInstance(
          inst.id,
          { from: ['DISPATCHED'], attempt: 1, workerId: 'w1' },
          'worker w1 does not accept this task',
        ),
      ).toBe(true);
      expect(await mustGet(store(), inst.id)).toMatchObject({
        state: 'WAITING',
        reason: 'worker w1 does not accept this task',
      });
      expect((await store().dueWaiting(T0, 10)).map((i) => i.id)).toEqual([inst.id]);
    });

    it('a late write after a newer transition cannot move the instance backwards', async () => {
      const seed = await seedRun(store());
      const running = await runOn(store(), await addInstance(store(), seed, 'a'), 'w1');
      const done = await move(store(), running, 'SUCCESS', { exitCode: 0, finishedAt: T0 + 10 });
      // A duplicate "started" message arrives after the finish.
      expect(await store().markRunning(running.id, { from: ['DISPATCHED'], attempt: 1, workerId: 'w1' }, T0 + 30)).toBe(
        false,
      );
      expect(await store().recordPid(running.id, { from: ['RUNNING'], attempt: 1, workerId: 'w1' }, 99)).toBe(false);
      expect(await mustGet(store(), running.id)).toEqual(done);
    });

    it('a worker whose claim was taken over is fenced off', async () => {
      const seed = await seedRun(store());
      const running = await runOn(store(), await addInstance(store(), seed, 'a'), 'w1');
      // w1 was declared lost: the scheduler fails the attempt and a retry goes to w2.
      await move(store(), running, 'FAILED', { reason: 'worker w1 lost', finishedAt: T0 + 100 });
      const retry = await runOn(store(), await addInstance(store(), seed, 'a', { attempt: 2 }), 'w2');
      expect(await store().recordPid(running.id, { from: ['RUNNING'], attempt: 1, workerId: 'w1' }, 1)).toBe(false);
      expect(await store().recordPid(retry.id, { from: ['RUNNING'], attempt: 1, workerId: 'w1' }, 1)).toBe(false);
      expect(await store().recordPid(retry.id, { from: ['RUNNING'], attempt: 2, workerId: 'w1' }, 1)).toBe(false);
      expect(await mustGet(store(), retry.id)).toEqual(retry);
      expect((await mustGet(store(), running.id)).state).toBe('FAILED');
    });
  });
}
