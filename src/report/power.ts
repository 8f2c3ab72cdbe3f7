/**
 * How sure a paired comparison can be: the smallest pass-rate drop the exact McNemar test the
 * comparison ran would detect (its minimum detectable effect), and the repeats a planned run needs
 * to detect a given drop. Pure functions.
 *
 * The model (Connor 1987, "Sample size for testing differences in proportions for the paired-sample
 * design", Biometrics 43:207-211): with N paired repeats, a fraction psi of them discordant and a
 * true difference delta = p10 - p01, the two-sided test at level alpha has power 1 - beta when
 *
 *   N = (z_{1-alpha/2} sqrt(psi) + z_{1-beta} sqrt(psi - delta^2))^2 / delta^2.
 *
 * Agent runs are discordant even when nothing changed: a task passing with probability p pairs
 * discordantly with chance 2p(1-p). That noise, psi0, is read from the stored repeats (the pooled
 * within-task variance); a drop of delta is modelled as turning a further fraction delta of pairs
 * from pass to fail, so psi = psi0 + delta.
 */

/** The power every "detectable" figure is stated at. */
export const DEFAULT_POWER = 0.8;
export const DEFAULT_ALPHA = 0.05;

/** Standard normal CDF (Abramowitz and Stegun 7.1.26 through erf, |error| < 1.5e-7). */
export function normalCdf(x: number): number {
  const t = 1 / (1 + (0.3275911 * Math.abs(x)) / Math.SQRT2);
  const poly = t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429))));
  const erf = 1 - poly * Math.exp(-(x * x) / 2);
  return x >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** Standard normal quantile (Acklam's rational approximation, relative error < 1.2e-9). */
export function normalQuantile(p: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`normal quantile needs 0 < p < 1 (got ${p})`);
  const a = [
    -39.69683028665376, 220.9460984245205, -275.9285104469687, 138.357751867269, -30.66479806614716, 2.506628277459239,
  ];
  const b = [-54.47609879822406, 161.5858368580409, -155.6989798598866, 66.80131188771972, -13.28068155288572];
  const c = [
    -0.007784894002430293, -0.3223964580411365, -2.400758277161838, -2.549732539343734, 4.374664141464968,
    2.938163982698783,
  ];
  const d = [0.007784695709041462, 0.3224671290700398, 2.445134137142996, 3.754408661907416];
  const tail = (q: number) =>
    (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
    ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  if (p < 0.02425) return tail(Math.sqrt(-2 * Math.log(p)));
  if (p > 1 - 0.02425) return -tail(Math.sqrt(-2 * Math.log(1 - p)));
  const q = p - 0.5;
  const r = q * q;
  return (
    ((((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q) /
    (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
  );
}

export interface PowerDesign {
  /** Discordance between two runs of the same agent (0..1): 2 p (1 - p) pooled over tasks. */
  noise: number;
  alpha?: number;
  power?: number;
}

/** Connor's N for a drop of `delta` (0..1) under `design`; Infinity when delta is 0. */
export function pairsNeeded(delta: number, design: PowerDesign): number {
  if (!(delta > 0)) return Infinity;
  const za = normalQuantile(1 - (design.alpha ?? DEFAULT_ALPHA) / 2);
  const zb = normalQuantile(design.power ?? DEFAULT_POWER);
  const psi = Math.min(1, design.noise + delta);
  const root = za * Math.sqrt(psi) + zb * Math.sqrt(Math.max(0, psi - delta * delta));
  return (root * root) / (delta * delta);
}

/**
 * The smallest drop (0..1, pass-rate fraction) that `pairs` paired repeats detect with the design's
 * power; null when not even a drop of 100 points would be (too few pairs). Bisection on Connor's N,
 * which falls as delta grows.
 */
export function minimumDetectableDrop(pairs: number, design: PowerDesign): number | null {
  if (pairs <= 0 || pairsNeeded(1, design) > pairs) return null;
  let low = 0;
  let high = 1;
  for (let i = 0; i < 60; i++) {
    const mid = (low + high) / 2;
    if (pairsNeeded(mid, design) > pairs) low = mid;
    else high = mid;
  }
  return high;
}

/** One task's counted repeats on one side. */
export interface RepeatCounts {
  passes: number;
  n: number;
}

/**
 * The discordance two runs of one unchanged agent would show: 2 x the within-task variance
 * p (1 - p), estimated without bias per task (s (n - s) / (n (n - 1))) and pooled over tasks
 * weighted by their repeats. Null when no task has two repeats (nothing to estimate it from).
 */
export function noiseDiscordance(tasks: readonly RepeatCounts[]): number | null {
  let weighted = 0;
  let weight = 0;
  for (const t of tasks) {
    if (t.n < 2) continue;
    weighted += t.n * ((t.passes * (t.n - t.passes)) / (t.n * (t.n - 1)));
    weight += t.n;
  }
  return weight === 0 ? null : (2 * weighted) / weight;
}

/** What `compare` states beside each paired result. */
export interface Detectable {
  /** The smallest drop (pass-rate fraction) detectable with `power` at `alpha`; null: none is. */
  drop: number | null;
  pairs: number;
  alpha: number;
  power: number;
  noise: number;
  /** Where `noise` came from: the stored repeats, or (one repeat per task) the observed discordance. */
  noiseFrom: "repeats" | "discordant pairs";
}

/**
 * The detectable drop of a paired comparison: `pairs` paired repeats, noise from the repeats of
 * both sides (an unchanged agent's variance is the same on both), else from the discordant pairs
 * seen in both directions (2 min(b, c) / N: the part a one-way change does not explain).
 */
export function detectableDrop(
  pairs: number,
  repeats: readonly RepeatCounts[],
  discordant: { b: number; c: number },
  opts: { alpha?: number; power?: number } = {},
): Detectable | null {
  if (pairs <= 0) return null;
  const alpha = opts.alpha ?? DEFAULT_ALPHA;
  const power = opts.power ?? DEFAULT_POWER;
  const pooled = noiseDiscordance(repeats);
  const noise = pooled ?? (2 * Math.min(discordant.b, discordant.c)) / pairs;
  return {
    drop: minimumDetectableDrop(pairs, { noise, alpha, power }),
    pairs,
    alpha,
    power,
    noise,
    noiseFrom: pooled === null ? "discordant pairs" : "repeats",
  };
}
