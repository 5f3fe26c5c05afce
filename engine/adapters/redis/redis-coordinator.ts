// The team's Coordinator on a shared Redis: queues, presence, start locks and leases through
// Lua scripts (redis-scripts.ts), events on one pub/sub channel, and the wait for work
// (redis-wakeups.ts) over two connections (redis-connection.ts).
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { Redis, type ChainableCommander } from 'ioredis';
import { AxError } from '../../api/errors.ts';
import { checkEvent } from '../../api/event-schema.ts';
import type { WorkerRecord } from '../../api/types.ts';
import type {
  Coordinator,
  DispatchMessage,
  EngineEvent,
  NodePresence,
  SubscribeOptions,
} from '../../ports/coordinator.ts';
import { clusterClient } from './redis-cluster.ts';
import { connectionOptions, isCluster, RedisConnection, type RedisClient } from './redis-connection.ts';
import { clusterPrefix, RedisKeys } from './redis-keys.ts';
import { checkRedisUrl, checkSingleRedisUrl } from './redis-url.ts';
import { WorkWakeups } from './redis-wakeups.ts';
import {
  ACK,
  ACQUIRE_LEASE,
  ENQUEUE,
  HEARTBEAT_NODE,
  HEARTBEAT_WORKER,
  LIST_WORKERS,
  PUBLISH_IN_SLOT,
  RELEASE_LEASE,
  RELEASE_LOCK,
  TAKE,
} from './redis-scripts.ts';

/** Makes one connection; called once per role ('commands', 'subscriber'). The coordinator owns and closes it. */
export type RedisClientFactory = (role: 'commands' | 'subscriber') => RedisClient;

interface RedisCoordinatorCommon {
  /** prepended to every key and channel; default 'ax:' (on a cluster as a hash tag: clusterPrefix) */
  prefix?: string;
  /**
   * a Redis Cluster: the url's node seeds an ioredis Cluster and the prefix becomes a hash tag
   * (redis-keys.ts); default false. openRedisCoordinator (redis-open.ts) asks the server.
   */
  cluster?: boolean;
  /** longest a call waits for Redis to answer; default 5000 ms */
  commandTimeoutMs?: number;
  /** longest a call waits for a dropped connection to come back, from the drop; default 2000 ms */
  readyTimeoutMs?: number;
  /** every connection error (ioredis reconnects after each); default: ignored, calls report them */
  onConnectionError?: (error: Error) => void;
  /** told about a subscriber that threw; default: ignored */
  onSubscriberError?: (error: unknown, event: EngineEvent) => void;
  /**
   * told about a message on the events channel that is not an event (not JSON, or not of an
   * EngineEvent's shape: api/event-schema.ts), which was dropped; default: ignored. Only what a
   * subscription wanted is checked: what none wants (SubscribeOptions) is dropped unread.
   */
  onInvalidEvent?: (problem: string) => void;
}

export type RedisCoordinatorOptions = RedisCoordinatorCommon &
  (
    | { url: string; createClient?: never }
    /** for options the URL cannot carry (TLS, Sentinel); bound it as connectionOptions() does */
    | { createClient: RedisClientFactory; url?: never }
  );

const ttl = (ms: number): number => Math.max(1, Math.ceil(ms));

const parseMessage = (raw: string): DispatchMessage => JSON.parse(raw) as DispatchMessage;

/** An event on the events channel, with the coordinator that published it (for `fromOthers`). */
interface Envelope {
  origin: string;
  event: EngineEvent;
}

/** One subscribe() call: its handler and which events it wants. */
interface Subscription {
  handler: (event: EngineEvent) => void;
  fromOthers: boolean;
  /** instanceStates as a set; null: every event */
  states: ReadonlySet<string> | null;
}

/** Whether a subscription wants an event, from the event's fields as they arrived (not yet checked). */
function wants(s: Subscription, event: { type?: unknown; state?: unknown } | null | undefined, own: boolean): boolean {
  if (own && s.fromOthers) return false;
  return (
    s.states === null || (event?.type === 'instance' && typeof event.state === 'string' && s.states.has(event.state))
  );
}

