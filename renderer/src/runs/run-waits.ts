// What the run page makes of a run's cross-workflow waits (engine runWaits): the ghost nodes the
// graph draws for the other workflows' tasks, one per upstream with every task of this run that
// waits for it, and whether the run is only waiting (nothing of it runs: its header says so).
import type { RunWait } from '../../../engine/api/run-views.ts';
import type { InstanceRecord } from '../../../engine/api/types.ts';
import type { GhostTask } from '../graph/ghost-task.ts';
import { latestAttempts } from './run-state.ts';

/** One ghost per awaited upstream; `describe` gives a wait's full reason in the reader's language. */
export function ghostsFromWaits(waits: readonly RunWait[], describe: (wait: RunWait) => string): GhostTask[] {
  const byId = new Map<string, GhostTask>();
  for (const w of waits) {
    const id = `${w.upstreamWorkflow}.${w.upstreamTask}`;
    const seen = byId.get(id);
    if (seen) {
      if (!seen.waiting.includes(w.task)) seen.waiting.push(w.task);
      if (w.deadline !== undefined && (seen.deadline === undefined || w.deadline < seen.deadline))
        seen.deadline = w.deadline;
      continue;
    }
    byId.set(id, {
      id,
      workflow: w.upstreamWorkflow,
      task: w.upstreamTask,
      waiting: [w.task],
      reason: describe(w),
      ...(w.upstreamState && { state: w.upstreamState }),
      ...(w.upstreamRunState && { runState: w.upstreamRunState }),
      ...(w.upstreamRunId !== undefined && { runId: w.upstreamRunId }),
      ...(w.deadline !== undefined && { deadline: w.deadline }),
    });
  }
  return [...byId.values()];
}

/**
 * The run is active but none of its tasks is on a worker and some wait for another workflow:
 * "Running" would say something runs. The wait to name is the one that gives up first.
 */
export function onlyWaiting(instances: readonly InstanceRecord[], waits: readonly RunWait[]): RunWait | undefined {
  if (waits.length === 0) return undefined;
  const latest = [...latestAttempts(instances).values()];
  if (latest.some((i) => i.state === 'RUNNING' || i.state === 'DISPATCHED')) return undefined;
  return [...waits].sort((a, b) => (a.deadline ?? Infinity) - (b.deadline ?? Infinity))[0];
}
