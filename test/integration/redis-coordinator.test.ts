// Redis-only behaviour of RedisCoordinator, beyond the shared contract: what survives a process,
// what several processes share, what a prefix separates, and what happens when Redis itself
// loses its data or goes away. The memory coordinator has none of these: it lives and dies with
// its one process.
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AxError } from '../../engine/api/errors.ts';
import type { WorkerRecord } from '../../engine/api/types.ts';
import { RedisCoordinator, type RedisCoordinatorOptions } from '../../engine/adapters/redis/redis-coordinator.ts';
import { connectionOptions } from '../../engine/adapters/redis/redis-connection.ts';
import { RedisKeys } from '../../engine/adapters/redis/redis-keys.ts';
import type { DispatchMessage, EngineEvent } from '../../engine/ports/coordinator.ts';
import { hasRedisServer, PrivateRedis } from '../helpers/private-servers.ts';
import { deleteRedisPrefix, redisAvailable, REDIS_URL, uniqueName } from '../helpers/services.ts';
import { holdsFor, waitFor, within } from '../helpers/wait-for.ts';

const available = await redisAvailable();

const LONG = 60_000;

const msg = (instanceId: number, attempt = 1): DispatchMessage => ({
  instanceId,
  attempt,
  workerId: 'w1',
  dispatchedAt: 1_700_000_000_000 + instanceId,
});

const worker = (id: string): WorkerRecord => ({
  id,
  host: 'host-a',
  pid: 4242,
  version: '0.1.0',
  labels: ['linux'],
  acceptUnlabelled: true,
  maxConcurrency: 8,
  running: 0,
  startedAt: 1_700_000_000_000,
  lastHeartbeat: 1_700_000_000_000,
  status: 'online',
});

/** Coordinators opened by a test, closed and their prefixes deleted after it. */
function opened(url: () => string) {
  const coordinators: RedisCoordinator[] = [];
  const prefixes = new Set<string>();
  return {
    open(prefix: string, extra: Partial<RedisCoordinatorOptions> = {}): RedisCoordinator {
      prefixes.add(prefix);
      const c = new RedisCoordinator({ ...extra, url: url(), prefix } as RedisCoordinatorOptions);
      coordinators.push(c);
      return c;
    },
    async cleanup(): Promise<void> {
      await Promise.all(coordinators.splice(0).map((c) => c.close()));
      for (const prefix of prefixes) await deleteRedisPrefix(prefix, url());
      prefixes.clear();
    },
  };
}

