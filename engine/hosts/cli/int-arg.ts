// Every numeric flag and argument of `ax` goes through one parser, so that "--port 99999",
// "-n abc" or "--concurrency 0" are refused up front with the valid range (exit 2), instead of
// a stack trace from deep inside, or a silent hang.
import { AxError } from '../../api/errors.ts';

/** worker slots of one engine: the seed recommends 8-20; the bound only catches typos */
export const MAX_CONCURRENCY = 1000;

/** 365 days in seconds: the longest wait any flag accepts. */
export const MAX_SECONDS = 365 * 24 * 3600;

/**
 * A commander parser for an integer from min to max (a whole decimal number: "1e3", "0x10",
 * "8.5" and "" are refused). Without max, any integer from min up (ids).
 */
export function intArg(name: string, min: number, max?: number): (value: string) => number {
  return (value: string) => {
    const n = /^\s*\d+\s*$/.test(value) ? Number(value) : NaN;
    if (Number.isSafeInteger(n) && n >= min && (max === undefined || n <= max)) return n;
    const range =
      max === undefined
        ? min === 1
          ? 'a positive integer'
          : `an integer from ${min} up`
        : `an integer from ${min} to ${max}`;
    throw new AxError('validation', `${name} must be ${range}, got "${value}"`);
  };
}
