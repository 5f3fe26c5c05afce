// "Did you mean" hints for a mistyped key or task name: the closest candidate within a small
// edit distance, or none (a guess far off misleads more than it helps).

/** Levenshtein distance, for "did you mean" hints. */
function distance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row.push(Math.min((prev[j] as number) + 1, (row[j - 1] as number) + 1, (prev[j - 1] as number) + cost));
    }
    prev = row;
  }
  return prev[b.length] as number;
}

export function closest(word: string, candidates: readonly string[]): string | undefined {
  const limit = word.length > 5 ? 2 : 1;
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = distance(word.toLowerCase(), c.toLowerCase());
    if (d <= limit && d < bestD) [best, bestD] = [c, d];
  }
  return best;
}
