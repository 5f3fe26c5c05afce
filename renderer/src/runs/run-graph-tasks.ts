// The run's DAG as graph tasks: the workflow's tasks and edges (from its current definition),
// each with the state of its latest attempt in this run. A run of one task shows that task; a
// task the run has but the definition no longer has is still shown, without edges. A skipped
// task says why where the duration would go (and on hover); a call task links its child run; a
// task's rule, precondition and call are marked as in the designer.
import type { InstanceRecord, RunRecord, WorkflowSpec } from '../../../engine/api/types.ts';
import type { GraphTask } from '../graph/index.ts';
import { taskMarks } from '../graph/task-marks.ts';
import { latestAttempts } from './run-state.ts';

export function runGraphTasks(
  run: RunRecord,
  instances: readonly InstanceRecord[],
  spec: WorkflowSpec | undefined,
  duration: (ms: number) => string,
  now: number,
  /** the reason in the reader's language (useReasonText); the engine's English by default */
  reasonText: (inst: InstanceRecord) => string | undefined = (inst) => inst.reason,
): GraphTask[] {
  const latest = latestAttempts(instances);
  const names = spec ? spec.tasks.map((t) => t.name) : [];
  const scope = run.onlyTask ? names.filter((n) => n === run.onlyTask) : names;
  for (const name of latest.keys()) if (!scope.includes(name)) scope.push(name);
  const specs = new Map(spec?.tasks.map((t) => [t.name, t]) ?? []);
  const inScope = new Set(scope);
  return scope.map((name) => {
    const inst = latest.get(name);
    const def = specs.get(name);
    const task: GraphTask = {
      name,
      upstream: (def?.upstream ?? []).filter((u) => inScope.has(u)),
      ...(def && taskMarks(def)),
    };
    if (inst) {
      task.state = inst.state;
      const reason = reasonText(inst);
      if (reason) task.reason = reason;
      if (inst.childRunId !== undefined) task.childRunId = inst.childRunId;
      if (inst.startedAt !== undefined && inst.state !== 'SKIPPED')
        task.detail = duration((inst.finishedAt ?? now) - inst.startedAt);
      // held for an upstream in another workflow, or skipped: say why, where the duration would go
      // (the English test on `reason`: the code says "waiting for" whatever the reader's language)
      else if (inst.state === 'WAITING' && inst.reason?.startsWith('waiting for ') && reason) task.detail = reason;
      else if (inst.state === 'SKIPPED' && reason) task.detail = reason;
      if (inst.attempt > 1) task.stateNote = `#${inst.attempt}`;
    }
    return task;
  });
}
