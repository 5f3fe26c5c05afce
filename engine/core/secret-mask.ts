// Secret values out of a task's log: every occurrence in a line becomes ***, before the line is
// stored or streamed. A value spanning lines is masked line by line too, since the log is split
// into lines before it gets here.
import { MASK_MIN_LENGTH } from '../api/secrets.ts';

export const MASK = '***';

/** A masker for these values; the identity when there is nothing to mask. */
export function secretMasker(values: string[]): (line: string) => string {
  const parts = new Set<string>();
  for (const value of values) {
    for (const part of [value, ...value.split(/\r?\n/)]) if (part.length >= MASK_MIN_LENGTH) parts.add(part);
  }
  if (parts.size === 0) return (line) => line;
  // Longest first, so a value containing another is masked whole.
  const sorted = [...parts].sort((a, b) => b.length - a.length);
  return (line) => {
    let out = line;
    for (const part of sorted) if (out.includes(part)) out = out.split(part).join(MASK);
    return out;
  };
}
