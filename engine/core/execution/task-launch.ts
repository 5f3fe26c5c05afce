// What a task process starts with, and what its end means: the environment every task gets
// (design.md §5; AX_PARAM_<NAME> for each of its run's params), its secrets (resolved on this worker), its event payload (in the environment while
// small, else as a file), and the instance state and reason that follow from how the process ended.
import type { ReasonCode } from '../../api/reason-code.ts';
import { because, type Reason } from '../../api/reasons.ts';
import { paramEnvName, paramText } from '../../api/params.ts';
import { isSecretRef, secretValueProblem } from '../../api/secrets.ts';
import type { InstanceRecord, RunRecord } from '../../api/types.ts';
import type { SecretSource } from '../../ports/secrets.ts';
import type { ProcessExit } from '../../ports/process-runner.ts';
import type { Finish, TaskDefinition } from '../../ports/store.ts';
import { ENV_PAYLOAD_MAX_BYTES, payloadBytes, payloadNulProblem } from '../model/payload.ts';

export interface TaskLaunch {
  env: Record<string, string>;
  /** variables whose value is written to a private file, the variable naming the file */
  envFiles?: Record<string, string>;
  /** the secret values it was given, to be masked in its log */
  secretValues: string[];
  /** why it cannot start: a secret it refers to is not set on this worker */
  missing?: string;
}

export function taskLaunch(
  baseEnv: Record<string, string>,
  task: TaskDefinition,
  workflowName: string,
  inst: InstanceRecord,
  run: RunRecord | undefined,
  startedAt: number,
  secrets?: SecretSource,
  /** AX_OUTPUT_<TASK>_<KEY> of its upstreams (upstream-outputs.ts) */
  upstreamOutputs: Record<string, string> = {},
): TaskLaunch {
  const own: Record<string, string> = {};
  const secretValues: string[] = [];
  const missing: string[] = [];
  for (const [key, value] of Object.entries(task.env)) {
    if (!isSecretRef(value)) own[key] = value;
    else {
      let secret: string | undefined;
      try {
        secret = secrets?.get(value.secret);
      } catch (err) {
        // An unreadable secrets file fails this task with the reason, never the worker.
        missing.push(
          `secret "${value.secret}" (env ${key}) could not be read: ${err instanceof Error ? err.message : String(err)}`,
        );
        continue;
      }
      const nul = secret === undefined ? undefined : secretValueProblem(value.secret, secret);
      const unavailable = secret === undefined ? secrets?.unavailable?.(value.secret) : undefined;
      if (nul) missing.push(`${nul} (env ${key})`);
      else if (unavailable) missing.push(`secret "${value.secret}" (env ${key}): ${unavailable}`);
      else if (secret === undefined)
        missing.push(
          `secret "${value.secret}" (env ${key}) is not set on this worker: ${secrets?.howToSet(value.secret) ?? `run "ax secrets set ${value.secret}" on it`}`,
        );
      else {
        own[key] = secret;
        secretValues.push(secret);
      }
    }
  }
  // A payload stored before NULs were refused at every door cannot reach the environment either.
  const payloadNul = run?.eventPayload === undefined ? undefined : payloadNulProblem(run.eventPayload);
  if (payloadNul) missing.push(payloadNul);
  if (missing.length > 0) return { env: {}, secretValues: [], missing: missing.join('; ') };
  const env: Record<string, string> = {
    ...baseEnv,
    ...upstreamOutputs,
    ...own,
    AX_WORKFLOW: workflowName,
    AX_TASK: task.name,
    AX_RUN_ID: String(inst.runId),
    AX_INSTANCE_ID: String(inst.id),
    AX_ATTEMPT: String(inst.attempt),
    AX_LOGICAL_TIME: new Date(run?.logicalTime ?? startedAt).toISOString(),
    // the run's params, as variables only: never spliced into the command's text
    ...Object.fromEntries(Object.entries(run?.params ?? {}).map(([name, v]) => [paramEnvName(name), paramText(v)])),
  };
  // A large payload goes as a file: one environment string is capped (128 KiB on Linux).
  const payload = run?.eventPayload;
  if (payload === undefined) return { env, secretValues };
  if (payloadBytes(payload) <= ENV_PAYLOAD_MAX_BYTES)
    return { env: { ...env, AX_EVENT_PAYLOAD: payload }, secretValues };
  return { env, envFiles: { AX_EVENT_PAYLOAD_FILE: payload }, secretValues };
}

/** The state and reason of an instance whose process ended (or was stopped by the worker). */
export function taskOutcome(
  ended: { timedOut: boolean; stopReason?: Reason },
  exit: ProcessExit,
  timeoutMs: number | undefined,
): { state: Finish['to']; reason?: string; reasonCode?: ReasonCode; failedOver?: true } {
  if (ended.timedOut) return { state: 'TIMEOUT', ...because('timeout', { timeout: timeoutMs as number }) };
  if (ended.stopReason) return { state: 'FAILED', ...ended.stopReason };
  // The runner lost the process (its launcher died), not the task failing: a free re-run.
  if (exit.lost) return { state: 'FAILED', ...because('process_lost', { detail: exit.lost }), failedOver: true };
  if (exit.signal) return { state: 'FAILED', ...because('signal', { signal: exit.signal }) };
  return exit.code === 0
    ? { state: 'SUCCESS' }
    : { state: 'FAILED', ...because('exit', { code: exit.code as number }) };
}
