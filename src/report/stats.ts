/**
 * The statistics behind comparisons. Agent runs are noisy (temperature 0.8), so every pass rate
 * comes with an interval and every difference with a test. All functions are pure; the bootstrap
 * takes a seed so the same data always gives the same interval.
 */

/** z for a two-sided 95% interval. */
export const Z95 = 1.959963984540054;

export interface Interval {
  low: number;
  high: number;
}

/**
 * Wilson score interval for a binomial proportion: sensible at 0/n and n/n, unlike the normal
 * approximation. 8/10 -> [0.4902, 0.9433]. With n = 0 nothing is known: [0, 1].
 */
export function wilson(successes: number, n: number, z: number = Z95): Interval {
  if (n <= 0) return { low: 0, high: 1 };
  const p = successes / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denominator;
  // At 0/n and n/n the bound is exactly 0 or 1; say so rather than 0.9999999999999999.
  return {
    low: successes === 0 ? 0 : Math.max(0, centre - half),
    high: successes === n ? 1 : Math.min(1, centre + half),
  };
}

function assertCounts(n: number, c: number, k: number): void {
  if (!Number.isInteger(n) || !Number.isInteger(c) || !Number.isInteger(k) || n < 0 || c < 0 || c > n || k < 1) {
    throw new RangeError(`pass@k needs integers 0 <= c <= n and k >= 1 (got n=${n}, c=${c}, k=${k})`);
  }
}

/**
 * pass@k: the chance that at least one of k trials drawn without replacement from n (c of which
 * passed) passes; the unbiased estimator 1 - C(n-c, k) / C(n, k), computed as a product so that
 * large n does not overflow. Null when k > n (not estimable).
 */
export function passAtK(n: number, c: number, k: number): number | null {
  assertCounts(n, c, k);
  if (k > n) return null;
  if (n - c < k) return 1;
  let allFail = 1; // C(n-c, k) / C(n, k) = prod_{i=0}^{k-1} (n-c-i) / (n-i)
  for (let i = 0; i < k; i++) allFail *= (n - c - i) / (n - i);
  return 1 - allFail;
}

/**
 * pass^k: the chance that all of k trials drawn without replacement pass, C(c, k) / C(n, k).
 * It measures reliability where pass@k measures capability. Null when k > n.
 */
export function passHatK(n: number, c: number, k: number): number | null {
  assertCounts(n, c, k);
  if (k > n) return null;
  if (c < k) return 0;
  let allPass = 1;
  for (let i = 0; i < k; i++) allPass *= (c - i) / (n - i);
  return allPass;
}

/** P(X <= x) for X ~ Binomial(n, 1/2), summed exactly enough for n in the thousands. */
function binomialHalfCdf(x: number, n: number): number {
  // Work in logs: C(n, i) / 2^n underflows for large n otherwise.
  let logTerm = -n * Math.LN2; // i = 0: C(n,0) / 2^n
  let total = Math.exp(logTerm);
  for (let i = 1; i <= x; i++) {
    logTerm += Math.log((n - i + 1) / i);
    total += Math.exp(logTerm);
  }
  return total;
}

/**
 * Exact McNemar test (the sign test on discordant pairs): `b` pairs passed only in A, `c` only in B.
 * Under no difference each discordant pair is a fair coin, so the two-sided p-value is
 * min(1, 2 * P(X <= min(b, c))) with X ~ Binomial(b + c, 1/2). No discordant pairs -> 1.
 * b = 0, c = 6 -> 0.03125; b = 1, c = 9 -> 0.021484375.
 */
export function mcnemarExact(b: number, c: number): number {
  const n = b + c;
  if (n === 0) return 1;
  return Math.min(1, 2 * binomialHalfCdf(Math.min(b, c), n));
}

/**
 * One task's repeats paired in repeat order for McNemar: b pairs passed only on the base side, c only
 * on the candidate's. A task whose repeats all gave one result on each side counts as ONE pair: a
 * deterministic agent's repeats are copies, and counting each would inflate McNemar's significance
 * (six copies of one flip would be p 0.03). `once` says it was so counted.
 */
export function pairRepeats(
  base: readonly boolean[],
  cand: readonly boolean[],
): { pairs: number; b: number; c: number; once: boolean } {
  const n = Math.min(base.length, cand.length);
  const constant = (xs: readonly boolean[]) => xs.every((x) => x === xs[0]);
  const once = n > 1 && constant(base) && constant(cand);
  let b = 0;
  let c = 0;
  for (let i = 0; i < (once ? 1 : n); i++) {
    if (base[i] && !cand[i]) b += 1;
    if (!base[i] && cand[i]) c += 1;
  }
  return { pairs: once ? 1 : n, b, c, once };
}

/**
 * A percentile by linear interpolation between closest ranks (NumPy's default): p50 of
 * [1, 2, 3, 4] is 2.5; p95 of 1..20 is 19.05. Null for no values.
 */
export function percentile(values: readonly number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (Math.min(100, Math.max(0, p)) / 100) * (sorted.length - 1);
  const lo = Math.floor(rank);
  const hi = Math.ceil(rank);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (rank - lo);
}

/** Arithmetic mean; null for no values. */
export function mean(values: readonly number[]): number | null {
  if (values.length === 0) return null;
  let total = 0;
  for (const v of values) total += v;
  return total / values.length;
}

/** Mulberry32: a small, fast, seedable PRNG with a full 2^32 period; returns floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One task's outcome on both sides of a paired comparison. */
export interface PairedCounts {
  basePasses: number;
  baseN: number;
  candidatePasses: number;
  candidateN: number;
}

export interface BootstrapOptions {
  iterations?: number;
  seed?: number;
  /** Two-sided confidence level, default 0.95. */
  level?: number;
}

/**
 * Percentile bootstrap interval for the difference in pass rate (candidate - base), resampling
 * whole tasks with replacement: repeats of one task are correlated, tasks are the independent
 * units. Returns the observed difference and the interval; null without tasks.
 */
export function bootstrapPassRateDiff(
  tasks: readonly PairedCounts[],
  opts: BootstrapOptions = {},
): { diff: number; low: number; high: number } | null {
  const usable = tasks.filter((t) => t.baseN > 0 && t.candidateN > 0);
  if (usable.length === 0) return null;
  const iterations = opts.iterations ?? 2000;
  const level = opts.level ?? 0.95;
  const random = seededRandom(opts.seed ?? 1);
  const diffOf = (sample: readonly PairedCounts[]) => {
    let bp = 0,
      bn = 0,
      cp = 0,
      cn = 0;
    for (const t of sample) {
      bp += t.basePasses;
      bn += t.baseN;
      cp += t.candidatePasses;
      cn += t.candidateN;
    }
    return cp / cn - bp / bn;
  };
  const diffs: number[] = new Array(iterations);
  const sample: PairedCounts[] = new Array(usable.length);
  for (let i = 0; i < iterations; i++) {
    for (let j = 0; j < usable.length; j++) sample[j] = usable[Math.floor(random() * usable.length)];
    diffs[i] = diffOf(sample);
  }
  const tail = ((1 - level) / 2) * 100;
  return { diff: diffOf(usable), low: percentile(diffs, tail)!, high: percentile(diffs, 100 - tail)! };
}
