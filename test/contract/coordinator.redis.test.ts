// The Coordinator contract on Redis: TTLs in real time (no `advance`: Redis keeps its own clock),
// a fresh key prefix per test so files and tests can share the machine's Redis.
import { describe, it } from 'vitest';
import { RedisCoordinator } from '../../engine/adapters/redis/redis-coordinator.ts';
import { deleteRedisPrefix, redisAvailable, REDIS_URL, uniqueName } from '../helpers/services.ts';
import { coordinatorContract } from './coordinator.contract.ts';

const available = await redisAvailable();

if (!available) {
  describe('Coordinator contract: redis', () => {
    // Not under CI (redisAvailable throws there): a developer machine without Redis.
    it.skip(`needs Redis at ${REDIS_URL} (set AX_TEST_REDIS_URL)`, () => undefined);
  });
} else {
  coordinatorContract('redis', async () => {
    const prefix = `${uniqueName('axtest')}:`;
    const coordinator = new RedisCoordinator({ url: REDIS_URL, prefix });
    return {
      coordinator,
      teardown: async () => {
        await coordinator.close();
        await deleteRedisPrefix(prefix);
      },
    };
  });
}
