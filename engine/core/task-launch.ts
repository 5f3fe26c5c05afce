// What a task process starts with, and what its end means: the environment every task gets
// (SPEC §5), its event payload (in the environment while small, else as a file), and the
// instance state and reason that follow from how the process ended.
import type { InstanceRecord, RunRecord } from '../api/types.ts';
import type { ProcessExit } from '../ports/process-runner.ts';
import type { Finish, TaskDefinition } from '../ports/store.ts';
import { FAILOVER_PREFIX } from './backstops.ts';
import { formatDuration } from './duration.ts';
import { ENV_PAYLOAD_MAX_BYTES, payloadBytes } from './payload.ts';

export interface TaskLaunch {
  env: Record<string, string>;
  /** variables whose value is written to a private file, the variable naming the file */
  envFiles?: Record<string, string>;
}

export function taskLaunch(
  baseEnv: Record<string, string>,
  task: TaskDefinition,
  workflowName: string,
  inst: InstanceRecord,
  run: RunRecord | undefined,
  startedAt: number,
): TaskLaunch {
  const env: Record<string, string> = {
    ...baseEnv,
    ...task.env,
    AX_WORKFLOW: workflowName,
    AX_TASK: task.name,
    AX_RUN_ID: String(inst.runId),
    AX_INSTANCE_ID: String(inst.id),
    AX_ATTEMPT: String(inst.attempt),
    AX_LOGICAL_TIME: new Date(run?.logicalTime ?? startedAt).toISOString(),
  };
  // A large payload goes as a file: one environment string is capped (128 KiB on Linux).
  const payload = run?.eventPayload;
  if (payload === undefined) return { env };
  if (payloadBytes(payload) <= ENV_PAYLOAD_MAX_BYTES) return { env: { ...env, AX_EVENT_PAYLOAD: payload } };
  return { env, envFiles: { AX_EVENT_PAYLOAD_FILE: payload } };
}

/** The state and reason of an instance whose process ended (or was stopped by the worker). */
export function taskOutcome(
  ended: { timedOut: boolean; stopReason?: string },
  exit: ProcessExit,
  timeoutMs: number | undefined,
): { state: Finish['to']; reason?: string; failedOver?: true } {
  if (ended.timedOut) return { state: 'TIMEOUT', reason: `timed out after ${formatDuration(timeoutMs as number)}` };
  if (ended.stopReason) return { state: 'FAILED', reason: ended.stopReason };
  // The runner lost the process (its launcher died), not the task failing: a free re-run.
  if (exit.lost) return { state: 'FAILED', reason: `${FAILOVER_PREFIX} ${exit.lost}`, failedOver: true };
  if (exit.signal) return { state: 'FAILED', reason: `killed by ${exit.signal}` };
  return exit.code === 0 ? { state: 'SUCCESS' } : { state: 'FAILED', reason: `exit code ${exit.code}` };
}
