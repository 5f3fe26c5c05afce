// The seeds and messages the state machine's contracts (store-transitions, store-finish) share:
// a join x, y → z, a run of independent tasks, and the finishes a worker sends.
import type { InstanceRecord } from '../../engine/api/types.ts';
import type { Finish, InstanceDraft, Settlement, Store } from '../../engine/ports/store.ts';
import { createRun, graphOf, manualRun, T0, task, taskIds, workflow } from './store-fixtures.ts';
import type { Seeded } from './store-fixtures.ts';

export const draft = (seed: Seeded, name: string, extra: Partial<InstanceDraft> = {}): InstanceDraft => ({
  taskId: seed.tasks.get(name) ?? -1,
  taskName: name,
  attempt: 1,
  state: 'WAITING',
  notBefore: T0,
  ...extra,
});

/** x and y, then z after both: the join that two finishing upstreams race on. */
export async function seedJoin(
  store: Store,
  runState: 'RUNNING' | 'QUEUED' = 'RUNNING',
  only?: string,
  others: string[] = [],
): Promise<Seeded> {
  const name = others.length ? `join-${others.join('-')}` : 'join';
  const { workflowId } = await store.applyWorkflow(
    workflow(name, [task('x'), task('y'), task('z', ['x', 'y']), ...others.map((o) => task(o))]),
    T0,
  );
  const tasks = taskIds(await graphOf(store, workflowId));
  const run = await createRun(store, manualRun(workflowId, { state: runState, onlyTask: only }));
  if (!run) throw new Error('seed run was refused');
  return { workflowId, runId: run.id, tasks };
}

export function settlement(seed: Seeded, roots = ['x', 'y']): Settlement {
  return { taskCount: seed.tasks.size, queuedRoots: roots.map((r) => draft(seed, r)) };
}

/** The finish a worker sends when its RUNNING instance succeeds: z once x and y both have. */
export function success(seed: Seeded, inst: InstanceRecord): Finish {
  const other = inst.taskName === 'x' ? 'y' : 'x';
  return {
    id: inst.id,
    runId: inst.runId,
    guard: { from: ['RUNNING'], attempt: inst.attempt, workerId: inst.workerId },
    to: 'SUCCESS',
    outcome: { exitCode: 0, finishedAt: T0 + 10 },
    followUps: { advance: [{ draft: draft(seed, 'z'), needs: [seed.tasks.get(other) ?? -1] }] },
    settlement: settlement(seed),
  };
}

/** A run of n independent tasks t0…tn-1. */
export async function seedFlat(store: Store, n: number): Promise<Seeded> {
  const { workflowId } = await store.applyWorkflow(
    workflow(
      `flat-${n}-${Math.random().toString(36).slice(2, 8)}`,
      Array.from({ length: n }, (_, i) => task(`t${i}`)),
    ),
    T0,
  );
  const tasks = taskIds(await graphOf(store, workflowId));
  const run = await createRun(store, manualRun(workflowId));
  if (!run) throw new Error('seed run was refused');
  return { workflowId, runId: run.id, tasks };
}

/** A RUNNING instance's success, with nothing downstream. */
export function plainSuccess(seed: Seeded, inst: InstanceRecord): Finish {
  return { ...success(seed, inst), followUps: {}, settlement: { taskCount: seed.tasks.size, queuedRoots: [] } };
}

export const states = async (store: Store, runId: number): Promise<string[]> =>
  (await store.listInstances(runId)).map((i) => `${i.taskName}#${i.attempt}:${i.state}`).sort();
