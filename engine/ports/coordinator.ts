import type { EngineEvent } from '../api/events.ts';
import type { InstanceState, WorkerRecord } from '../api/types.ts';

/** What travels in a worker's queue. The command is never in it: the worker loads it by id. */
export interface DispatchMessage {
  instanceId: number;
  attempt: number;
  workerId: string;
  dispatchedAt: number;
}

/**
 * A scheduler node's presence, so that `ax workers` lists schedulers that run no tasks and can
 * tell which node holds the leader lease. Only a listing: dispatch never reads it.
 */
export interface NodePresence {
  /** the engine's node id, the holder name of its leader lease (`<worker id>:<pid>`) */
  nodeId: string;
  host: string;
  pid: number;
  version: string;
  startedAt: number;
  lastHeartbeat: number;
  /** the worker this node runs too, if it works */
  workerId?: string;
}

/** Live events (log lines, state changes) are part of the public API: see api/events.ts. */
export type { EngineEvent } from '../api/events.ts';

export interface SubscribeOptions {
  /** only the events published through other coordinators (other processes) */
  fromOthers?: boolean;
  /**
   * only instance events in one of these states: what a node acts on itself (a worker its
   * cancels, the leader the outcomes that free a slot). An event that no subscription of a
   * coordinator wants is not even read there (on Redis: not checked against the event schema).
   */
  instanceStates?: readonly InstanceState[];
}

/**
 * Queues, heartbeats, locks and live events. In solo mode an in-process implementation; in team
 * mode Redis. Nothing here is the source of truth: the Store is, and everything here can be
 * rebuilt from it.
 */
export interface Coordinator {
  /** Adds a dispatch to a worker's queue. */
  enqueue(workerId: string, message: DispatchMessage): Promise<void>;
  /**
   * Takes up to max messages from a worker's queue. A taken message is never handed out again:
   * one a worker took and never started is dispatched again from the Store (the redispatch
   * rule), not from here.
   */
  take(workerId: string, max: number): Promise<DispatchMessage[]>;
  /** The worker is done with a message (started or refused); matched by instanceId + attempt. */
  ack(workerId: string, message: DispatchMessage): Promise<void>;
  queueLength(workerId: string): Promise<number>;
  /** Resolves when work may be available for the worker, or after timeoutMs. */
  waitForWork(workerId: string, timeoutMs: number): Promise<void>;

  /**
   * Worker registration key with a TTL (ax_worker_<id>), renewed by every heartbeat. With a
   * claim (the token of the process holding the id, see core/execution/worker-identity.ts) it is written
   * only while no other claim is registered, unless `takeOver` (the first beat after the id was
   * claimed in the store); false when refused.
   */
  heartbeatWorker(worker: WorkerRecord, ttlMs: number, claim?: { token: string; takeOver: boolean }): Promise<boolean>;
  removeWorker(workerId: string): Promise<void>;
  /** `ax drain WORKER`: ask a worker (in any process) to take nothing new, finish, deregister. */
  requestDrain(workerId: string): Promise<void>;
  drainRequested(workerId: string): Promise<boolean>;
  listWorkers(): Promise<WorkerRecord[]>;

  /** A scheduler node's presence (key with a TTL, renewed by every beat); see NodePresence. */
  heartbeatNode(node: NodePresence, ttlMs: number): Promise<void>;
  removeNode(nodeId: string): Promise<void>;
  listNodes(): Promise<NodePresence[]>;

  /** Start lock keyed by instance id (SET NX with a TTL). */
  acquireStartLock(instanceId: number, attempt: number, ttlMs: number): Promise<boolean>;
  releaseStartLock(instanceId: number, attempt: number): Promise<void>;
  /**
   * Removes the attempt's start lock whoever holds it: for the scheduler once the holder's worker
   * is judged lost before the start (a worker that died between its lock and its start would
   * otherwise keep the attempt from every other worker for the lock's whole TTL, up to a day;
   * the lost one can no longer start it, as the DISPATCHED→RUNNING step is fenced by worker id).
   */
  clearStartLock(instanceId: number, attempt: number): Promise<void>;

  /**
   * Leader lease: returns a fencing token (greater than every earlier one) when holder gets or
   * keeps the lease, null when someone else holds it.
   */
  acquireLease(name: string, holder: string, ttlMs: number): Promise<number | null>;
  releaseLease(name: string, holder: string): Promise<void>;
  /** who holds the lease now; null when it is free or expired */
  leaseHolder(name: string): Promise<string | null>;

  publish(event: EngineEvent): Promise<void>;
  /**
   * Returns an unsubscribe function. `fromOthers`: only the events published through other
   * coordinators (other processes), not through this one — what a process learns from others
   * when it acts on its own work directly.
   */
  subscribe(handler: (event: EngineEvent) => void, options?: SubscribeOptions): Promise<() => void>;

  close(): Promise<void>;
}
