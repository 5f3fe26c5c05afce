import type { WorkerRecord } from '../api/types.ts';

/** What travels in a worker's queue. The command is never in it: the worker loads it by id. */
export interface DispatchMessage {
  instanceId: number;
  attempt: number;
  workerId: string;
  dispatchedAt: number;
}

export interface TaskBeat {
  instanceId: number;
  attempt: number;
  at: number;
}

/** Live events: log lines and state changes, for followers (CLI --follow, UI). */
export type EngineEvent =
  | { type: 'instance'; instanceId: number; runId: number; taskName: string; attempt: number; state: string; at: number }
  | { type: 'run'; runId: number; workflowName: string; state: string; at: number }
  | { type: 'log'; instanceId: number; seq: number; stream: string; ts: number; line: string }
  | { type: 'alert'; message: string; at: number };

/**
 * Queues, heartbeats, locks and live events. In solo mode an in-process implementation; in team
 * mode Redis. Nothing here is the source of truth: the Store is, and everything here can be
 * rebuilt from it.
 */
export interface Coordinator {
  /** Adds a dispatch to a worker's queue; workerId null is the shared queue. */
  enqueue(queue: string | null, message: DispatchMessage): Promise<void>;
  /**
   * Takes up to max messages for a worker (its own queue first, then the shared queue). Taken
   * messages stay in the worker's in-flight list until acked, so a worker that dies loses none.
   */
  take(workerId: string, max: number): Promise<DispatchMessage[]>;
  ack(workerId: string, message: DispatchMessage): Promise<void>;
  /** messages taken but not acked, per worker (what a dead worker left behind) */
  inFlight(workerId: string): Promise<DispatchMessage[]>;
  queueLength(queue: string | null): Promise<number>;
  /** Resolves when work may be available for the worker, or after timeoutMs. */
  waitForWork(workerId: string, timeoutMs: number): Promise<void>;

  /** Worker registration key with a TTL (ax_worker_<id>), renewed by every heartbeat. */
  heartbeatWorker(worker: WorkerRecord, ttlMs: number): Promise<void>;
  removeWorker(workerId: string): Promise<void>;
  /** `ax drain WORKER`: ask a worker (in any process) to take nothing new, finish, deregister. */
  requestDrain(workerId: string): Promise<void>;
  drainRequested(workerId: string): Promise<boolean>;
  listWorkers(): Promise<WorkerRecord[]>;

  /** All of a worker's running instances in one round trip. */
  heartbeatTasks(beats: TaskBeat[]): Promise<void>;
  taskHeartbeats(instanceIds: number[]): Promise<Map<number, TaskBeat>>;
  clearTaskHeartbeat(instanceId: number): Promise<void>;

  /** Start lock keyed by instance id (SET NX with a TTL). */
  acquireStartLock(instanceId: number, attempt: number, ttlMs: number): Promise<boolean>;
  releaseStartLock(instanceId: number, attempt: number): Promise<void>;

  /**
   * Leader lease: returns a fencing token (greater than every earlier one) when holder gets or
   * keeps the lease, null when someone else holds it.
   */
  acquireLease(name: string, holder: string, ttlMs: number): Promise<number | null>;
  releaseLease(name: string, holder: string): Promise<void>;

  publish(event: EngineEvent): Promise<void>;
  /** Returns an unsubscribe function. */
  subscribe(handler: (event: EngineEvent) => void): Promise<() => void>;

  close(): Promise<void>;
}
