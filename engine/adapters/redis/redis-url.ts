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

/** The URL without its password, for messages. */
export function redactRedisUrl(url: string): string {
  return url.replace(/(\/\/[^:/@]*:)[^@]*@/, '$1***@');
}
