// Redis Cluster for the coordinator: whether the server is one (INFO cluster), and the ioredis
// Cluster client a coordinator uses on it. The key layout (one hash tag per team) is in
// redis-keys.ts; everything else of the coordinator is the same on both.
import { Cluster, Redis, type ClusterOptions } from 'ioredis';
import { decodeUrlPart, parseConnectionUrl } from '../connection-url.ts';
import { connectionOptions } from './redis-connection.ts';
import { checkClusterUrl, redactRedisUrl, redisSeeds } from './redis-url.ts';

/**
 * True when the Redis at url runs in cluster mode (cluster_enabled:1). One short-lived
 * connection; rejects when Redis cannot be asked within timeoutMs.
 */
export async function redisIsCluster(url: string, timeoutMs: number): Promise<boolean> {
  const probe = new Redis(url, {
    connectionName: 'ax-cluster-probe',
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    retryStrategy: () => null,
  });
  // The probe's failures are reported by the calls below; without a listener they would end the process.
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return /^cluster_enabled:1\s*$/m.test(await probe.info('cluster'));
  } finally {
    probe.disconnect();
  }
}

/**
 * An ioredis Cluster seeded with the node(s) of url, one URL or several separated by commas (it
 * asks them in turn for the slot map, so one seed may be down, and finds the others), bounded as
 * connectionOptions() bounds a single connection: per-node commands time out and are not resent
 * after a dropped link. ioredis itself retries what is safe to retry during a fail-over: a
 * command that could not be sent because its master's link is closed, a CLUSTERDOWN or TRYAGAIN
 * reply, and MOVED after a replica took over (each after a refresh of the slot map).
 */
export function clusterClient(url: string, role: string, commandTimeoutMs: number): Cluster {
  checkClusterUrl(url);
  // The seeds share scheme, user and password (checkClusterUrl): the first one's are every node's.
  const seeds = redisSeeds(url).map((seed) =>
    parseConnectionUrl(seed, 'Redis URL', redactRedisUrl(seed), 'redis://[:PASSWORD@]HOST:PORT'),
  );
  const parsed = seeds[0] as URL;
  const { connectionName, maxRetriesPerRequest, commandTimeout, connectTimeout } = connectionOptions(
    role,
    commandTimeoutMs,
  );
  const options: ClusterOptions = {
    enableOfflineQueue: false,
    clusterRetryStrategy: (attempt: number) => Math.min(100 * attempt, 1_000),
    retryDelayOnFailover: 200,
    retryDelayOnClusterDown: 200,
    retryDelayOnTryAgain: 200,
    slotsRefreshTimeout: commandTimeoutMs,
    redisOptions: {
      connectionName,
      maxRetriesPerRequest,
      commandTimeout,
      connectTimeout,
      username: parsed.username ? decodeUrlPart(parsed.username, 'user', 'Redis URL', redactRedisUrl(url)) : undefined,
      password: parsed.password
        ? decodeUrlPart(parsed.password, 'password', 'Redis URL', redactRedisUrl(url))
        : undefined,
      tls: parsed.protocol === 'rediss:' ? {} : undefined,
    },
  };
  return new Cluster(
    seeds.map((u) => ({ host: u.hostname, port: Number(u.port || 6379) })),
    options,
  );
}
