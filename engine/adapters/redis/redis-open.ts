// Opening the team's coordinator on a single Redis or a Redis Cluster: forced by the node's
// setting (--redis-cluster, AX_REDIS_CLUSTER), or asked of the server once at start.
import { redisIsCluster } from './redis-cluster.ts';
import { RedisCoordinator, type RedisCoordinatorOptions } from './redis-coordinator.ts';
import { checkRedisUrl, checkSingleRedisUrl, redactRedisUrl, redisSeeds } from './redis-url.ts';

export type OpenRedisOptions = Omit<Extract<RedisCoordinatorOptions, { url: string }>, 'cluster'> & {
  /** true: a cluster; false: a single Redis; undefined: INFO cluster decides */
  cluster?: boolean;
  /** told when the server could not be asked (then it is taken for a single Redis, as before clusters) */
  onDetectFailed?: (message: string) => void;
};

/** how long the start of a node waits to learn whether its Redis is a cluster */
const DETECT_TIMEOUT_MS = 3_000;

/**
 * Whether the team's Redis is a cluster: forced when given, else several seed URLs say so, else
 * it is asked of the server. A node
 * must start while Redis is down (it reconnects, as it always has), so an unanswered question
 * means a single Redis; on a cluster that is wrong, and then calls say so (MOVED, with the fix).
 */
export async function detectRedisCluster(
  url: string,
  forced: boolean | undefined,
  onDetectFailed?: (message: string) => void,
): Promise<boolean> {
  checkRedisUrl(url);
  if (forced === false) checkSingleRedisUrl(url);
  if (forced !== undefined) return forced;
  if (redisSeeds(url).length > 1) return true;
  try {
    return await redisIsCluster(url, DETECT_TIMEOUT_MS);
  } catch (error) {
    onDetectFailed?.(
      `could not ask Redis at ${redactRedisUrl(url)} whether it is a cluster (${error instanceof Error ? error.message : String(error)}): using it as a single Redis; set --redis-cluster (AX_REDIS_CLUSTER=1) if it is a cluster`,
    );
    return false;
  }
}

export async function openRedisCoordinator(options: OpenRedisOptions): Promise<RedisCoordinator> {
  const { onDetectFailed, cluster, ...rest } = options;
  return new RedisCoordinator({ ...rest, cluster: await detectRedisCluster(options.url, cluster, onDetectFailed) });
}
