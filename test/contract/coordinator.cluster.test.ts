// The Coordinator on a Redis Cluster the test starts (six redis-server processes: three masters,
// three replicas): the whole contract suite, detection from the server, and the master of the
// team's slot SIGKILLed while messages wait in a queue — its replica is promoted and the
// coordinator carries on with nothing lost or doubled; and a list of seed URLs whose first seed
// is a killed node.
import { afterAll, describe, expect, it } from 'vitest';
import { RedisCoordinator } from '../../engine/adapters/redis/redis-coordinator.ts';
import { openRedisCoordinator } from '../../engine/adapters/redis/redis-open.ts';
import type { DispatchMessage } from '../../engine/ports/coordinator.ts';
import { clusterToolsAvailable, LocalRedisCluster } from '../helpers/redis-cluster.ts';
import { REDIS_URL, uniqueName } from '../helpers/services.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { coordinatorContract } from './coordinator.contract.ts';

const available = clusterToolsAvailable();

let started: Promise<LocalRedisCluster> | undefined;
/** One cluster for the file, started by the first test that needs it. */
const cluster = (): Promise<LocalRedisCluster> => (started ??= LocalRedisCluster.start());

afterAll(async () => {
  if (started) await (await started).stop();
}, 60_000);

const msg = (instanceId: number): DispatchMessage => ({
  instanceId,
  attempt: 1,
  workerId: 'w1',
  dispatchedAt: 1_700_000_000_000 + instanceId,
});

if (!available) {
  describe('Coordinator contract: redis cluster', () => {
    // Not under CI (clusterToolsAvailable throws there): a developer machine without Redis.
    it.skip('needs redis-server and redis-cli to start a local cluster', () => undefined);
  });
} else {
  // Every test on its own prefix, so its keys sit under their own hash tag (often another master).
  coordinatorContract('redis cluster', async () => {
    const { url } = await cluster();
    const coordinator = new RedisCoordinator({ url, prefix: `${uniqueName('axtest')}:`, cluster: true });
    return { coordinator, teardown: () => coordinator.close() };
  });

  describe('Redis Cluster: detection and fail-over', () => {
    it('detects a cluster from the server and tags the prefix; a single Redis keeps its prefix', async () => {
      const { url } = await cluster();
      const onCluster = await openRedisCoordinator({ url, prefix: 'team_a:' });
      const single = await openRedisCoordinator({ url: REDIS_URL, prefix: 'team_a:' });
      try {
        expect(onCluster.keyPrefix).toBe('{team_a}:');
        expect(single.keyPrefix).toBe('team_a:');
      } finally {
        await Promise.all([onCluster.close(), single.close()]);
      }
    }, 120_000);

    it('a single-Redis client on a cluster node is told to set --redis-cluster', async () => {
      const { url } = await cluster();
      const forced = await openRedisCoordinator({ url, prefix: `${uniqueName('axtest')}:`, cluster: false });
      try {
        // Some worker ids hash to this node's slots; one of a few surely does not.
        const answers = await Promise.allSettled(['a', 'b', 'c', 'd', 'e', 'f'].map((w) => forced.queueLength(w)));
        const refused = answers.find((a) => a.status === 'rejected');
        expect(String(refused?.status === 'rejected' && refused.reason)).toMatch(/--redis-cluster/);
      } finally {
        await forced.close();
      }
    }, 120_000);

    it('a cluster client on a single Redis is told to drop --redis-cluster', async () => {
      const forced = new RedisCoordinator({ url: REDIS_URL, prefix: `${uniqueName('axtest')}:`, cluster: true });
      try {
        await expect(forced.listWorkers()).rejects.toThrow(/not a cluster, so drop --redis-cluster/);
      } finally {
        await forced.close();
      }
    }, 60_000);

    it("the master of the team's slot killed: its replica takes over, every message taken once", async () => {
      const local = await cluster();
      const prefix = `${uniqueName('axfail')}:`;
      const c = new RedisCoordinator({ url: local.url, prefix, cluster: true });
      try {
        await c.enqueue('w1', msg(1));
        await c.enqueue('w1', msg(2));
        const token = await c.acquireLease('scheduler', 'node-a', 60_000);
        // Written before the kill and acknowledged: a replica has it once the master's WAIT says so.
        const queueKey = `${c.keyPrefix}q:w1`;
        const master = await local.masterOf(queueKey);
        await waitFor(() => local.replicated(master), { timeoutMs: 10_000, message: 'the replica to catch up' });
        await local.kill(master);
        // Calls during the fail-over fail (the engine retries them) until the replica is promoted.
        const taken: DispatchMessage[] = [];
        await waitFor(
          async () => {
            taken.push(...(await c.take('w1', 10)));
            return true;
          },
          { timeoutMs: 30_000, intervalMs: 200, message: 'the coordinator to work again after the fail-over' },
        );
        expect(await local.waitPromoted(queueKey, master)).not.toBe(master);
        await c.enqueue('w1', msg(3));
        taken.push(...(await c.take('w1', 10)));
        expect(taken.map((m) => m.instanceId).sort()).toEqual([1, 2, 3]);
        // The lease and its fencing token survived on the replica: the holder renews with the same token.
        expect(await c.acquireLease('scheduler', 'node-a', 60_000)).toBe(token);
        expect(await c.acquireLease('scheduler', 'node-b', 60_000)).toBeNull();
      } finally {
        await c.close();
      }
    }, 180_000);

    // Last: it kills a replica, which must not be the one a master killed above needs.
    it('several seed URLs, the first a killed node: the coordinator starts on the others and works', async () => {
      const local = await cluster();
      const [down] = await local.replicaPorts();
      if (down === undefined) throw new Error('no live replica to kill');
      await local.kill(down);
      const live = local.livePorts.filter((p) => p !== down).slice(0, 2);
      const url = [down, ...live].map((p) => `redis://127.0.0.1:${p}`).join(',');
      // No cluster setting: several seeds say it is a cluster; nothing asks the dead one first.
      const c = await openRedisCoordinator({ url, prefix: `${uniqueName('axseed')}:` });
      try {
        expect(c.keyPrefix).toMatch(/^\{axseed_/);
        await c.enqueue('w1', msg(7));
        await c.enqueue('w1', msg(8));
        expect((await c.take('w1', 10)).map((m) => m.instanceId).sort()).toEqual([7, 8]);
        expect(await c.acquireLease('scheduler', 'node-a', 60_000)).not.toBeNull();
      } finally {
        await c.close();
      }
    }, 120_000);
  });
}
