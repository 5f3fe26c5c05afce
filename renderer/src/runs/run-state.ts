// What the run view reads out of a run's instances: the latest attempt of each task, the task
// that failed first (the banner's), and what may be re-run or cancelled (the engine's own rules).
import type { InstanceRecord, InstanceState, RunState } from '../../../engine/api/types.ts';

const FAILED_STATES: readonly InstanceState[] = ['FAILED', 'TIMEOUT'];
/** the engine re-runs a task whose latest attempt ended in one of these (run-manager.rerun) */
const RERUNNABLE_STATES: readonly InstanceState[] = ['FAILED', 'TIMEOUT', 'CANCELLED'];
const ACTIVE_RUN_STATES: readonly RunState[] = ['QUEUED', 'RUNNING'];
/** not finished yet: its log may still grow */
const ACTIVE_INSTANCE_STATES: readonly InstanceState[] = ['WAITING', 'DISPATCHED', 'RUNNING'];

export const isRunActive = (state: RunState) => ACTIVE_RUN_STATES.includes(state);
export const isInstanceActive = (state: InstanceState) => ACTIVE_INSTANCE_STATES.includes(state);

/** Every attempt of every task, latest attempt per task name. */
export function latestAttempts(instances: readonly InstanceRecord[]): Map<string, InstanceRecord> {
  const out = new Map<string, InstanceRecord>();
  for (const inst of instances) {
    const seen = out.get(inst.taskName);
    if (!seen || inst.attempt > seen.attempt || (inst.attempt === seen.attempt && inst.id > seen.id))
      out.set(inst.taskName, inst);
  }
  return out;
}

/** The attempts of one task in a run, first attempt first. */
export function attemptsOf(instances: readonly InstanceRecord[], taskName: string): InstanceRecord[] {
  return instances.filter((i) => i.taskName === taskName).sort((a, b) => a.attempt - b.attempt || a.id - b.id);
}

/** The task that failed for good first (its latest attempt FAILED or TIMEOUT; earliest finish first). */
export function firstFailed(instances: readonly InstanceRecord[]): InstanceRecord | undefined {
  const byFinish = (a: InstanceRecord, b: InstanceRecord) =>
    (a.finishedAt ?? Infinity) - (b.finishedAt ?? Infinity) || a.id - b.id;
  return [...latestAttempts(instances).values()].filter((i) => FAILED_STATES.includes(i.state)).sort(byFinish)[0];
}

export function canRerun(instance: InstanceRecord, instances: readonly InstanceRecord[]): boolean {
  const latest = latestAttempts(instances).get(instance.taskName);
  return latest?.id === instance.id && RERUNNABLE_STATES.includes(instance.state);
}

/**
 * What "re-run failed tasks" would take up again: the tasks whose latest attempt failed for good
 * (FAILED, TIMEOUT) and those that never ran because of them (UPSTREAM_FAILED); the engine adds
 * their downstream.
 */
export function failedTasks(instances: readonly InstanceRecord[]): { failed: string[]; notRun: string[] } {
  const latest = [...latestAttempts(instances).values()];
  const names = (states: readonly InstanceState[]) =>
    latest
      .filter((i) => states.includes(i.state))
      .map((i) => i.taskName)
      .sort();
  return { failed: names(FAILED_STATES), notRun: names(['UPSTREAM_FAILED']) };
}
