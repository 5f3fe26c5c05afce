// How `ax runs RUN` shows sub-workflows: a child run names the run and task that called it, a
// call: task's instance its child run.
import type { EngineApi } from '../../api/engine-api.ts';
import type { InstanceRecord } from '../../api/types.ts';

/** A child run's link to its caller: "called by run #P (task T)". */
export async function calledBy(api: EngineApi, runId: number, instanceId: number | undefined): Promise<string> {
  const task = instanceId === undefined ? undefined : await api.getInstance(instanceId).catch(() => undefined);
  return `called by run #${runId}${task ? ` (task ${task.taskName})` : ''}`;
}

/** A call: task's reason column names its child run, unless the reason already does. */
export function withChild(i: InstanceRecord): string | undefined {
  if (i.childRunId === undefined) return i.reason;
  const link = `child run #${i.childRunId}`;
  return i.reason?.includes(link) ? i.reason : i.reason ? `${link}: ${i.reason}` : link;
}