/**
 * The Coordinator for team mode, keeping MemoryCoordinator's documented semantics on a shared
 * Redis (key layout in redis-keys.ts). Where Redis differs:
 *
 * - TTLs run on Redis's clock, not an injected one.
 * - publish delivers asynchronously (Redis pub/sub), in order, to subscribers of every
 *   coordinator on the prefix; a throwing subscriber is isolated as in memory. Each event
 *   travels with the coordinator that published it, so a `fromOthers` subscriber skips the
 *   events of its own coordinator that come back to it.
 * - releaseStartLock deletes the lock only when this coordinator took it: a process whose lock
 *   expired must not free the lock another process has since taken for the same attempt.
 * - Lease tokens are big numbers (seeded from the server clock, see ACQUIRE_LEASE) so they keep
 *   growing after Redis loses its keys.
 * - When Redis is down, calls reject with AxError 'unavailable' within readyTimeoutMs (or
 *   commandTimeoutMs for a Redis that stops answering); ioredis reconnects by itself and calls
 *   work again once Redis is back. Wake-ups sent while the link was down are lost, so every
 *   waiter is woken when the subscriber link comes back (callers loop).
 */
export class RedisCoordinator implements Coordinator {
  private readonly keys: RedisKeys;
  private readonly commands: RedisConnection;
  private readonly subscriber: RedisConnection;
  private readonly onSubscriberError: (error: unknown, event: EngineEvent) => void;
  private readonly onInvalidEvent: (problem: string) => void;
  /** value of the start locks this coordinator takes, and the origin of the events it publishes */
  private readonly owner = `${hostname()}:${process.pid}:${randomBytes(6).toString('hex')}`;
  private readonly wakeups: WorkWakeups;
  private readonly handlers = new Set<Subscription>();
  private eventsSubscribed: Promise<void> | null = null;
  private closed = false;
  private readonly cluster: boolean;

  constructor(options: RedisCoordinatorOptions) {
    const prefix = options.prefix ?? 'ax:';
    this.cluster = options.cluster === true;
    this.keys = new RedisKeys(this.cluster ? clusterPrefix(prefix) : prefix);
    this.onSubscriberError = options.onSubscriberError ?? (() => undefined);
    this.onInvalidEvent = options.onInvalidEvent ?? (() => undefined);
    const commandTimeoutMs = options.commandTimeoutMs ?? 5_000;
    const connect = options.createClient ?? urlClientFactory(options.url, commandTimeoutMs, options.cluster === true);
    const linkOptions = {
      readyTimeoutMs: options.readyTimeoutMs ?? 2_000,
      onError: options.onConnectionError ?? (() => undefined),
    };
    this.commands = new RedisConnection(connect('commands'), linkOptions);
    this.subscriber = new RedisConnection(connect('subscriber'), linkOptions);
    this.subscriber.client.on('message', (channel: string, message: string) => this.onMessage(channel, message));
    this.wakeups = new WorkWakeups(this.keys, this.commands, this.subscriber, () => this.closed);
    this.subscriber.onReconnect = () => this.wakeups.afterReconnect();
    // A cluster moves its subscriber link to another node when the node it used leaves (a failed
    // master); wakes published meanwhile are lost, so waiters look again, as after a reconnect.
    const sub = this.subscriber.client;
    if (isCluster(sub)) sub.on('-node', () => this.wakeups.afterReconnect());
  }

  /** The prefix every key and channel starts with (a hash tag on a cluster). */
  get keyPrefix(): string {
    return this.keys.prefix;
  }

  async enqueue(workerId: string, message: DispatchMessage): Promise<void> {
    await this.commands.script(
      ENQUEUE,
      [this.keys.queue(workerId), this.keys.wake(workerId)],
      [JSON.stringify(message)],
    );
  }

  async take(workerId: string, max: number): Promise<DispatchMessage[]> {
    if (max <= 0) return [];
    const keys = [this.keys.queue(workerId), this.keys.inFlight(workerId)];
    const taken = (await this.commands.script(TAKE, keys, [Math.floor(max)])) as string[];
    return taken.map(parseMessage);
  }

  async ack(workerId: string, message: DispatchMessage): Promise<void> {
    await this.commands.script(ACK, [this.keys.inFlight(workerId)], [message.instanceId, message.attempt]);
  }

