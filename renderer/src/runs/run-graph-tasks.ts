// The run's DAG as graph tasks: the workflow's tasks and edges (from its current definition),
// each with the state of its latest attempt in this run. A run of one task shows that task; a
// task the run has but the definition no longer has is still shown, without edges.
import type { InstanceRecord, RunRecord, WorkflowSpec } from '../../../engine/api/types.ts';
import type { GraphTask } from '../graph/index.ts';
import { latestAttempts } from './run-state.ts';

export function runGraphTasks(
  run: RunRecord,
  instances: readonly InstanceRecord[],
  spec: WorkflowSpec | undefined,
  duration: (ms: number) => string,
  now: number,
): GraphTask[] {
  const latest = latestAttempts(instances);
  const names = spec ? spec.tasks.map((t) => t.name) : [];
  const scope = run.onlyTask ? names.filter((n) => n === run.onlyTask) : names;
  for (const name of latest.keys()) if (!scope.includes(name)) scope.push(name);
  const upstream = new Map(spec?.tasks.map((t) => [t.name, t.upstream]) ?? []);
  const inScope = new Set(scope);
  return scope.map((name) => {
    const inst = latest.get(name);
    const task: GraphTask = { name, upstream: (upstream.get(name) ?? []).filter((u) => inScope.has(u)) };
    if (inst) {
      task.state = inst.state;
      if (inst.startedAt !== undefined) task.detail = duration((inst.finishedAt ?? now) - inst.startedAt);
      // held for an upstream in another workflow: say for what, where the duration would go
      else if (inst.state === 'WAITING' && inst.reason?.startsWith('waiting for ')) task.detail = inst.reason;
      if (inst.attempt > 1) task.stateNote = `#${inst.attempt}`;
    }
    return task;
  });
}
