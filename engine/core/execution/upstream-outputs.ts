// The outputs a starting task gets from its upstreams (issue 23 part 5), read from the store by
// its worker (so it works whichever node ran the upstream): those of its upstream tasks in the
// run, and those of its upstreams in other workflows (`orders.extract`) in the run its wait was
// matched to by logical date. As AX_OUTPUT_<TASK>_<KEY>; a same-run upstream wins a clash.
import type { RunRecord } from '../../api/types.ts';
import type { InstanceStore, UpstreamOutputsQuery } from '../../ports/store-instances.ts';
import type { TaskDefinition } from '../../ports/store.ts';
import { upstreamOutputEnv } from '../model/task-outputs.ts';
import { waitWindow } from '../workflow/cross-upstream.ts';
import type { CachedWorkflow } from '../workflow/workflow-cache.ts';

/** What to ask the store for; undefined when the task has no upstream that can have outputs. */
export function upstreamOutputsQuery(
  task: TaskDefinition,
  wf: CachedWorkflow,
  run: Pick<RunRecord, 'id' | 'logicalTime'>,
): UpstreamOutputsQuery | undefined {
  const tasks = (wf.upstream.get(task.id) ?? []).flatMap((id) => wf.tasks.get(id)?.name ?? []);
  const tz = wf.graph.schedule?.timezone ?? 'UTC';
  // A whole workflow (`orders.*`) names no task, so no outputs.
  const cross = (task.crossUpstream ?? []).flatMap((u) => {
    if (u.task === undefined) return [];
    const w = waitWindow(u.date, run.logicalTime, tz);
    return [
      {
        workflow: u.workflow,
        task: u.task,
        window: w ? { from: w.from, to: w.to } : { latestAtOrBefore: run.logicalTime },
      },
    ];
  });
  if (tasks.length === 0 && cross.length === 0) return undefined;
  return { runId: run.id, tasks, cross };
}

/** The AX_OUTPUT_<TASK>_<KEY> variables of a starting task. */
export async function upstreamOutputVariables(
  store: Pick<InstanceStore, 'upstreamOutputs'>,
  task: TaskDefinition,
  wf: CachedWorkflow | undefined,
  run: Pick<RunRecord, 'id' | 'logicalTime'> | undefined,
): Promise<Record<string, string>> {
  const query = wf && run && upstreamOutputsQuery(task, wf, run);
  if (!query) return {};
  const got = await store.upstreamOutputs(query);
  return upstreamOutputEnv(got.sameRun, got.otherWorkflows);
}