  async queueLength(workerId: string): Promise<number> {
    const key = this.keys.queue(workerId);
    return this.commands.call('queueLength', (r) => r.llen(key));
  }

  waitForWork(workerId: string, timeoutMs: number): Promise<void> {
    return this.wakeups.wait(workerId, timeoutMs);
  }

  async heartbeatWorker(
    worker: WorkerRecord,
    ttlMs: number,
    claim?: { token: string; takeOver: boolean },
  ): Promise<boolean> {
    const keys = [this.keys.worker(worker.id), this.keys.workerClaim(worker.id), this.keys.workers];
    const args = [JSON.stringify(worker), ttl(ttlMs), worker.id, claim?.token ?? '', claim?.takeOver ? '1' : '0'];
    return (await this.commands.script(HEARTBEAT_WORKER, keys, args)) === 1;
  }

  async removeWorker(workerId: string): Promise<void> {
    await this.commands.call('removeWorker', (r) =>
      exec(
        r
          .multi()
          .del(this.keys.worker(workerId))
          .del(this.keys.workerClaim(workerId))
          .del(this.keys.drain(workerId))
          .srem(this.keys.workers, workerId),
      ),
    );
  }

  async requestDrain(workerId: string): Promise<void> {
    // A day is plenty for a worker to notice; the key must not outlive a forgotten request forever.
    await this.commands.call('requestDrain', (r) => r.set(this.keys.drain(workerId), '1', 'PX', 86_400_000));
  }

  async drainRequested(workerId: string): Promise<boolean> {
    return (await this.commands.call('drainRequested', (r) => r.exists(this.keys.drain(workerId)))) === 1;
  }

  async listWorkers(): Promise<WorkerRecord[]> {
    const records = (await this.commands.script(
      LIST_WORKERS,
      [this.keys.workers],
      [this.keys.workerKeyPrefix],
    )) as string[];
    return records.map((raw) => JSON.parse(raw) as WorkerRecord);
  }

  async heartbeatNode(node: NodePresence, ttlMs: number): Promise<void> {
    await this.commands.script(
      HEARTBEAT_NODE,
      [this.keys.node(node.nodeId), this.keys.nodes],
      [JSON.stringify(node), ttl(ttlMs), node.nodeId],
    );
  }

  async removeNode(nodeId: string): Promise<void> {
    await this.commands.call('removeNode', (r) =>
      exec(r.multi().del(this.keys.node(nodeId)).srem(this.keys.nodes, nodeId)),
    );
  }

  async listNodes(): Promise<NodePresence[]> {
    const records = (await this.commands.script(
      LIST_WORKERS,
      [this.keys.nodes],
      [this.keys.nodeKeyPrefix],
    )) as string[];
    return records.map((raw) => JSON.parse(raw) as NodePresence);
  }

  async acquireStartLock(instanceId: number, attempt: number, ttlMs: number): Promise<boolean> {
    const key = this.keys.startLock(instanceId, attempt);
    const reply = await this.commands.call('acquireStartLock', (r) => r.set(key, this.owner, 'PX', ttl(ttlMs), 'NX'));
    return reply === 'OK';
  }

  async releaseStartLock(instanceId: number, attempt: number): Promise<void> {
    await this.commands.script(RELEASE_LOCK, [this.keys.startLock(instanceId, attempt)], [this.owner]);
  }

  async clearStartLock(instanceId: number, attempt: number): Promise<void> {
    const key = this.keys.startLock(instanceId, attempt);
    await this.commands.call('clearStartLock', (r) => r.del(key));
  }

  async acquireLease(name: string, holder: string, ttlMs: number): Promise<number | null> {
    const token = await this.commands.script(
      ACQUIRE_LEASE,
      [this.keys.lease(name), this.keys.leaseToken(name)],
      [holder, ttl(ttlMs)],
    );
    return token === null ? null : Number(token);
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    await this.commands.script(RELEASE_LEASE, [this.keys.lease(name)], [holder]);
  }

  async leaseHolder(name: string): Promise<string | null> {
    const value = await this.commands.call('leaseHolder', (r) => r.get(this.keys.lease(name)));
    // "<token>|<holder>" (see ACQUIRE_LEASE)
    return value === null ? null : value.slice(value.indexOf('|') + 1);
  }

