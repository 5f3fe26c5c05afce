import { AxError } from '../../api/errors.ts';
import type { WorkerRecord } from '../../api/types.ts';
import type {
  Coordinator,
  DispatchMessage,
  EngineEvent,
  NodePresence,
  SubscribeOptions,
} from '../../ports/coordinator.ts';

export interface MemoryCoordinatorOptions {
  /** clock for every TTL (workers, start locks, leases); default Date.now */
  now?: () => number;
  /** told about a subscriber that threw; default: ignored (see publish) */
  onSubscriberError?: (error: unknown, event: EngineEvent) => void;
}

interface Expiring<T> {
  value: T;
  expiresAt: number;
}

interface Lease {
  holder: string;
  token: number;
  expiresAt: number;
}

type Waiter = () => void;

const copyWorker = (w: WorkerRecord): WorkerRecord => ({ ...w, labels: [...w.labels] });

/**
 * The Coordinator for solo mode: everything in one process, nothing persisted (the Store is the
 * truth and rebuilds all of this). These are also the semantics the Redis adapter must keep, and
 * the contract suite (test/contract/coordinator.contract.ts) checks both:
 *
 * - Queues: FIFO per worker queue. Enqueueing to a worker's queue wakes that worker's waiters.
 * - take(worker, max): up to max messages from the worker's queue. A taken message is never
 *   handed out again; ack has nothing to do here (Redis keeps an in-flight list for people to
 *   look at). Messages are copied in and out, as they would be serialised over Redis.
 * - waitForWork(worker, timeoutMs): resolves at once when the worker's queue is non-empty or the
 *   coordinator is closed; otherwise on the next enqueue for that worker, on close(), or after
 *   timeoutMs of real time. A wake means work *may* be there;
 *   callers loop.
 * - TTLs use the injected clock: a key set at t with ttlMs is alive while now() < t + ttlMs.
 *   Expired entries are dropped lazily, when next looked at.
 * - heartbeatWorker stores the record with a TTL, replacing the previous one; listWorkers
 *   returns the unexpired ones, in no promised order. With a claim, a live registration under
 *   another claim is kept (false) unless the caller takes over.
 * - heartbeatNode/listNodes/removeNode: the same for scheduler nodes, keyed by node id, no claim.
 * - Start lock: SET NX with a TTL, keyed by instance id + attempt, so each attempt has its own
 *   lock and a second process for the same attempt is refused. Release is unconditional.
 * - Lease: free or expired → the caller gets it with token = highest token ever issued for that
 *   name + 1 (even if the caller held it before it expired: its writes in between may have been
 *   fenced). Held by the same holder → expiry renewed, same token. Held by another → null.
 *   releaseLease frees it only when called by the holder. Tokens survive release. leaseHolder
 *   names the holder of an unexpired lease, else null.
 * - publish delivers synchronously to every subscriber; a throwing subscriber is isolated.
 *   Every event is published through this coordinator (it is the one process's), so a
 *   `fromOthers` subscriber hears nothing.
 * - close() resolves every pending waiter and drops subscribers; it may be called twice.
 */
export class MemoryCoordinator implements Coordinator {
  private readonly now: () => number;
  private readonly onSubscriberError: (error: unknown, event: EngineEvent) => void;
  private readonly queues = new Map<string, DispatchMessage[]>();
  private readonly waiters = new Map<string, Set<Waiter>>();
  private readonly workers = new Map<string, Expiring<WorkerRecord> & { claim?: string }>();
  private readonly nodes = new Map<string, Expiring<NodePresence>>();
  private readonly startLocks = new Map<string, number>();
  private readonly leases = new Map<string, Lease>();
  private readonly leaseTokens = new Map<string, number>();
  private readonly subscribers = new Set<(event: EngineEvent) => void>();
  private readonly drains = new Set<string>();
  private closed = false;

  constructor(options: MemoryCoordinatorOptions = {}) {
    this.now = options.now ?? Date.now;
    this.onSubscriberError = options.onSubscriberError ?? (() => {});
  }

  async enqueue(workerId: string, message: DispatchMessage): Promise<void> {
    const list = this.queues.get(workerId);
    if (list) list.push({ ...message });
    else this.queues.set(workerId, [{ ...message }]);
    this.wake(workerId);
  }

  async take(workerId: string, max: number): Promise<DispatchMessage[]> {
    if (max <= 0) return [];
    const own = this.queues.get(workerId);
    const taken = own ? own.splice(0, max) : [];
    if (own && own.length === 0) this.queues.delete(workerId);
    return taken.map((m) => ({ ...m }));
  }

  /** Nothing to do in one process: a taken message is gone from every queue already. */
  async ack(): Promise<void> {}

  async queueLength(workerId: string): Promise<number> {
    return this.queues.get(workerId)?.length ?? 0;
  }

