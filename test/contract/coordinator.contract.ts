// The one suite every Coordinator passes (memory now, Redis later). It sees only the port: each
// test gets a fresh coordinator from setup (a Redis setup gives each one a random key prefix).
// TTLs run on the fake clock when setup offers `advance`, otherwise on short real TTLs.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { WorkerRecord } from '../../engine/api/types.ts';
import type { Coordinator, DispatchMessage, EngineEvent, NodePresence } from '../../engine/ports/coordinator.ts';
import { waitFor, within } from '../helpers/wait-for.ts';

export interface CoordinatorFixture {
  coordinator: Coordinator;
  /** moves the coordinator's clock forward; without it TTL tests wait in real time */
  advance?: (ms: number) => void;
  teardown: () => Promise<void>;
}

/** a TTL nothing in a test outlives */
const LONG_TTL = 60_000;
/** how long a waiter may take to wake before we call it stuck; far below any wait's timeout */
const WAKE_WITHIN = 5_000;

const msg = (instanceId: number, attempt = 1): DispatchMessage => ({
  instanceId,
  attempt,
  workerId: 'w1',
  dispatchedAt: 1_700_000_000_000 + instanceId,
});

const worker = (id: string, running = 0): WorkerRecord => ({
  id,
  host: 'host-a',
  pid: 4242,
  version: '0.1.0',
  labels: ['linux', 'etl'],
  acceptUnlabelled: false,
  acceptWorkflows: ['nightly'],
  maxConcurrency: 8,
  running,
  startedAt: 1_700_000_000_000,
  lastHeartbeat: 1_700_000_000_000,
  status: 'online',
});

const node = (nodeId: string, lastHeartbeat = 1_700_000_000_000, workerId?: string): NodePresence => ({
  nodeId,
  host: 'host-a',
  pid: 4242,
  version: '0.1.0',
  startedAt: 1_700_000_000_000,
  lastHeartbeat,
  ...(workerId !== undefined && { workerId }),
});

const logEvent = (seq: number): EngineEvent => ({
  type: 'log',
  instanceId: 7,
  seq,
  stream: 'stdout',
  ts: seq,
  line: `line ${seq}`,
});