  async publish(event: EngineEvent): Promise<void> {
    const payload = JSON.stringify({ origin: this.owner, event } satisfies Envelope);
    if (this.cluster) await this.commands.script(PUBLISH_IN_SLOT, [this.keys.events], [payload]);
    else await this.commands.call('publish', (r) => r.publish(this.keys.events, payload));
  }

  async subscribe(handler: (event: EngineEvent) => void, options?: SubscribeOptions): Promise<() => void> {
    if (this.closed)
      throw new AxError('unavailable', 'coordinator is closed: subscribe before close(), or open a new one');
    // A new object, so subscribing the same function twice yields two independent subscriptions.
    const entry: Subscription = {
      handler,
      fromOthers: options?.fromOthers === true,
      states: options?.instanceStates ? new Set(options.instanceStates) : null,
    };
    this.eventsSubscribed ??= this.subscriber.call('subscribe', async (r) => {
      await r.subscribe(this.keys.events);
    });
    const subscribed = this.eventsSubscribed;
    try {
      // Resolves once Redis confirmed the SUBSCRIBE: every event published after this is seen.
      await subscribed;
    } catch (error) {
      if (this.eventsSubscribed === subscribed) this.eventsSubscribed = null;
      throw error;
    }
    if (this.closed) throw new AxError('unavailable', 'coordinator was closed while subscribing: open a new one');
    this.handlers.add(entry);
    return () => {
      if (!this.handlers.delete(entry) || this.handlers.size > 0 || this.closed) return;
      // The last follower left: stop receiving every log line of the team. A later subscribe
      // sends its SUBSCRIBE after this UNSUBSCRIBE on the same connection, so order holds.
      this.eventsSubscribed = null;
      this.subscriber.call('unsubscribe', (r) => r.unsubscribe(this.keys.events)).catch(() => undefined);
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.handlers.clear();
    this.wakeups.wakeAll();
    await Promise.all([this.commands.close(), this.subscriber.close()]);
  }

  private onMessage(channel: string, message: string): void {
    if (channel === this.keys.events) {
      // Anyone with the team's Redis credentials can publish here: what is not an event is
      // dropped before any listener (the engine's, or a client's through the API) sees it.
      let envelope: Partial<Envelope> | null;
      try {
        envelope = JSON.parse(message) as Partial<Envelope> | null;
      } catch {
        this.onInvalidEvent(`not JSON: ${JSON.stringify(message.slice(0, 60))}`);
        return;
      }
      const own = envelope?.origin === this.owner;
      // Every node hears every event of the team; most want few of them (a worker its cancels,
      // the leader the outcomes of others): one no subscription here wants is not even checked.
      const raw = envelope?.event as { type?: unknown; state?: unknown } | null | undefined;
      const wanting = [...this.handlers].filter((s) => wants(s, raw, own));
      if (wanting.length === 0) return;
      const checked = checkEvent(envelope?.event);
      if (!checked.ok || typeof envelope?.origin !== 'string') {
        this.onInvalidEvent(checked.ok ? 'no origin (not sent by an AX coordinator)' : checked.problem);
        return;
      }
      const { event } = checked;
      // Followers (UI, CLI --follow): one failing must not starve the others.
      for (const s of wanting) {
        try {
          s.handler(event);
        } catch (error) {
          this.onSubscriberError(error, event);
        }
      }
    } else if (channel.startsWith(this.keys.wakePrefix)) {
      this.wakeups.wake(channel.slice(this.keys.wakePrefix.length));
    }
  }
}

function urlClientFactory(url: string, commandTimeoutMs: number, cluster: boolean): RedisClientFactory {
  checkRedisUrl(url);
  if (cluster) return (role) => clusterClient(url, role, commandTimeoutMs);
  checkSingleRedisUrl(url);
  return (role) => new Redis(url, connectionOptions(role, commandTimeoutMs));
}

/** MULTI/EXEC that fails when any command in it failed (ioredis reports those per command). */
async function exec(multi: ChainableCommander): Promise<unknown[]> {
  const replies = await multi.exec();
  if (!replies) throw new Error('transaction aborted');
  for (const [error] of replies) if (error) throw error;
  return replies.map(([, value]) => value);
}
