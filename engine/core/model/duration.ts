// Durations as people write them in workflow files: "500ms", "90s", "30m", "1h30m", "2d".
import { MAX_DURATION_MS } from '../../api/types.ts';

const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PART = /(\d+(?:\.\d+)?)(ms|s|m|h|d)/gy;

/** Parses a duration; returns an error message (saying what is accepted) instead of throwing. */
export function parseDuration(text: string): { ms: number } | { error: string } {
  const input = text.trim();
  const hint = `"${text}" is not a duration: write a number with a unit, e.g. "500ms", "90s", "30m", "1h30m", "2d"`;
  if (input === '') return { error: hint };
  PART.lastIndex = 0;
  let total = 0;
  let end = 0;
  for (let m = PART.exec(input); m; m = PART.exec(input)) {
    total += Number(m[1]) * (UNITS[m[2] as string] as number);
    end = PART.lastIndex;
  }
  if (end !== input.length) return { error: hint };
  if (total > MAX_DURATION_MS) return { error: `"${text}" is longer than the longest duration AX accepts, 365d` };
  return { ms: Math.round(total) };
}

/** The canonical text of a duration: largest units first, e.g. 5_400_000 → "1h30m" (one writer: the reasons catalogue's). */
export { englishDuration as formatDuration } from '../../api/reasons.ts';