  async waitForWork(workerId: string, timeoutMs: number): Promise<void> {
    if (this.closed || (this.queues.get(workerId)?.length ?? 0) > 0) return;
    await new Promise<void>((resolve) => {
      let set = this.waiters.get(workerId);
      if (!set) this.waiters.set(workerId, (set = new Set()));
      const waiters = set;
      const done: Waiter = () => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0 && this.waiters.get(workerId) === waiters) this.waiters.delete(workerId);
        resolve();
      };
      // Real time, not the injected clock: this bounds how long a worker loop blocks. unref so
      // an idle worker loop never keeps the process alive on its own.
      const timer = setTimeout(done, Math.max(0, timeoutMs));
      timer.unref();
      waiters.add(done);
    });
  }

  async heartbeatWorker(
    worker: WorkerRecord,
    ttlMs: number,
    claim?: { token: string; takeOver: boolean },
  ): Promise<boolean> {
    const current = this.workers.get(worker.id);
    const held = current && current.expiresAt > this.now() ? current.claim : undefined;
    if (claim && held !== undefined && held !== claim.token && !claim.takeOver) return false;
    this.workers.set(worker.id, { value: copyWorker(worker), expiresAt: this.now() + ttlMs, claim: claim?.token });
    return true;
  }

  async removeWorker(workerId: string): Promise<void> {
    this.workers.delete(workerId);
    this.drains.delete(workerId);
  }

  async requestDrain(workerId: string): Promise<void> {
    this.drains.add(workerId);
  }

  async drainRequested(workerId: string): Promise<boolean> {
    return this.drains.has(workerId);
  }

  async listWorkers(): Promise<WorkerRecord[]> {
    const now = this.now();
    const alive: WorkerRecord[] = [];
    for (const [id, entry] of this.workers) {
      if (entry.expiresAt > now) alive.push(copyWorker(entry.value));
      else this.workers.delete(id);
    }
    return alive;
  }

  async heartbeatNode(node: NodePresence, ttlMs: number): Promise<void> {
    this.nodes.set(node.nodeId, { value: { ...node }, expiresAt: this.now() + ttlMs });
  }

  async removeNode(nodeId: string): Promise<void> {
    this.nodes.delete(nodeId);
  }

  async listNodes(): Promise<NodePresence[]> {
    const now = this.now();
    const alive: NodePresence[] = [];
    for (const [id, entry] of this.nodes) {
      if (entry.expiresAt > now) alive.push({ ...entry.value });
      else this.nodes.delete(id);
    }
    return alive;
  }

  async acquireStartLock(instanceId: number, attempt: number, ttlMs: number): Promise<boolean> {
    const now = this.now();
    // Sweep here so locks whose holder died without releasing do not pile up; there are about
    // as many live locks as running tasks, so the scan is cheap.
    for (const [key, expiresAt] of this.startLocks) if (expiresAt <= now) this.startLocks.delete(key);
    const key = `${instanceId}:${attempt}`;
    if (this.startLocks.has(key)) return false;
    this.startLocks.set(key, now + ttlMs);
    return true;
  }

  async releaseStartLock(instanceId: number, attempt: number): Promise<void> {
    this.startLocks.delete(`${instanceId}:${attempt}`);
  }

  async clearStartLock(instanceId: number, attempt: number): Promise<void> {
    this.startLocks.delete(`${instanceId}:${attempt}`);
  }

  async acquireLease(name: string, holder: string, ttlMs: number): Promise<number | null> {
    const now = this.now();
    const lease = this.leases.get(name);
    if (lease && lease.expiresAt > now) {
      if (lease.holder !== holder) return null;
      lease.expiresAt = now + ttlMs;
      return lease.token;
    }
    const token = (this.leaseTokens.get(name) ?? 0) + 1;
    this.leaseTokens.set(name, token);
    this.leases.set(name, { holder, token, expiresAt: now + ttlMs });
    return token;
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    if (this.leases.get(name)?.holder === holder) this.leases.delete(name);
  }

  async leaseHolder(name: string): Promise<string | null> {
    const lease = this.leases.get(name);
    return lease && lease.expiresAt > this.now() ? lease.holder : null;
  }

  async publish(event: EngineEvent): Promise<void> {
    // Subscribers are followers (UI, CLI --follow): one failing must neither starve the others
    // nor fail the publisher, which is the scheduler or a worker loop. Same as Redis pub/sub.
    for (const handler of [...this.subscribers]) {
      try {
        handler(event);
      } catch (error) {
        this.onSubscriberError(error, event);
      }
    }
  }

  async subscribe(handler: (event: EngineEvent) => void, options?: SubscribeOptions): Promise<() => void> {
    if (this.closed)
      throw new AxError('unavailable', 'coordinator is closed: subscribe before close(), or open a new one');
    if (options?.fromOthers) return () => undefined;
    const states = options?.instanceStates;
    // Wrapped so subscribing the same function twice yields two independent subscriptions.
    const entry = (event: EngineEvent): void => {
      if (!states || (event.type === 'instance' && (states as readonly string[]).includes(event.state))) handler(event);
    };
    this.subscribers.add(entry);
    return () => {
      this.subscribers.delete(entry);
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.subscribers.clear();
    for (const workerId of [...this.waiters.keys()]) this.wake(workerId);
  }

  private wake(workerId: string): void {
    const set = this.waiters.get(workerId);
    if (set) for (const waiter of [...set]) waiter();
  }
}
