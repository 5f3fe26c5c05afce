// How a team's prefix becomes a Redis Cluster hash tag, and how AX_REDIS_CLUSTER, a cluster URL
// and a list of seed URLs are read: pure functions, no Redis.
import { describe, expect, it } from 'vitest';
import { clusterPrefix } from '../../engine/adapters/redis/redis-keys.ts';
import { detectRedisCluster } from '../../engine/adapters/redis/redis-open.ts';
import {
  checkClusterUrl,
  checkRedisUrl,
  clusterSetting,
  redactRedisUrl,
  redisSeeds,
} from '../../engine/adapters/redis/redis-url.ts';
import { maskUrl } from '../../engine/api/mask-url.ts';

describe('clusterPrefix', () => {
  it('wraps the prefix as a hash tag, keeping a trailing colon outside it', () => {
    expect(clusterPrefix('ax:')).toBe('{ax}:');
    expect(clusterPrefix('team1')).toBe('{team1}');
    expect(clusterPrefix('a:b:')).toBe('{a:b}:');
  });

  it('keeps a prefix that already holds a tag', () => {
    expect(clusterPrefix('{blue}:')).toBe('{blue}:');
    expect(clusterPrefix('ax:{blue}:')).toBe('ax:{blue}:');
  });

  it('refuses a prefix that cannot make a tag, naming the fix', () => {
    for (const bad of ['', ':', 'a{}:', 'x}y:'])
      expect(() => clusterPrefix(bad)).toThrow(/cannot be a Redis Cluster hash tag/);
  });
});

describe('AX_REDIS_CLUSTER and cluster URLs', () => {
  it('reads 1/0 (and true/false, yes/no); unset asks the server', () => {
    expect(clusterSetting(undefined)).toBeUndefined();
    expect(clusterSetting('')).toBeUndefined();
    expect(clusterSetting('1')).toBe(true);
    expect(clusterSetting('TRUE')).toBe(true);
    expect(clusterSetting('0')).toBe(false);
    expect(clusterSetting('no')).toBe(false);
    expect(() => clusterSetting('maybe')).toThrow(/AX_REDIS_CLUSTER="maybe" is neither 1 nor 0/);
  });

  it('refuses a database other than 0 on a cluster, without the password', () => {
    expect(() => checkClusterUrl('redis://:pw@node:7000/0')).not.toThrow();
    expect(() => checkClusterUrl('redis://node:7000')).not.toThrow();
    expect(() => checkClusterUrl('redis://:pw@node:7000/2')).toThrow(/only database 0, so drop "\/2"/);
    expect(() => checkClusterUrl('redis://:pw@node:7000/2')).toThrow(/redis:\/\/:\*\*\*@node:7000\/2/);
  });
});

describe('seed lists: several URLs of one Redis Cluster', () => {
  const two = 'redis://:pw@10.0.0.1:7000,redis://:pw@10.0.0.2:7001';

  it('splits on commas (spaces around them allowed); one URL is one seed', () => {
    expect(redisSeeds(two)).toEqual(['redis://:pw@10.0.0.1:7000', 'redis://:pw@10.0.0.2:7001']);
    expect(redisSeeds('redis://a:1 , redis://b:2')).toEqual(['redis://a:1', 'redis://b:2']);
    expect(redisSeeds('redis://node:7000')).toEqual(['redis://node:7000']);
    // a comma in a password, where the whole is one valid URL, is that password's
    expect(redisSeeds('redis://:a,b@node:6379')).toEqual(['redis://:a,b@node:6379']);
    expect(() => checkRedisUrl(two)).not.toThrow();
    expect(() => checkClusterUrl(two)).not.toThrow();
  });

  it('refuses a malformed list naming the seed and the fix, without the passwords', () => {
    expect(() => checkRedisUrl('redis://a:7000,,redis://b:7001')).toThrow(
      /seed 2 of 3 is empty: separate the seeds' URLs with single commas/,
    );
    expect(() => checkRedisUrl('redis://a:7000,')).toThrow(/seed 2 of 2 is empty/);
    expect(() => checkRedisUrl('redis://:pw@a:7000,b:7001')).toThrow(
      /seed 2 "b:7001" does not start with redis:\/\/ .*write every seed as a whole URL/,
    );
    expect(() => checkRedisUrl('redis://:pw@a:7000,http://b:7001')).toThrow(/seed 2 "http:\/\/b:7001"/);
    expect(() => checkRedisUrl('redis://:pw@a:7000,redis://:other@b:7001')).toThrow(
      /seed 2 differs from seed 1 in its scheme, user or password/,
    );
    expect(() => checkRedisUrl('redis://a:7000,rediss://b:7001')).toThrow(/seed 2 differs from seed 1/);
    expect(() => checkClusterUrl('redis://a:7000,redis://b:7001/3')).toThrow(/only database 0, so drop "\/3"/);
    for (const bad of ['redis://:pw@a:7000,,redis://:pw@b:7001', 'redis://:pw@a:7000,redis://:other@b:7001'])
      expect(() => checkRedisUrl(bad)).toThrow(/redis:\/\/:\*\*\*@a:7000/);
    expect(() => checkRedisUrl('redis://:pw@a:7000,redis://:other@b:7001')).not.toThrow(/pw|other/);
  });

  it('shows every seed without its password', () => {
    expect(redactRedisUrl(two)).toBe('redis://:***@10.0.0.1:7000,redis://:***@10.0.0.2:7001');
    expect(maskUrl(two)).toBe('redis://:***@10.0.0.1:7000,redis://:***@10.0.0.2:7001');
  });

  it('several seeds are a cluster without asking; with AX_REDIS_CLUSTER=0 they are refused', async () => {
    // No server is asked: these addresses are not reachable, and the answer comes at once.
    expect(await detectRedisCluster('redis://127.0.0.1:1,redis://127.0.0.1:2', undefined)).toBe(true);
    await expect(detectRedisCluster('redis://127.0.0.1:1,redis://127.0.0.1:2', false)).rejects.toThrow(
      /are the seeds of a Redis Cluster, but AX_REDIS_CLUSTER=0 says this is a single Redis/,
    );
  });
});
