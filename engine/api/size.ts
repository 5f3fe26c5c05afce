// Sizes as people write them for the log limit: "50MB", "512KB", "1.5GB", or a whole number of
// bytes. Units are binary (1 KB = 1024 bytes), as the limit's notices print them.
import { MAX_LOG_LIMIT, MIN_LOG_LIMIT } from './types.ts';

export { MAX_LOG_LIMIT, MIN_LOG_LIMIT };

const UNITS: Record<string, number> = {
  b: 1,
  kb: 1024,
  k: 1024,
  kib: 1024,
  mb: 1024 ** 2,
  m: 1024 ** 2,
  mib: 1024 ** 2,
  gb: 1024 ** 3,
  g: 1024 ** 3,
  gib: 1024 ** 3,
  tb: 1024 ** 4,
  tib: 1024 ** 4,
};
const SIZE = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i;

/** Parses a size (text or a number of bytes); an error message saying what is accepted instead of throwing. */
export function parseSize(value: unknown): { bytes: number } | { error: string } {
  const shown = typeof value === 'string' ? `"${value}"` : String(value);
  const hint = `${shown} is not a size: write a number of bytes or a number with KB, MB or GB, e.g. "50MB"`;
  let bytes: number;
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) return { error: `${hint} (a number alone is whole bytes)` };
    bytes = value;
  } else if (typeof value === 'string') {
    const m = SIZE.exec(value.trim());
    const unit = UNITS[(m?.[2] ?? '').toLowerCase() || 'b'];
    if (!m || unit === undefined) return { error: hint };
    bytes = Math.round(Number(m[1]) * unit);
  } else return { error: hint };
  if (bytes < MIN_LOG_LIMIT) return { error: `${shown} is below the smallest log limit, 1KB` };
  if (bytes > MAX_LOG_LIMIT) return { error: `${shown} is over the largest log limit, 1024TB` };
  return { bytes };
}

/** The canonical text of a size: the largest unit it is a whole number of, e.g. 52428800 → "50MB"; else bytes. */
export function formatSize(bytes: number): string {
  for (const [unit, size] of [
    ['TB', 1024 ** 4],
    ['GB', 1024 ** 3],
    ['MB', 1024 ** 2],
    ['KB', 1024],
  ] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return String(bytes);
}

/** A size for people to read in a notice, rounded: "1.5 MB", "857.1 KB", "12 bytes". */
export function readableSize(bytes: number): string {
  const round = (n: number) => n.toFixed(1).replace(/\.0$/, '');
  if (bytes >= 1024 ** 3) return `${round(bytes / 1024 ** 3)} GB`;
  if (bytes >= 1024 ** 2) return `${round(bytes / 1024 ** 2)} MB`;
  if (bytes >= 1024) return `${round(bytes / 1024)} KB`;
  return `${bytes} bytes`;
}
