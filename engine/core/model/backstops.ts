// The scheduler's judgement of instances a worker holds (design.md §7): pure, so every rule is tested
// with plain numbers. A worker is lost when its heartbeat (the fresher of the database's, which a
// Redis flush cannot take, and the live registration's, which is not queued behind the worker's
// other writes under load) is older than 3 × its interval; its instances then
// fail over. A live worker that no longer lists a running instance whose task heartbeat has gone
// stale (the probe) loses it too. Past timeout + 1.5 × the heartbeat interval nobody reported,
// the instance is TIMEOUT.
import { because, type Reason } from '../../api/reasons.ts';
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
export type Verdict = { to: 'WAITING' | 'FAILED' | 'TIMEOUT'; failover?: true } & Reason;

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
  // whole seconds, in ms (the reason's `seconds` argument)
  const silent = Number.isFinite(silentFor) ? Math.round(silentFor / 1000) * 1000 : undefined;

  if (inst.state === 'DISPATCHED') {
    if (workerLost)
      return {
        to: 'WAITING',
        ...(silent === undefined
          ? because('worker_unregistered_before_start', { worker: owner })
          : because('worker_lost_before_start', { worker: owner, silent })),
      };
    if (now - (inst.dispatchedAt ?? inst.createdAt) > config.redispatchAfterMs) {
      return {
        to: 'WAITING',
        ...because('redispatched', { worker: owner, after: config.redispatchAfterMs }),
      };
    }
    return undefined;
  }
  if (inst.state !== 'RUNNING') return undefined;
  if (workerLost)
    return {
      to: 'FAILED',
      ...(silent === undefined
        ? because('failover_worker_unregistered', { worker: owner })
        : because('failover_worker_lost', { worker: owner, silent })),
      failover: true,
    };
  const lastBeat = inst.heartbeatAt ?? inst.startedAt ?? inst.createdAt;
  if (now - lastBeat > taskLostAfterMs(config) && worker?.running && !worker.running.includes(inst.id)) {
    return {
      to: 'FAILED',
      ...because('failover_not_running', { worker: owner, age: Math.round((now - lastBeat) / 1000) * 1000 }),
      failover: true,
    };
  }
  if (
    timeoutMs !== undefined &&
    inst.startedAt !== undefined &&
    now - inst.startedAt > timeoutBackstopMs(timeoutMs, config)
  ) {
    return { to: 'TIMEOUT', ...because('timeout_unreported', { worker: owner }) };
  }
  return undefined;
}
