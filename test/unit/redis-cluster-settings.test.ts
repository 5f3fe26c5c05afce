// How a team's prefix becomes a Redis Cluster hash tag, and how AX_REDIS_CLUSTER and a cluster
// URL are read: pure functions, no Redis.
import { describe, expect, it } from 'vitest';
import { clusterPrefix } from '../../engine/adapters/redis/redis-keys.ts';
import { checkClusterUrl, clusterSetting } from '../../engine/adapters/redis/redis-url.ts';

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