// Skipped only off CI on a machine without Redis: under CI=true redisAvailable() throws instead.
describe.skipIf(!available)('RedisCoordinator on the shared Redis', () => {
  const c = opened(() => REDIS_URL);
  afterEach(() => c.cleanup());
  const prefix = () => `${uniqueName('axtest')}:`;

  // Redis only: what a worker took stays in its in-flight list (inflight:<worker>) until acked,
  // after its coordinator is gone too. No engine code reads the list (a lost dispatch is
  // redispatched from the Store); it is there for a person or a tool looking at Redis.
  it('keeps what a worker took and never acked in its in-flight list after that coordinator is gone; ack matches by instance and attempt', async () => {
    const p = prefix();
    const dying = c.open(p);
    await dying.enqueue('w1', msg(1));
    await dying.enqueue('w1', msg(2));
    expect(await dying.take('w1', 5)).toEqual([msg(1), msg(2)]);
    await dying.close();

    const raw = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    const inFlight = async () =>
      (await raw.lrange(new RedisKeys(p).inFlight('w1'), 0, -1)).map((m) => JSON.parse(m) as DispatchMessage);
    try {
      const fresh = c.open(p);
      expect(await inFlight()).toEqual([msg(1), msg(2)]);
      expect(await fresh.take('w1', 5)).toEqual([]);
      expect(await fresh.queueLength('w1')).toBe(0);
      await fresh.ack('w1', { ...msg(1), dispatchedAt: 0, workerId: 'elsewhere' });
      expect(await inFlight()).toEqual([msg(2)]);
    } finally {
      raw.disconnect();
    }
  });

  // Two processes' views of one team: in memory there is only ever one view.
  it('shares queues, wake-ups, workers, locks, leases and events between coordinators on one prefix', async () => {
    const p = prefix();
    const a = c.open(p);
    const b = c.open(p);

    const waiting = b.waitForWork('w1', LONG);
    expect(await within(waiting, 100)).toBe('pending');
    await a.enqueue('w1', msg(1));
    expect(await within(waiting, 5_000)).toBe('resolved');
    expect(await b.take('w1', 5)).toEqual([msg(1)]);
    expect(await a.take('w1', 5)).toEqual([]);

    await a.heartbeatWorker(worker('w1'), LONG);
    expect(await b.listWorkers()).toEqual([worker('w1')]);
    await b.removeWorker('w1');
    expect(await a.listWorkers()).toEqual([]);

    // The start lock is released only by the coordinator that took it: b's lock may have
    // expired and been taken by a, and b must not free it.
    expect(await a.acquireStartLock(9, 1, LONG)).toBe(true);
    expect(await b.acquireStartLock(9, 1, LONG)).toBe(false);
    await b.releaseStartLock(9, 1);
    expect(await b.acquireStartLock(9, 1, LONG)).toBe(false);
    await a.releaseStartLock(9, 1);
    expect(await b.acquireStartLock(9, 1, LONG)).toBe(true);

    const first = await a.acquireLease('leader', 'node-a', LONG);
    expect(first).toEqual(expect.any(Number));
    expect(await b.acquireLease('leader', 'node-b', LONG)).toBeNull();
    await a.releaseLease('leader', 'node-a');
    expect(await b.acquireLease('leader', 'node-b', LONG)).toBeGreaterThan(first!);

    const seen: EngineEvent[] = [];
    await b.subscribe((e) => seen.push(e));
    const alert: EngineEvent = { type: 'alert', message: 'from a', at: 1 };
    await a.publish(alert);
    await waitFor(() => seen.length === 1, { message: "b's subscriber to get a's event" });
    expect(seen).toEqual([alert]);
  });

  // The commands asked for in one turn leave in one write (redis-connection.ts, batchWrites):
  // a worker's per-task release and ack, a dispatcher's batch. Each keeps its own reply, in
  // order, and a command of a later turn is not held back by an earlier batch.
  it('sends the commands of one turn in one socket write, each with its own reply', async () => {
    const p = prefix();
    let commands: Redis | undefined;
    const coordinator = c.open(p, {
      createClient: (role) => {
        const client = new Redis(REDIS_URL, connectionOptions(role, 5_000));
        if (role === 'commands') commands = client;
        return client;
      },
    });
    await coordinator.queueLength('w1');
    const socket = commands!.stream as unknown as {
      _write: (...a: unknown[]) => void;
      _writev: (...a: unknown[]) => void;
    };
    let writes = 0;
    for (const method of ['_write', '_writev'] as const) {
      const original = socket[method].bind(socket);
      socket[method] = (...args: unknown[]) => {
        writes += 1;
        original(...args);
      };
    }

    const ids = Array.from({ length: 20 }, (_, i) => i + 1);
    const locks = ids.map((id) => coordinator.acquireStartLock(id, 1, LONG));
    const enqueued = ids.map((id) => coordinator.enqueue('w1', msg(id)));
    expect(await Promise.all(locks)).toEqual(ids.map(() => true));
    await Promise.all(enqueued);
    expect(writes).toBe(1);

    // the next turn's batch: every lock is held now, the queue is in the order asked
    expect(await Promise.all(ids.map((id) => coordinator.acquireStartLock(id, 1, LONG)))).toEqual(ids.map(() => false));
    expect(await coordinator.take('w1', 50)).toEqual(ids.map((id) => msg(id)));
    expect(writes).toBe(3);
  });

  // A process hears its own events back through Redis; a `fromOthers` subscriber (the leader
  // waiting for other processes' work) must not.
  it("gives a fromOthers subscriber the other coordinators' events, not its own coming back", async () => {
    const p = prefix();
    const a = c.open(p);
    const b = c.open(p);
    const others: EngineEvent[] = [];
    const all: EngineEvent[] = [];
    await b.subscribe((e) => others.push(e), { fromOthers: true });
    await b.subscribe((e) => all.push(e));
    const own: EngineEvent = { type: 'alert', message: 'from b', at: 1 };
    const foreign: EngineEvent = { type: 'alert', message: 'from a', at: 2 };
    await b.publish(own);
    await a.publish(foreign);
    // Redis delivers in publish order: once a's event is in, b's own came back before it.
    await waitFor(() => all.length === 2, { message: "b's own event and a's" });
    expect(all).toEqual([own, foreign]);
    expect(others).toEqual([foreign]);
  });

  // Teams and parallel test files share one Redis; only the prefix keeps them apart.
  it('says nothing about its links when closed while they are still connecting (a refused worker stops at once)', async () => {
    // Closed in the middle of ioredis's connect handshake, its ready check failed on the ended
    // stream and the raw "Stream isn't writeable" reached onConnectionError, printed by a worker
    // whose only message should have been why it was refused.
    for (let i = 0; i < 5; i++) {
      const errors: string[] = [];
      const coordinator = c.open(prefix(), { onConnectionError: (e: Error) => errors.push(e.message) });
      const links = coordinator as unknown as Record<'commands' | 'subscriber', { client: Redis }>;
      await new Promise<void>((resolve) => links.subscriber.client.once('connect', resolve));
      await coordinator.close();
      // the ended stream's failed ready check came within a few event-loop turns of the close
      await holdsFor(() => errors.length === 0, 200, { message: 'no connection error after close' });
      expect(errors).toEqual([]);
    }
  });

  it('isolates coordinators on different prefixes', async () => {
    const a = c.open(prefix());
    const b = c.open(prefix());

    const waiting = b.waitForWork('w1', LONG);
    await a.enqueue('w1', msg(1));
    expect(await b.queueLength('w1')).toBe(0);
    expect(await b.take('w1', 5)).toEqual([]);
    expect(await within(waiting, 300)).toBe('pending');

    await a.heartbeatWorker(worker('w1'), LONG);
    expect(await b.listWorkers()).toEqual([]);
    expect(await a.acquireStartLock(1, 1, LONG)).toBe(true);
    expect(await b.acquireStartLock(1, 1, LONG)).toBe(true);
    expect(await a.acquireLease('leader', 'node-a', LONG)).not.toBeNull();
    expect(await b.acquireLease('leader', 'node-b', LONG)).not.toBeNull();

    const seen: EngineEvent[] = [];
    await b.subscribe((e) => seen.push(e));
    await a.publish({ type: 'alert', message: 'team a', at: 1 });
    const marker: EngineEvent = { type: 'alert', message: 'team b', at: 2 };
    await b.publish(marker);
    // Redis delivers in publish order, so once b has its own marker a's event would be there too.
    await waitFor(() => seen.length > 0, { message: "b's own event" });
    expect(seen).toEqual([marker]);
  });
});

