// The reaction to one SUCCESS that other workflows wait for, event-driven, with 1,000
// workflows × 10 tasks (a chain each) whose first task waits for the last task of the workflow
// before it and for a task of a random earlier one. Every workflow has a run whose first task is
// held; then, one event at a time, a workflow's last task turns SUCCESS through the engine's
// whole step (RunManager.finish: outcome, release of the waiters it was the last wait of, settle
// check, one transaction). Against it: the same step for a task nobody in another workflow waits
// on (the cost the release adds), and one pass of the polling alternative — every held waiter's
// every upstream checked — which an engine without the event would run on every tick.
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { MemoryCoordinator } from '../engine/adapters/memory/memory-coordinator.ts';
import { openSqliteStore } from '../engine/adapters/sql/sqlite-store.ts';
import type { InstanceRecord, WorkflowSpec } from '../engine/api/types.ts';
import { systemClock } from '../engine/adapters/system-clock.ts';
import { nextTurn } from '../engine/hosts/node/host-defaults.ts';
import { RunManager } from '../engine/core/runs/run-manager.ts';
import { WorkflowCache } from '../engine/core/workflow/workflow-cache.ts';
import { HELD_FOR_UPSTREAM } from '../engine/ports/store.ts';
import {
  type BenchOptions,
  type BenchTable,
  fmt,
  median,
  percentile,
  removeDir,
  seededRandom,
  taskSpec,
  tempDir,
  timed,
} from './util.ts';

const TASKS = 10;
const name = (i: number) => `w${String(i).padStart(4, '0')}`;

function workflow(i: number, random: () => number): WorkflowSpec {
  const tasks = Array.from({ length: TASKS }, (_, k) => taskSpec(`t${k}`, 'true', k === 0 ? [] : [`t${k - 1}`]));
  const first = tasks[0] as (typeof tasks)[number];
  if (i > 0) {
    first.crossUpstream = [{ workflow: name(i - 1), task: `t${TASKS - 1}`, date: 'same_day' }];
    const other = Math.floor(random() * i);
    if (other !== i - 1) first.crossUpstream.push({ workflow: name(other), task: 't5', date: 'same_day' });
  }
  return { name: name(i), routing: 'round_robin', tasks };
}

