// The store and the coordinator an edge worker's core Worker runs over: each call the worker path
// makes (api/worker-protocol.ts lists them) goes through the link to the server, which checks and
// executes it (core/execution/worker-gate.ts). Anything else has no business on an edge worker
// and fails saying so, rather than reaching for a database it does not have.
import { AxError } from '../../api/errors.ts';
import type { EngineEvent } from '../../api/events.ts';
import { WORKER_COORDINATOR_CALLS, WORKER_STORE_CALLS, type WorkerCall } from '../../api/worker-protocol.ts';
import type { Coordinator } from '../../ports/coordinator.ts';
import type { Store } from '../../ports/store.ts';

export interface Link {
  call(name: WorkerCall, args: unknown[]): Promise<unknown>;
}

function notHere(what: string, name: string): () => Promise<never> {
  return () =>
    Promise.reject(
      new AxError(
        'internal',
        `an edge worker has no ${what} of its own: ${name} is not one of the calls it makes through its server (api/worker-protocol.ts)`,
      ),
    );
}

/** A Store whose worker-path methods are calls to the server; the rest refuse. */
export function remoteStore(link: Link): Store {
  const calls = new Set<string>(WORKER_STORE_CALLS);
  return new Proxy({} as Store, {
    get(_target, name) {
      if (typeof name !== 'string' || name === 'then') return undefined;
      if (name === 'close') return async () => undefined;
      if (calls.has(name)) return (...args: unknown[]) => link.call(name as WorkerCall, args);
      return notHere('database', name);
    },
  });
}

/**
 * A Coordinator over the link: the queue, the registration, the drain flag and the start locks are
 * the server's coordinator's. Events: the server publishes what the edge's calls cause (RUNNING,
 * log lines, outcomes) itself, so `publish` sends nothing; `subscribe` hears what the server pushes
 * to this worker (its instances cancelled), handed in by `deliver`.
 */
export function remoteCoordinator(
  link: Link,
  onClose: () => void,
): { coordinator: Coordinator; deliver: (event: EngineEvent) => void } {
  const calls = new Set<string>(WORKER_COORDINATOR_CALLS);
  const handlers = new Set<(event: EngineEvent) => void>();
  const own: Partial<Coordinator> = {
    publish: async () => undefined,
    subscribe: async (handler) => {
      handlers.add(handler);
      return () => void handlers.delete(handler);
    },
    close: async () => {
      handlers.clear();
      onClose();
    },
  };
  const coordinator = new Proxy({} as Coordinator, {
    get(_target, name) {
      if (typeof name !== 'string' || name === 'then') return undefined;
      const mine = own[name as keyof Coordinator];
      if (mine) return mine;
      if (calls.has(name)) return (...args: unknown[]) => link.call(name as WorkerCall, args);
      return notHere('queue or Redis', name);
    },
  });
  return { coordinator, deliver: (event) => handlers.forEach((h) => h(event)) };
}
