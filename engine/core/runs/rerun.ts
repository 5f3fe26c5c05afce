// Re-running a task that failed for good, in the same run, with its downstream: the checks that
// say what may be re-run, and the one store step that makes the new attempt.
import { because } from '../../api/reasons.ts';
import { AxError } from '../../api/errors.ts';
import type { InstanceRecord, InstanceState } from '../../api/types.ts';
import type { Clock } from '../../ports/clock.ts';
import type { InstanceStore, RunStore } from '../../ports/store.ts';
import { downstreamClosure } from '../model/dag.ts';
import type { WorkflowCache } from '../workflow/workflow-cache.ts';
import { instanceDraft } from './follow-ups.ts';

export type RerunDeps = {
  store: RunStore & InstanceStore;
  workflows: WorkflowCache;
  clock: Clock;
  publishInstance(inst: InstanceRecord): Promise<void>;
  wakeDispatcher(): void;
};

/**
 * A new attempt of the task; the downstream's UPSTREAM_FAILED and SKIPPED instances (which never
 * ran) are removed so the downstream is decided again, by its rules, once the task ends. Returns the run's instances.
 */
export async function rerunTask(deps: RerunDeps, runId: number, taskName: string): Promise<InstanceRecord[]> {
  const { store, workflows, clock } = deps;
  const run = await store.getRun(runId);
  if (!run) throw new AxError('not_found', `no run #${runId}`);
  const wf = await workflows.get(run.workflowId);
  const task = wf?.byName.get(taskName);
  if (!wf || !task) throw new AxError('not_found', `run #${runId} has no task "${taskName}"`);
  const instances = await store.listInstances(runId);
  const mine = instances.filter((i) => i.taskId === task.id);
  const latest = mine[mine.length - 1];
  // UPSTREAM_FAILED too for a task that waited on another workflow: it waits again
  const rerunnable: InstanceState[] = [
    'FAILED',
    'TIMEOUT',
    'CANCELLED',
    ...(task.crossUpstream?.length ? (['UPSTREAM_FAILED'] as const) : []),
  ];
  if (!latest || !rerunnable.includes(latest.state)) {
    throw new AxError(
      'conflict',
      `task "${taskName}" of run #${runId} is ${latest?.state ?? 'not started'}: only a failed task can be re-run`,
    );
  }
  const down = new Set(downstreamClosure(task.id, wf.downstream));
  // Skipped ones too: their rule (or their when:) is judged again once the task ends.
  const markers = instances
    .filter((i) => down.has(i.taskId) && (i.state === 'UPSTREAM_FAILED' || i.state === 'SKIPPED'))
    .map((i) => i.id);
  const now = clock.now();
  // A task waiting on other workflows waits again (they may have been re-run meanwhile).
  const draft = task.crossUpstream?.length
    ? { ...instanceDraft(task, 1, now, 0, wf), attempt: latest.attempt + 1 }
    : instanceDraft(task, latest.attempt + 1, now);
  const result = await store.rerunTask(
    {
      runId,
      taskId: task.id,
      latest: { attempt: latest.attempt, from: rerunnable },
      markers,
      draft,
      ...because('rerun_task', { task: taskName }),
    },
    now,
  );
  if (!result.done)
    throw new AxError(
      'conflict',
      `task "${taskName}" of run #${runId} changed while it was being re-run: look at the run again`,
    );
  for (const next of result.created) await deps.publishInstance(next);
  deps.wakeDispatcher();
  return store.listInstances(runId);
}