export async function benchCrossRelease(options: BenchOptions): Promise<BenchTable> {
  const workflows = options.quick ? 100 : 1_000;
  const events = options.quick ? 10 : 50;
  const dir = tempDir('ax-bench-cross-');
  const store = await openSqliteStore(path.join(dir, 'ax.db'));
  try {
    const random = seededRandom(13);
    options.progress(`cross: applying ${workflows} workflows × ${TASKS} tasks`);
    const ids: number[] = [];
    const [, applyMs] = await timed(async () => {
      for (let i = 0; i < workflows; i++)
        ids.push((await store.applyWorkflow(workflow(i, random), Date.now())).workflowId);
    });
    const cache = new WorkflowCache(store, () => systemClock.now(), nextTurn, 60_000);
    const runs = new RunManager(store, new MemoryCoordinator(), cache, systemClock, () => undefined);
    const logicalTime = Date.now();
    options.progress(`cross: a run of each, first tasks held`);
    const runIds: number[] = [];
    const [, startMs] = await timed(async () => {
      for (const id of ids)
        runIds.push(
          (
            await runs.startRun({
              workflowId: id,
              trigger: 'manual',
              triggeredBy: 'bench',
              logicalTime,
              applyOverlap: false,
            })
          )?.id as number,
        );
    });
    const waits = await store.db
      .selectFrom('upstream_wait')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const held = (await store.instancesInStates(['WAITING'], 100_000)).filter(
      (i) => i.notBefore === HELD_FOR_UPSTREAM,
    ).length;

    // Events on workflows in a shuffled order, each with a last task and a middle task to finish.
    const order = Array.from({ length: workflows - 1 }, (_, i) => i)
      .sort(() => random() - 0.5)
      .slice(0, events);
    const make = async (k: number, task: string): Promise<InstanceRecord> => {
      const wf = await cache.get(ids[k] as number);
      const t = wf?.byName.get(task);
      const now = Date.now();
      const inst = await store.createInstance({
        runId: runIds[k] as number,
        workflowId: ids[k] as number,
        taskId: t?.id as number,
        taskName: task,
        attempt: 1,
        state: 'WAITING',
        notBefore: now,
        createdAt: now,
      });
      if (!inst) throw new Error(`bench: ${name(k)}.${task} not created`);
      return inst;
    };
    // Every t5 succeeds first (untimed): a waiter then waits only for the t9 before it, so each event releases one.
    options.progress(`cross: t5 of every workflow succeeds`);
    for (let k = 0; k < workflows; k++)
      await runs.finish(await make(k, 't5'), { from: ['WAITING'], attempt: 1 }, 'SUCCESS', { finishedAt: Date.now() });
    const release: number[] = [];
    const plain: number[] = [];
    const poll: number[] = [];
    let released = 0;
    options.progress(`cross: ${events} events`);
    for (const k of order) {
      for (const [task, into] of [
        [`t${TASKS - 1}`, release],
        ['t3', plain],
      ] as const) {
        const inst = await make(k, task);
        await cache.get(ids[k] as number);
        const before = (await store.instancesInStates(['WAITING'], 100_000)).filter(
          (i) => i.notBefore === HELD_FOR_UPSTREAM,
        ).length;
        const t0 = performance.now();
        if (!(await runs.finish(inst, { from: ['WAITING'], attempt: 1 }, 'SUCCESS', { finishedAt: Date.now() })))
          throw new Error('bench: finish refused');
        into.push(performance.now() - t0);
        if (into === release)
          released +=
            before -
            (await store.instancesInStates(['WAITING'], 100_000)).filter((i) => i.notBefore === HELD_FOR_UPSTREAM)
              .length;
      }
      // The polling alternative, once: every wait row, its upstream's runs in the window, their instances.
      const t0 = performance.now();
      const rows = await store.db.selectFrom('upstream_wait').selectAll().execute();
      for (const r of rows) {
        const up = await store.db
          .selectFrom('workflow')
          .select('id')
          .where('name', '=', r.upstream_workflow)
          .executeTakeFirst();
        if (!up) continue;
        const rs = await store.db
          .selectFrom('workflow_run')
          .select('id')
          .where('workflow_id', '=', up.id)
          .where('logical_time', '>=', r.window_from)
          .where('logical_time', '<', r.window_to)
          .execute();
        if (rs.length > 0)
          await store.db
            .selectFrom('task_instance')
            .select('id')
            .where(
              'run_id',
              'in',
              rs.map((x) => x.id),
            )
            .where('task_name', '=', r.upstream_task)
            .where('state', '=', 'SUCCESS')
            .execute();
      }
      poll.push(performance.now() - t0);
    }
    const cell = (v: number[]) => `${fmt(median(v))} / ${fmt(percentile(v, 0.95))}`;
    return {
      title: 'Reaction to one SUCCESS other workflows wait for (SQLite, ms: median / p95)',
      columns: [
        'workflows × tasks',
        'wait rows at start',
        'held waiters',
        'finish that releases',
        'finish, no waiter',
        'one poll of every wait',
        'poll ÷ release',
      ],
      rows: [
        [
          `${workflows} × ${TASKS}`,
          Number(waits.n),
          held,
          cell(release),
          cell(plain),
          cell(poll),
          `${fmt(median(poll) / median(release), 0)}×`,
        ],
      ],
      notes: [
        `${events} events; they released ${released} waiters (each the first task of the next workflow; every t5 had succeeded before, untimed)`,
        `applying the workflows took ${fmt(applyMs / 1000)} s, starting a run of each ${fmt(startMs / 1000)} s`,
        'finish = RunManager.finish, the whole step in one transaction: outcome, release (an indexed look-up of the waits on this task), settle check',
        'finish, no waiter = the same step for a middle task of a chain (it creates its local downstream instead)',
        'poll = what an engine without the event would do each tick: check every wait row against its upstream',
      ],
    };
  } finally {
    await store.close();
    removeDir(dir);
  }
}
