// The edge worker's wire protocol (issue 25 part 5): a worker that holds only a server URL and a
// token speaks to a scheduler node over one WebSocket, path WORKER_PATH, with
// `Authorization: Bearer TOKEN` (a token with the `worker` scope). The edge runs the real core
// Worker over a store and a coordinator that forward each call here; the server checks every call
// against the token (its worker id, its labels, instances dispatched to that id) and executes it
// with its own store and coordinator, under the same fences as a database worker's.
//
// Frames are JSON text, encoded by encodeFrame (undefined inside argument lists, Map and Set
// survive the trip: the store's answers use them).
//   edge → server: { id, call, args }            a call (see WORKER_CALLS)
//   server → edge: { id, result } | { id, error: { code, message } }
//   server → edge: { event }                     a live event for this worker (its instances cancelled)
// The first call is always `hello`; its answer is a Welcome.
import type { EngineEvent } from './events.ts';

export const WORKER_PATH = '/worker';
/** the worker id the edge means to serve as: refused at the upgrade when it is not its token's */
export const WORKER_ID_HEADER = 'x-ax-worker-id';
/** close code: the token no longer admits this worker (revoked, expired); the edge stops */
export const WORKER_REFUSED_CODE = 4401;

/** What the edge says first: who it is and what it offers. */
export interface Hello {
  /** the worker id it wants; undefined: its token's */
  workerId?: string;
  /** labels it offers; undefined: all of its token's */
  labels?: string[];
  host: string;
  pid: number;
  version: string;
}

/** The server's answer to hello: the id and labels the edge serves under, and the team's timings. */
export interface Welcome {
  workerId: string;
  labels: string[];
  /** the node that answers (for messages) */
  server: string;
  /** the team's heartbeat and kill settings: the scheduler judges the edge by these */
  config: {
    workerHeartbeatMs: number;
    taskHeartbeatMs: number;
    killGraceMs: number;
    maxLineBytes: number;
    logBatchLines: number;
    logFlushMs: number;
    maxOutputBytes: number;
  };
}

/**
 * Every call an edge may make: the store's and the coordinator's methods the worker path uses
 * (core/execution: worker, task-execution, worker-identity, dispatch-admission, the log writer,
 * the workflow and run caches, start-up recovery), `finish` (RunManager.finish on the server)
 * `alert` and `taskSecrets` (the team secrets of an instance dispatched to it, decrypted on the
 * server). Anything else is refused by both ends.
 */
export const WORKER_STORE_CALLS = [
  'getInstance',
  'getWorkflowStamp',
  'getWorkflowGraph',
  'getRun',
  'upstreamOutputs',
  'requeueInstance',
  'markRunning',
  'recordPid',
  'recordTaskHeartbeats',
  'cancelledAmong',
  'runningCountByWorker',
  'instancesInStates',
  'getWorker',
  'claimWorker',
  'beatWorker',
  'appendLogs',
  'logExtent',
] as const;

export const WORKER_COORDINATOR_CALLS = [
  'take',
  'ack',
  'waitForWork',
  'heartbeatWorker',
  'removeWorker',
  'drainRequested',
  'listWorkers',
  'acquireStartLock',
  'releaseStartLock',
] as const;

export type WorkerStoreCall = (typeof WORKER_STORE_CALLS)[number];
export type WorkerCoordinatorCall = (typeof WORKER_COORDINATOR_CALLS)[number];
/** taskSecrets: the team secrets one of its instances refers to (Engine.resolveTaskSecrets on the server) */
export type WorkerCall = 'hello' | 'finish' | 'alert' | 'taskSecrets' | WorkerStoreCall | WorkerCoordinatorCall;

export type WorkerFrame =
  | { id: number; call: WorkerCall; args: unknown[] }
  | { id: number; result: unknown }
  | { id: number; error: { code: string; message: string } }
  | { event: EngineEvent };

/** JSON with what the store's calls carry besides: undefined in lists, Map, Set. */
export function encodeFrame(frame: WorkerFrame): string {
  return JSON.stringify(frame, function (this: unknown, _key: string, value: unknown) {
    if (value instanceof Map) return { $map: [...value.entries()] };
    if (value instanceof Set) return { $set: [...value.values()] };
    if (value === undefined && Array.isArray(this)) return { $undefined: 1 };
    return value;
  });
}

export function decodeFrame(text: string): WorkerFrame {
  return JSON.parse(text, (_key, value: unknown) => {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const v = value as Record<string, unknown>;
      if (Array.isArray(v.$map) && Object.keys(v).length === 1) return new Map(v.$map as [unknown, unknown][]);
      if (Array.isArray(v.$set) && Object.keys(v).length === 1) return new Set(v.$set as unknown[]);
      if (v.$undefined === 1 && Object.keys(v).length === 1) return undefined;
    }
    return value;
  }) as WorkerFrame;
}
