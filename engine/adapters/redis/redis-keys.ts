import { AxError } from '../../api/errors.ts';

/** The id the shared queue takes in key names, so no worker may use it. */
const SHARED = 'shared';

/**
 * Every key and channel the Redis coordinator touches, all under one prefix so several teams
 * (and parallel test files) can share a Redis. Nothing here is the truth: the Store is, and the
 * scheduler rebuilds queues and live state from it after these keys are lost.
 *
 *   <p>q:<worker>               list    a worker's queue of DispatchMessage JSON (FIFO: RPUSH, LMOVE LEFT)
 *   <p>q:shared                 list    the shared queue
 *   <p>inflight:<worker>        list    taken, not yet acked (what a dead worker left behind)
 *   <p>wake:<worker>            channel published by enqueue to that worker's queue
 *   <p>wake:shared              channel published by enqueue to the shared queue
 *   <p>ax_worker_<worker>       string  WorkerRecord JSON, PX = heartbeat TTL (SPEC §6's key name)
 *   <p>workers                  set     worker ids that may have a live key; pruned by listWorkers
 *   <p>taskbeat                 hash    instance id → TaskBeat JSON
 *   <p>startlock:<inst>:<att>   string  owner id of the coordinator holding it, PX = lock TTL
 *   <p>lease:<name>             string  "<token>|<holder>", PX = lease TTL
 *   <p>lease:<name>:token       string  highest fencing token issued for the lease
 *   <p>events                   channel EngineEvent JSON
 *   <p>drain:<worker>           string  set by `ax drain`; the worker drains when it sees it
 */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  queue(workerId: string | null): string {
    return `${this.prefix}q:${workerId === null ? SHARED : checkWorkerId(workerId)}`;
  }

  inFlight(workerId: string): string {
    return `${this.prefix}inflight:${checkWorkerId(workerId)}`;
  }

  wake(workerId: string | null): string {
    return `${this.wakePrefix}${workerId === null ? SHARED : checkWorkerId(workerId)}`;
  }

  get wakePrefix(): string {
    return `${this.prefix}wake:`;
  }

  /** Prefix of the worker registration keys; the Lua of listWorkers appends ids to it. */
  get workerKeyPrefix(): string {
    return `${this.prefix}ax_worker_`;
  }

  worker(workerId: string): string {
    return `${this.workerKeyPrefix}${workerId}`;
  }

  drain(workerId: string): string {
    return `${this.prefix}drain:${checkWorkerId(workerId)}`;
  }

  get workers(): string {
    return `${this.prefix}workers`;
  }

  get taskBeats(): string {
    return `${this.prefix}taskbeat`;
  }

  startLock(instanceId: number, attempt: number): string {
    return `${this.prefix}startlock:${instanceId}:${attempt}`;
  }

  lease(name: string): string {
    return `${this.prefix}lease:${name}`;
  }

  leaseToken(name: string): string {
    return `${this.prefix}lease:${name}:token`;
  }

  get events(): string {
    return `${this.prefix}events`;
  }
}

function checkWorkerId(workerId: string): string {
  if (workerId === SHARED) {
    throw new AxError('validation', `worker id "${SHARED}" is reserved in team mode (it names the shared queue's Redis key): give the worker another id`);
  }
  return workerId;
}
