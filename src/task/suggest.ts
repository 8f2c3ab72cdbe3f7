/**
 * "Did you mean" suggestions: the closest allowed word by edit distance, offered only when it
 * is close enough to be a plausible typo.
 */

/**
 * Edit distance (Levenshtein with adjacent transpositions, the "optimal string alignment"
 * variant), case-insensitive: `titel` is one edit from `title`, as a typist would count it.
 */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase();
  const t = b.toLowerCase();
  const d: number[][] = Array.from({ length: s.length + 1 }, (_, i) => [i, ...Array<number>(t.length).fill(0)]);
  for (let j = 1; j <= t.length; j++) d[0][j] = j;
  for (let i = 1; i <= s.length; i++) {
    for (let j = 1; j <= t.length; j++) {
      const cost = s[i - 1] === t[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && s[i - 1] === t[j - 2] && s[i - 2] === t[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[s.length][t.length];
}

/**
 * The allowed word closest to `word`, or undefined when none is within a third of the word's
 * length (at least 1, at most 3 edits): far guesses mislead more than they help.
 */
export function closest(word: string, allowed: Iterable<string>): string | undefined {
  const budget = Math.min(3, Math.max(1, Math.floor(word.length / 3)));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of allowed) {
    const distance = editDistance(word, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return bestDistance <= budget ? best : undefined;
}

/** `did you mean 'click'?` or undefined. */
export function didYouMean(word: string, allowed: Iterable<string>): string | undefined {
  const match = closest(word, allowed);
  return match === undefined ? undefined : `did you mean '${match}'?`;
}
