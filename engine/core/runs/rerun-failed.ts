// Re-running the failed tasks of a run that has ended (issue 23 part 7), in the same run: every
// task whose latest attempt ended FAILED, TIMEOUT or UPSTREAM_FAILED, and the whole downstream
// of those (so a SKIPPED or CANCELLED task after a failure, or a cleanup that ran anyway, is
// decided again). The roots of that set (no upstream in it) get a new attempt; the rest of it is
// cleared and comes again as the roots succeed (or fails again with them). One store step.
import { because } from '../../api/reasons.ts';
import { AxError } from '../../api/errors.ts';
import type { InstanceRecord, InstanceState, RunState } from '../../api/types.ts';
import type { InstanceDraft, TaskDefinition } from '../../ports/store.ts';
import { downstreamClosure } from '../model/dag.ts';
import type { CachedWorkflow } from '../workflow/workflow-cache.ts';
import { instanceDraft } from './follow-ups.ts';
import type { RerunDeps } from './rerun.ts';

/** the latest attempts that make a task one to re-run */
export const RERUN_FAILED_STATES: InstanceState[] = ['FAILED', 'TIMEOUT', 'UPSTREAM_FAILED'];
const ACTIVE_RUN: RunState[] = ['QUEUED', 'RUNNING'];

/** What a re-run of the failed tasks does to a run: pure, from the run's instances and graph. */
export interface FailedRerunPlan {
  /** root tasks with their latest attempt: each gets a new one */
  roots: { task: TaskDefinition; latest: InstanceRecord }[];
  /** instances of the rest of the set, removed: they are decided again */
  cleared: InstanceRecord[];
  /** every task of the set, by name, roots first */
  tasks: string[];
}

/** The plan, or the reason there is nothing to re-run (a clear sentence for the user). */
export function planFailedRerun(
  runId: number,
  onlyTask: string | undefined,
  instances: InstanceRecord[],
  wf: CachedWorkflow,
): FailedRerunPlan | { refused: string } {
  const latest = new Map<number, InstanceRecord>();
  for (const i of instances) if ((latest.get(i.taskId)?.attempt ?? 0) < i.attempt) latest.set(i.taskId, i);
  const seeds = [...latest.values()].filter((i) => RERUN_FAILED_STATES.includes(i.state) && wf.tasks.has(i.taskId));
  if (seeds.length === 0) return { refused: `run #${runId} has no failed task: nothing to re-run` };
  // A run of one task never had its downstream: only that task runs again.
  const set = new Set<number>(seeds.map((s) => s.taskId));
  if (onlyTask === undefined)
    for (const s of seeds) for (const id of downstreamClosure(s.taskId, wf.downstream)) set.add(id);
  const roots: FailedRerunPlan['roots'] = [];
  const cleared: InstanceRecord[] = [];
  for (const id of set) {
    const task = wf.tasks.get(id) as TaskDefinition;
    const ups = onlyTask === undefined ? (wf.upstream.get(id) ?? []) : [];
    if (ups.some((u) => set.has(u))) {
      cleared.push(...instances.filter((i) => i.taskId === id));
      continue;
    }
    for (const u of ups) {
      const up = latest.get(u);
      if (up?.state !== 'SUCCESS')
        return {
          refused: `task "${task.name}" of run #${runId} cannot run again: its upstream "${wf.tasks.get(u)?.name ?? u}" ${up ? `is ${up.state}` : 'never ran'}, not SUCCESS`,
        };
    }
    roots.push({ task, latest: latest.get(id) as InstanceRecord });
  }
  roots.sort((a, b) => a.latest.id - b.latest.id);
  const names = [...set].map((id) => (wf.tasks.get(id) as TaskDefinition).name);
  const rootNames = roots.map((r) => r.task.name);
  return { roots, cleared, tasks: [...rootNames, ...names.filter((n) => !rootNames.includes(n))] };
}

/** Runs the failed tasks of an ended run again, with their downstream; returns the run's instances. */
export async function rerunFailedTasks(deps: RerunDeps, runId: number): Promise<InstanceRecord[]> {
  const { store, workflows, clock } = deps;
  const run = await store.getRun(runId);
  if (!run) throw new AxError('not_found', `no run #${runId}`);
  if (ACTIVE_RUN.includes(run.state))
    throw new AxError(
      'conflict',
      `run #${runId} is still ${run.state}: its failed tasks can be re-run once it has ended (wait for it, or "ax cancel ${runId}")`,
    );
  const wf = await workflows.get(run.workflowId);
  if (!wf) throw new AxError('not_found', `the workflow of run #${runId} is gone`);
  const plan = planFailedRerun(runId, run.onlyTask, await store.listInstances(runId), wf);
  if ('refused' in plan) throw new AxError('conflict', plan.refused);
  const now = clock.now();
  const drafts: InstanceDraft[] = plan.roots.map(({ task, latest }) =>
    // A task waiting on other workflows waits again (they may have been re-run meanwhile).
    task.crossUpstream?.length
      ? { ...instanceDraft(task, 1, now, 0, wf), attempt: latest.attempt + 1 }
      : instanceDraft(task, latest.attempt + 1, now),
  );
  const result = await store.rerunFailed(
    {
      runId,
      runState: run.state,
      roots: plan.roots.map(({ task, latest }) => ({ taskId: task.id, attempt: latest.attempt, state: latest.state })),
      cleared: plan.cleared.map((i) => i.id),
      drafts,
      ...because('rerun_failed', { tasks: plan.tasks.join(', ') }),
    },
    now,
  );
  if (!result.done)
    throw new AxError('conflict', `run #${runId} changed while its failed tasks were being re-run: look at it again`);
  for (const next of result.created) await deps.publishInstance(next);
  deps.wakeDispatcher();
  return store.listInstances(runId);
}
