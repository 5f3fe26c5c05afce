// The Redis URL checked before anything connects (with the fix named), and shown without its password.
import { decodeUrlPart, parseConnectionUrl } from '../connection-url.ts';
import { AxError } from '../../api/errors.ts';

/** Refuses a Redis URL ioredis would misread or throw a URIError on, naming the fix. */
export function checkRedisUrl(url: string): void {
  const what = 'Redis URL';
  const parsed = parseConnectionUrl(url, what, redactRedisUrl(url), 'redis://[:PASSWORD@]HOST:PORT[/DB]');
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:') {
    throw new AxError(
      'validation',
      `bad Redis URL "${redactRedisUrl(url)}": it must start with redis:// (or rediss:// for TLS)`,
    );
  }
  decodeUrlPart(parsed.username, 'user', what, redactRedisUrl(url));
  decodeUrlPart(parsed.password, 'password', what, redactRedisUrl(url));
}

/** Refuses what a Redis Cluster URL cannot have: a database other than 0. */
export function checkClusterUrl(url: string): void {
  checkRedisUrl(url);
  const database = new URL(url).pathname.replace(/^\//, '');
  if (database !== '' && database !== '0') {
    throw new AxError(
      'validation',
      `bad Redis URL "${redactRedisUrl(url)}": a Redis Cluster has only database 0, so drop "/${database}" (use --redis-prefix to keep teams apart)`,
    );
  }
}

/** The URL without its password, for messages. */
export function redactRedisUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
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
