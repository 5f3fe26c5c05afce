// The Redis URL checked before anything connects (with the fix named), and shown without its password.
import { decodeUrlPart, parseConnectionUrl } from '../connection-url.ts';
import { AxError } from '../../api/errors.ts';

const SEEDS_EXAMPLE = 'redis://10.0.0.1:7000,redis://10.0.0.2:7000';

/**
 * The URLs of a Redis setting: one URL, or the seeds of a Redis Cluster separated by commas
 * (the client tries them in turn, so a node starts while one of them is down). A comma inside
 * one URL's password, where the whole is one valid URL, stays that URL's.
 */
export function redisSeeds(value: string): string[] {
  if (!value.includes(',')) return [value];
  const parts = value.split(',').map((p) => p.trim());
  if (parts.slice(1).some((p) => !p.includes('://')) && oneUrl(value)) return [value];
  const list = redactRedisUrl(value);
  parts.forEach((p, i) => {
    if (p === '')
      throw new AxError(
        'validation',
        `bad Redis URL list "${list}": seed ${i + 1} of ${parts.length} is empty: separate the seeds' URLs with single commas, e.g. ${SEEDS_EXAMPLE}`,
      );
    if (!/^rediss?:\/\//.test(p))
      throw new AxError(
        'validation',
        `bad Redis URL list "${list}": seed ${i + 1} "${redactRedisUrl(p)}" does not start with redis:// (or rediss://): write every seed as a whole URL, e.g. ${SEEDS_EXAMPLE}`,
      );
  });
  return parts;
}

function oneUrl(value: string): boolean {
  try {
    return !new URL(value).host.includes(',');
  } catch {
    return false;
  }
}

/** Refuses a Redis URL (or a list of seeds) ioredis would misread or throw a URIError on, naming the fix. */
export function checkRedisUrl(value: string): void {
  const seeds = redisSeeds(value);
  seeds.forEach((url, i) => checkOneUrl(url, seeds.length > 1 ? ` (seed ${i + 1} of ${seeds.length})` : ''));
  // One client connects to every seed (and the nodes it learns of) with one scheme and one password.
  const first = new URL(seeds[0] as string);
  const other = seeds.findIndex((url) => {
    const u = new URL(url);
    return u.protocol !== first.protocol || u.username !== first.username || u.password !== first.password;
  });
  if (other > 0)
    throw new AxError(
      'validation',
      `bad Redis URL list "${redactRedisUrl(value)}": seed ${other + 1} differs from seed 1 in its scheme, user or password; the seeds of one cluster share them (redis:// or rediss://, one user and password)`,
    );
}

function checkOneUrl(url: string, which: string): void {
  const what = `Redis URL${which}`;
  const parsed = parseConnectionUrl(url, what, redactRedisUrl(url), 'redis://[:PASSWORD@]HOST:PORT[/DB]');
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new AxError(
      'validation',
      `bad ${what} "${redactRedisUrl(url)}": it must start with redis:// (or rediss:// for TLS)`,
    );
  }
  decodeUrlPart(parsed.username, 'user', what, redactRedisUrl(url));
  decodeUrlPart(parsed.password, 'password', what, redactRedisUrl(url));
}

/** Refuses what a Redis Cluster URL cannot have: a database other than 0. */
export function checkClusterUrl(value: string): void {
  checkRedisUrl(value);
  for (const url of redisSeeds(value)) {
    const database = new URL(url).pathname.replace(/^\//, '');
    if (database !== '' && database !== '0') {
      throw new AxError(
        'validation',
        `bad Redis URL "${redactRedisUrl(url)}": a Redis Cluster has only database 0, so drop "/${database}" (use --redis-prefix to keep teams apart)`,
      );
    }
  }
}

/** Refuses several seeds for what is a single Redis (AX_REDIS_CLUSTER=0). */
export function checkSingleRedisUrl(value: string): void {
  if (redisSeeds(value).length > 1)
    throw new AxError(
      'validation',
      `several Redis URLs ("${redactRedisUrl(value)}") are the seeds of a Redis Cluster, but AX_REDIS_CLUSTER=0 says this is a single Redis: give one URL, or drop AX_REDIS_CLUSTER=0`,
    );
}

/** The URL (each URL of a list) without its password, for messages. */
export function redactRedisUrl(url: string): string {
  return url
    .split(/,(?=\s*rediss?:\/\/)/)
    .map((u) => u.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@'))
    .join(',');
}

/** AX_REDIS_CLUSTER as a setting: "1"/"true" forces cluster mode, "0"/"false" a single Redis, unset asks the server. */
export function clusterSetting(value: string | undefined): boolean | undefined {
  if (value === undefined || value === '') return undefined;
  if (['1', 'true', 'yes'].includes(value.toLowerCase())) return true;
  if (['0', 'false', 'no'].includes(value.toLowerCase())) return false;
  throw new AxError(
    'validation',
    `AX_REDIS_CLUSTER="${value}" is neither 1 nor 0: set 1 for a Redis Cluster, 0 for a single Redis, or leave it unset to ask the server`,
  );
}