// Never on the shared 6379: FLUSHALL and a kill would hit every other test and team on it.
// Skipped off CI where redis-server is not installed.
describe.skipIf(!hasRedisServer && process.env.CI !== 'true')(
  'RedisCoordinator when Redis loses its data or goes away',
  () => {
    let redis: PrivateRedis;
    const c = opened(() => redis.url);
    const errors: Error[] = [];
    const open = () =>
      c.open(`${uniqueName('axtest')}:`, {
        readyTimeoutMs: 500,
        commandTimeoutMs: 1_000,
        onConnectionError: (e) => errors.push(e),
      });

    beforeAll(async () => {
      redis = await PrivateRedis.start();
    });
    afterEach(() => c.cleanup());
    afterAll(() => redis?.kill());

    // The design’s promise (design.md §2): losing every Redis key loses nothing, because the Store rebuilds it.
    // The coordinator's part is to keep working on an empty Redis, with lease tokens still growing.
    it('keeps working after FLUSHALL, with lease tokens still greater than before', async () => {
      const coordinator = open();
      const before = await coordinator.acquireLease('leader', 'node-a', LONG);
      await coordinator.enqueue('w1', msg(1));
      await coordinator.heartbeatWorker(worker('w1'), LONG);
      const seen: EngineEvent[] = [];
      await coordinator.subscribe((e) => seen.push(e));

      const admin = new Redis(redis.url);
      await admin.flushall();
      await admin.quit();

      expect(await coordinator.queueLength('w1')).toBe(0);
      expect(await coordinator.listWorkers()).toEqual([]);
      expect(await coordinator.acquireLease('leader', 'node-a', LONG)).toBeGreaterThan(before!);

      const waiting = coordinator.waitForWork('w1', LONG);
      expect(await within(waiting, 100)).toBe('pending');
      await coordinator.enqueue('w1', msg(2));
      expect(await within(waiting, 5_000)).toBe('resolved');
      expect(await coordinator.take('w1', 5)).toEqual([msg(2)]);
      const alert: EngineEvent = { type: 'alert', message: 'after flush', at: 1 };
      await coordinator.publish(alert);
      await waitFor(() => seen.length === 1, { message: 'the event published after FLUSHALL' });
    });

    it('fails calls clearly while Redis is down, and works again once it is back', async () => {
      const coordinator = open();
      await coordinator.enqueue('w1', msg(1));
      const seen: EngineEvent[] = [];
      await coordinator.subscribe((e) => seen.push(e));
      const waiting = coordinator.waitForWork('w2', LONG);
      expect(await within(waiting, 100)).toBe('pending');

      await redis.kill();
      // Each call fails with an error naming Redis, within the configured bounds, never hangs.
      for (const call of [
        () => coordinator.queueLength('w1'),
        () => coordinator.acquireLease('leader', 'a', LONG),
        () => coordinator.publish({ type: 'alert', message: 'x', at: 1 }),
      ]) {
        const started = Date.now();
        const error = await call().then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(AxError);
        expect(error).toMatchObject({
          code: 'unavailable',
          message: expect.stringContaining(`Redis at 127.0.0.1:${redis.port}`),
        });
        expect(Date.now() - started).toBeLessThan(3_000);
      }
      await waitFor(() => errors.length > 0, { message: 'the connection error to reach onConnectionError' });
      // Down for longer than readyTimeoutMs: calls now fail at once instead of waiting again.
      const started = Date.now();
      await expect(coordinator.take('w1', 1)).rejects.toThrow(/is unreachable .*down for/);
      expect(Date.now() - started).toBeLessThan(1_000);

      await redis.start();
      await waitFor(() => coordinator.queueLength('w1').then((n) => n === 0), {
        timeoutMs: 10_000,
        message: 'calls to work again',
      });
      // Wakes sent during the outage are lost, so the reconnect wakes every waiter.
      expect(await within(waiting, 5_000)).toBe('resolved');

      const next = coordinator.waitForWork('w1', LONG);
      expect(await within(next, 100)).toBe('pending');
      await coordinator.enqueue('w1', msg(2));
      expect(await within(next, 5_000)).toBe('resolved');
      expect(await coordinator.take('w1', 5)).toEqual([msg(2)]);
      expect(await coordinator.acquireLease('leader', 'a', LONG)).toEqual(expect.any(Number));
      await coordinator.publish({ type: 'alert', message: 'back', at: 2 });
      await waitFor(() => seen.length === 1, { message: 'events after the restart' });
    });
  },
);
