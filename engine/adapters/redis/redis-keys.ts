import { AxError } from '../../api/errors.ts';

/**
 * Every key and channel the Redis coordinator touches, all under one prefix so several teams
 * (and parallel test files) can share a Redis. Nothing here is the truth: the Store is, and the
 * scheduler rebuilds queues and live state from it after these keys are lost.
 *
 *   <p>q:<worker>               list    a worker's queue of DispatchMessage JSON (FIFO: RPUSH, LMOVE LEFT)
 *   <p>inflight:<worker>        list    taken, not yet acked (read by no engine code: a lost dispatch is redispatched from the Store)
 *   <p>wake:<worker>            channel published by enqueue to that worker's queue
 *   <p>ax_worker_<worker>       string  WorkerRecord JSON, PX = heartbeat TTL (design.md §6's key name)
 *   <p>worker_claim:<worker>    string  the claim token of the process holding the id, same TTL
 *   <p>workers                  set     worker ids that may have a live key; pruned by listWorkers
 *   <p>node:<node>              string  NodePresence JSON of a scheduler node, PX = its TTL
 *   <p>nodes                    set     node ids that may have a live key; pruned by listNodes
 *   <p>startlock:<inst>:<att>   string  owner id of the coordinator holding it, PX = lock TTL
 *   <p>lease:<name>             string  "<token>|<holder>", PX = lease TTL
 *   <p>lease:<name>:token       string  highest fencing token issued for the lease
 *   <p>events                   channel { origin, event } JSON: the EngineEvent and the coordinator that published it
 *   <p>drain:<worker>           string  set by `ax drain`; the worker drains when it sees it
 *
 * On a Redis Cluster <p> is the prefix as a hash tag (clusterPrefix: "ax:" becomes "{ax}:"), so
 * every key of a team hashes to one slot and each Lua script and MULTI touches one slot. A single
 * Redis keeps the prefix as given.
 */
export class RedisKeys {
  constructor(readonly prefix: string) {}

  queue(workerId: string): string {
    return `${this.prefix}q:${workerId}`;
  }

  inFlight(workerId: string): string {
    return `${this.prefix}inflight:${workerId}`;
  }

  wake(workerId: string): string {
    return `${this.wakePrefix}${workerId}`;
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

  workerClaim(workerId: string): string {
    return `${this.prefix}worker_claim:${workerId}`;
  }

  drain(workerId: string): string {
    return `${this.prefix}drain:${workerId}`;
  }

  get workers(): string {
    return `${this.prefix}workers`;
  }

  /** Prefix of the scheduler node keys; the Lua of listNodes appends ids to it. */
  get nodeKeyPrefix(): string {
    return `${this.prefix}node:`;
  }

  node(nodeId: string): string {
    return `${this.nodeKeyPrefix}${nodeId}`;
  }

  get nodes(): string {
    return `${this.prefix}nodes`;
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

/**
 * The prefix of a team on a Redis Cluster: the given one wrapped as a hash tag ("ax:" → "{ax}:",
 * "team1" → "{team1}"), or left alone when it already holds one ("{ax}:", "t:{blue}:"). One tag
 * for the whole team, not one per queue: the scripts that list workers and nodes read keys they
 * build from the prefix, and heartbeats write a worker's key and the shared set together, so a
 * tag per queue would split what must stay atomic. The cost: a team lives on one master (its
 * replica takes over when it fails); several teams spread over the cluster's masters.
 */
export function clusterPrefix(prefix: string): string {
  const open = prefix.indexOf('{');
  const close = open < 0 ? -1 : prefix.indexOf('}', open + 1);
  if (close > open + 1) return prefix;
  const name = prefix.endsWith(':') ? prefix.slice(0, -1) : prefix;
  if (name === '' || /[{}]/.test(name)) {
    throw new AxError(
      'validation',
      `Redis prefix "${prefix}" cannot be a Redis Cluster hash tag: use letters, digits, "_", "-" and ":" (e.g. ax:), or a tag of your own such as {ax}:`,
    );
  }
  return prefix.endsWith(':') ? `{${name}}:` : `{${name}}`;
}
