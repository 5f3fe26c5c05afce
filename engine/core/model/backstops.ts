// The scheduler's judgement of instances a worker holds (design.md §7): pure, so every rule is tested
// with plain numbers. A worker is lost when its heartbeat (the fresher of the database's, which a
// Redis flush cannot take, and the live registration's, which is not queued behind the worker's
// other writes under load) is older than 3 × its interval; its instances then
// fail over. A live worker that no longer lists a running instance whose task heartbeat has gone
// stale (the probe) loses it too. Past timeout + 1.5 × the heartbeat interval nobody reported,
// the instance is TIMEOUT.
import type { InstanceRecord } from '../../api/types.ts';
import { type EngineConfig, taskLostAfterMs, timeoutBackstopMs, workerLostAfterMs } from './config.ts';

/** The reason of an instance failed over: its worker failed, not the task (marked by `failover`, not this text). */
export const FAILOVER_PREFIX = 'failed over:';

export interface WorkerView {
  /** last heartbeat the worker wrote to the store */
  lastHeartbeat: number;
  /** the instances its live registration says it runs; undefined when not known */
  running?: number[];
}

/** `failover`: the instance is lost with its worker, not failed by its task: it re-runs without spending a retry. */
export type Verdict = { to: 'WAITING' | 'FAILED' | 'TIMEOUT'; reason: string; failover?: true };

type BackstopConfig = Pick<
  EngineConfig,
  'workerHeartbeatMs' | 'taskHeartbeatMs' | 'heartbeatGraceFactor' | 'redispatchAfterMs'
>;

export function judgeActive(
  inst: InstanceRecord,
  worker: WorkerView | undefined,
  timeoutMs: number | undefined,
  now: number,
  config: BackstopConfig,
): Verdict | undefined {
  const owner = inst.workerId ?? '?';
  const silentFor = worker ? now - worker.lastHeartbeat : Infinity;
  const workerLost = silentFor > workerLostAfterMs(config);
  const silence = Number.isFinite(silentFor) ? `no heartbeat for ${Math.round(silentFor / 1000)}s` : 'never registered';

  if (inst.state === 'DISPATCHED') {
    if (workerLost)
      return { to: 'WAITING', reason: `worker ${owner} was lost (${silence}) before it started the task` };
    if (now - (inst.dispatchedAt ?? inst.createdAt) > config.redispatchAfterMs) {
      return {
        to: 'WAITING',
        reason: `worker ${owner} did not pick the task up within ${config.redispatchAfterMs / 1000}s: dispatched again`,
      };
    }
    return undefined;
  }
  if (inst.state !== 'RUNNING') return undefined;
  if (workerLost)
    return { to: 'FAILED', reason: `${FAILOVER_PREFIX} worker ${owner} lost (${silence})`, failover: true };
  const lastBeat = inst.heartbeatAt ?? inst.startedAt ?? inst.createdAt;
  if (now - lastBeat > taskLostAfterMs(config) && worker?.running && !worker.running.includes(inst.id)) {
    return {
      to: 'FAILED',
      reason: `${FAILOVER_PREFIX} worker ${owner} no longer runs it (task heartbeat ${Math.round((now - lastBeat) / 1000)}s old)`,
      failover: true,
    };
  }
  if (
    timeoutMs !== undefined &&
    inst.startedAt !== undefined &&
    now - inst.startedAt > timeoutBackstopMs(timeoutMs, config)
  ) {
    return { to: 'TIMEOUT', reason: `timed out: worker ${owner} did not report within the timeout + grace` };
  }
  return undefined;
}