export function coordinatorContract(name: string, setup: () => Promise<CoordinatorFixture>): void {
  describe(`Coordinator contract: ${name}`, () => {
    let fx: CoordinatorFixture;
    let c: Coordinator;
    let witnesses = 0;
    // Fake clock: any TTL works. Real time: short enough to keep the suite quick, long enough
    // that a key set one line earlier has not expired yet.
    let shortTtl = 0;

    beforeEach(async () => {
      fx = await setup();
      c = fx.coordinator;
      shortTtl = fx.advance ? 1_000 : 300;
    });
    afterEach(async () => {
      await fx.teardown();
    });

    /**
     * Lets ms pass on the coordinator's own clock. Without a fake clock, a witness lease taken
     * now with the same TTL is polled until it can be taken over: once it has expired, so has
     * every key set before it with that TTL, whichever clock the backend keeps.
     */
    async function elapse(ms: number): Promise<void> {
      if (fx.advance) {
        fx.advance(ms);
        return;
      }
      const lease = `contract-witness-${++witnesses}`;
      await c.acquireLease(lease, 'witness', ms);
      await waitFor(() => c.acquireLease(lease, 'observer', LONG_TTL).then((t) => t !== null), {
        timeoutMs: ms + 5_000,
        intervalMs: 25,
        message: `a ${ms} ms lease to expire`,
      });
    }

    describe('queues', () => {
      it('hands out a queue first in, first out', async () => {
        for (const id of [1, 2, 3, 4]) await c.enqueue('w1', msg(id));
        expect(await c.queueLength('w1')).toBe(4);
        expect(await c.take('w1', 3)).toEqual([msg(1), msg(2), msg(3)]);
        expect(await c.take('w1', 3)).toEqual([msg(4)]);
        expect(await c.take('w1', 3)).toEqual([]);
        expect(await c.queueLength('w1')).toBe(0);
      });

      it("takes the worker's own queue, never another worker's", async () => {
        await c.enqueue('w1', msg(1));
        await c.enqueue('w2', msg(20));
        await c.enqueue('w1', msg(2));
        expect(await c.take('w1', 3)).toEqual([msg(1), msg(2)]);
        expect(await c.take('w1', 5)).toEqual([]);
        expect(await c.queueLength('w2')).toBe(1);
        expect(await c.take('w2', 0)).toEqual([]);
        expect(await c.take('w2', 5)).toEqual([msg(20)]);
      });

      it('hands a taken message out once: neither a later take nor any ack brings it back', async () => {
        await c.enqueue('w1', msg(1, 1));
        await c.enqueue('w1', msg(1, 2));
        await c.enqueue('w1', msg(2));
        expect(await c.take('w1', 10)).toEqual([msg(1, 1), msg(1, 2), msg(2)]);
        expect(await c.take('w1', 10)).toEqual([]);
        await c.ack('w1', { ...msg(1, 1), dispatchedAt: 0, workerId: 'elsewhere' });
        await c.ack('w2', msg(2));
        await c.ack('w1', msg(9));
        expect(await c.take('w1', 10)).toEqual([]);
        expect(await c.take('w2', 10)).toEqual([]);
        expect(await c.queueLength('w1')).toBe(0);
      });
    });

    describe('waitForWork', () => {
      it("resolves at once when the worker's queue has work", async () => {
        await c.enqueue('w1', msg(1));
        expect(await within(c.waitForWork('w1', LONG_TTL), WAKE_WITHIN)).toBe('resolved');
      });

      it("waits while there is no work, and wakes on an enqueue to the worker's queue", async () => {
        const waiting = c.waitForWork('w1', LONG_TTL);
        expect(await within(waiting, 100)).toBe('pending');
        await c.enqueue('w1', msg(1));
        expect(await within(waiting, WAKE_WITHIN)).toBe('resolved');
      });

      it('times out when nothing comes', async () => {
        const started = Date.now();
        expect(await within(c.waitForWork('w1', 150), WAKE_WITHIN)).toBe('resolved');
        // a lower bound only: it must have waited, not returned at once (timers may round down 1 ms)
        expect(Date.now() - started).toBeGreaterThanOrEqual(140);
      });

      it('releases pending waiters on close', async () => {
        const waiting = c.waitForWork('w1', LONG_TTL);
        expect(await within(waiting, 50)).toBe('pending');
        await c.close();
        expect(await within(waiting, WAKE_WITHIN)).toBe('resolved');
      });
    });

    describe('worker registration', () => {
      const ids = async (): Promise<string[]> => (await c.listWorkers()).map((w) => w.id).sort();

      it('lists, updates and removes workers', async () => {
        await c.heartbeatWorker(worker('w1'), LONG_TTL);
        await c.heartbeatWorker(worker('w2'), LONG_TTL);
        await c.heartbeatWorker(worker('w1', 3), LONG_TTL);
        const listed = (await c.listWorkers()).sort((a, b) => a.id.localeCompare(b.id));
        expect(listed).toEqual([worker('w1', 3), worker('w2')]);
        await c.removeWorker('w1');
        expect(await ids()).toEqual(['w2']);
      });

      it('carries a drain request to the named worker only, until it deregisters', async () => {
        await c.heartbeatWorker(worker('w1'), LONG_TTL);
        await c.heartbeatWorker(worker('w2'), LONG_TTL);
        expect(await c.drainRequested('w1')).toBe(false);
        await c.requestDrain('w1');
        expect(await c.drainRequested('w1')).toBe(true);
        expect(await c.drainRequested('w2')).toBe(false);
        await c.removeWorker('w1');
        expect(await c.drainRequested('w1')).toBe(false);
      });

      it('keeps a registration under another live claim unless the caller takes over; an expired claim is free', async () => {
        const a = { token: 'a', takeOver: false };
        const b = { token: 'b', takeOver: false };
        expect(await c.heartbeatWorker(worker('w1'), LONG_TTL, a)).toBe(true);
        expect(await c.heartbeatWorker(worker('w1', 2), LONG_TTL, b)).toBe(false);
        expect((await c.listWorkers()).map((w) => w.running)).toEqual([worker('w1').running]);
        expect(await c.heartbeatWorker(worker('w1', 2), LONG_TTL, { token: 'b', takeOver: true })).toBe(true);
        // the previous holder, waking up, is refused now
        expect(await c.heartbeatWorker(worker('w1', 5), LONG_TTL, a)).toBe(false);
        expect(await c.heartbeatWorker(worker('w1', 3), shortTtl, b)).toBe(true);
        expect((await c.listWorkers()).map((w) => w.running)).toEqual([3]);
        await elapse(shortTtl);
        expect(await c.heartbeatWorker(worker('w1', 4), LONG_TTL, a)).toBe(true);
        await c.removeWorker('w1');
        expect(await c.heartbeatWorker(worker('w1', 6), LONG_TTL, b)).toBe(true);
      });

      it('drops a worker whose heartbeat expired, and keeps one that renewed', async () => {
        await c.heartbeatWorker(worker('w1'), shortTtl);
        await c.heartbeatWorker(worker('w2'), shortTtl);
        await c.heartbeatWorker(worker('w3'), LONG_TTL);
        expect(await ids()).toEqual(['w1', 'w2', 'w3']);
        await c.heartbeatWorker(worker('w2'), LONG_TTL);
        await elapse(shortTtl);
        expect(await ids()).toEqual(['w2', 'w3']);
        await c.heartbeatWorker(worker('w1'), LONG_TTL);
        expect(await ids()).toEqual(['w1', 'w2', 'w3']);
      });
    });

    describe('scheduler node presence', () => {
      const ids = async (): Promise<string[]> => (await c.listNodes()).map((n) => n.nodeId).sort();

      it('lists, updates and removes nodes, apart from the workers', async () => {
        await c.heartbeatNode(node('host-a:1'), LONG_TTL);
        await c.heartbeatNode(node('w1:2', 5, 'w1'), LONG_TTL);
        await c.heartbeatNode(node('host-a:1', 9), LONG_TTL);
        const listed = (await c.listNodes()).sort((a, b) => a.nodeId.localeCompare(b.nodeId));
        expect(listed).toEqual([node('host-a:1', 9), node('w1:2', 5, 'w1')]);
        // a node is no worker: dispatch, which reads listWorkers, never sees it
        expect(await c.listWorkers()).toEqual([]);
        await c.heartbeatWorker(worker('w1'), LONG_TTL);
        await c.removeWorker('w1');
        expect(await ids()).toEqual(['host-a:1', 'w1:2']);
        await c.removeNode('host-a:1');
        expect(await ids()).toEqual(['w1:2']);
        await c.removeNode('unknown:3');
        expect(await ids()).toEqual(['w1:2']);
      });

      it('drops a node whose heartbeat expired, and keeps one that renewed', async () => {
        await c.heartbeatNode(node('a:1'), shortTtl);
        await c.heartbeatNode(node('b:2'), shortTtl);
        await c.heartbeatNode(node('b:2'), LONG_TTL);
        await elapse(shortTtl);
        expect(await ids()).toEqual(['b:2']);
        await c.heartbeatNode(node('a:1'), LONG_TTL);
        expect(await ids()).toEqual(['a:1', 'b:2']);
      });
    });

    describe('start lock', () => {
      it('admits one holder per instance and attempt until released', async () => {
        expect(await c.acquireStartLock(1, 1, LONG_TTL)).toBe(true);
        expect(await c.acquireStartLock(1, 1, LONG_TTL)).toBe(false);
        expect(await c.acquireStartLock(1, 2, LONG_TTL)).toBe(true);
        expect(await c.acquireStartLock(2, 1, LONG_TTL)).toBe(true);
        await c.releaseStartLock(1, 1);
        expect(await c.acquireStartLock(1, 1, LONG_TTL)).toBe(true);
        expect(await c.acquireStartLock(1, 2, LONG_TTL)).toBe(false);
      });

      it("is cleared whoever holds it (a lost worker's, by the scheduler), that attempt only", async () => {
        expect(await c.acquireStartLock(7, 1, LONG_TTL)).toBe(true);
        expect(await c.acquireStartLock(7, 2, LONG_TTL)).toBe(true);
        await c.clearStartLock(7, 1);
        expect(await c.acquireStartLock(7, 1, LONG_TTL)).toBe(true);
        expect(await c.acquireStartLock(7, 2, LONG_TTL)).toBe(false);
        await c.clearStartLock(8, 1); // none held: nothing happens
      });

      it('frees itself when its TTL runs out', async () => {
        expect(await c.acquireStartLock(5, 1, shortTtl)).toBe(true);
        expect(await c.acquireStartLock(5, 1, shortTtl)).toBe(false);
        await elapse(shortTtl);
        expect(await c.acquireStartLock(5, 1, LONG_TTL)).toBe(true);
      });
    });

    describe('leader lease', () => {
      it('is exclusive, renews for its holder with the same token, and is released only by it', async () => {
        const token = await c.acquireLease('leader', 'a', LONG_TTL);
        expect(token).toEqual(expect.any(Number));
        expect(await c.acquireLease('leader', 'a', LONG_TTL)).toBe(token);
        expect(await c.acquireLease('leader', 'b', LONG_TTL)).toBeNull();
        expect(await c.acquireLease('other', 'b', LONG_TTL)).toEqual(expect.any(Number));
        await c.releaseLease('leader', 'b');
        expect(await c.acquireLease('leader', 'b', LONG_TTL)).toBeNull();
        await c.releaseLease('leader', 'a');
        const next = await c.acquireLease('leader', 'b', LONG_TTL);
        expect(next).toBeGreaterThan(token!);
        await c.releaseLease('leader', 'b');
        expect(await c.acquireLease('leader', 'a', LONG_TTL)).toBeGreaterThan(next!);
      });

      it('passes to another holder after expiry with a strictly greater token', async () => {
        const first = await c.acquireLease('leader', 'a', shortTtl);
        expect(first).not.toBeNull();
        expect(await c.acquireLease('leader', 'b', shortTtl)).toBeNull();
        await elapse(shortTtl);
        const second = await c.acquireLease('leader', 'b', LONG_TTL);
        expect(second).toBeGreaterThan(first!);
        expect(await c.acquireLease('leader', 'a', LONG_TTL)).toBeNull();
      });

      it('names its holder while held, and nobody once released or expired', async () => {
        expect(await c.leaseHolder('leader')).toBeNull();
        await c.acquireLease('leader', 'node-a:42|x', LONG_TTL);
        expect(await c.leaseHolder('leader')).toBe('node-a:42|x');
        expect(await c.leaseHolder('other')).toBeNull();
        await c.releaseLease('leader', 'node-b:7');
        expect(await c.leaseHolder('leader')).toBe('node-a:42|x');
        await c.releaseLease('leader', 'node-a:42|x');
        expect(await c.leaseHolder('leader')).toBeNull();
        await c.acquireLease('leader', 'node-b:7', shortTtl);
        expect(await c.leaseHolder('leader')).toBe('node-b:7');
        await elapse(shortTtl);
        expect(await c.leaseHolder('leader')).toBeNull();
      });

      it('stays with a holder that renews before expiry', async () => {
        const token = await c.acquireLease('leader', 'a', shortTtl);
        expect(await c.acquireLease('leader', 'a', LONG_TTL)).toBe(token);
        await elapse(shortTtl);
        expect(await c.acquireLease('leader', 'b', LONG_TTL)).toBeNull();
        expect(await c.acquireLease('leader', 'a', LONG_TTL)).toBe(token);
      });
    });

    describe('publish and subscribe', () => {
      it('fans out to every subscriber in order, and stops after unsubscribe', async () => {
        const seenA: EngineEvent[] = [];
        const seenB: EngineEvent[] = [];
        const offA = await c.subscribe((e) => seenA.push(e));
        await c.subscribe((e) => seenB.push(e));
        // enough events that a cluster delivering them through different nodes would swap some
        const events = Array.from({ length: 40 }, (_, k) => logEvent(k + 1));
        for (const e of events) await c.publish(e);
        await waitFor(() => seenA.length === 40 && seenB.length === 40, {
          message: 'both subscribers to get 40 events',
        });
        expect(seenA).toEqual(events);
        expect(seenB).toEqual(seenA);

        offA();
        await c.publish(logEvent(41));
        // B getting event 41 proves it was delivered; A, unsubscribed, must not have it
        await waitFor(() => seenB.length === 41, { message: 'the remaining subscriber to get event 41' });
        expect(seenA).toHaveLength(40);
      });

      it('keeps delivering to the others when one subscriber throws', async () => {
        const seen: EngineEvent[] = [];
        await c.subscribe(() => {
          throw new Error('subscriber failure (expected by the test)');
        });
        await c.subscribe((e) => seen.push(e));
        const alert: EngineEvent = { type: 'alert', message: 'queue w1 over 1000', at: 5 };
        await expect(c.publish(alert)).resolves.toBeUndefined();
        await c.publish(logEvent(1));
        await waitFor(() => seen.length === 2, { message: 'the healthy subscriber to get both events' });
        expect(seen).toEqual([alert, logEvent(1)]);
      });

      it('gives an instanceStates subscriber only the instance events in those states', async () => {
        const cancels: EngineEvent[] = [];
        const all: EngineEvent[] = [];
        await c.subscribe((e) => cancels.push(e), { instanceStates: ['CANCELLED'] });
        await c.subscribe((e) => all.push(e));
        const instance = (state: 'RUNNING' | 'CANCELLED', instanceId: number): EngineEvent => ({
          type: 'instance',
          instanceId,
          runId: 1,
          taskName: 'extract',
          attempt: 1,
          state,
          at: 10,
        });
        await c.publish(instance('RUNNING', 1));
        await c.publish(logEvent(1));
        await c.publish(instance('CANCELLED', 2));
        await c.publish({ type: 'run', runId: 1, workflowName: 'etl', state: 'CANCELLED', at: 11 });
        await waitFor(() => all.length === 4, { message: 'the plain subscriber to get all 4 events' });
        expect(cancels).toEqual([instance('CANCELLED', 2)]);
      });

      it('gives a fromOthers subscriber none of the events published through its own coordinator', async () => {
        const others: EngineEvent[] = [];
        const all: EngineEvent[] = [];
        await c.subscribe((e) => others.push(e), { fromOthers: true });
        await c.subscribe((e) => all.push(e));
        await c.publish(logEvent(1));
        await waitFor(() => all.length === 1, { message: 'the plain subscriber to get the event' });
        expect(others).toEqual([]);
      });
    });
  });
}
