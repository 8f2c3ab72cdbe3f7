/**
 * Repeats until decided: per task, whether a candidate's pass rate differs from a stored baseline's,
 * decided by tests that stay valid however many repeats are added and whenever one stops.
 *
 * Design (docs/reporting.md, "Repeats until decided"):
 * - "worse" / "better": universal inference (Wasserman, Ramdas and Balakrishnan 2020, PNAS
 *   117:16880). E = M(base) M(cand) / sup_p L(p, p), M a fixed mixture over each side's rate. Under
 *   "same rate p*", M / L(p*, p*) is a nonnegative martingale of mean 1 as trials arrive (baseline
 *   first, then each repeat) and E never exceeds it, so by Ville's inequality P(E ever >= 1/a) <= a.
 *   Decided at E >= K / alpha for K tasks (Bonferroni: the family's false alarm rate <= alpha).
 * - "no change": the task rejects BOTH composite hypotheses "candidate <= baseline - d" and
 *   "candidate >= baseline + d", each over its whole region (not the points at exactly d, which a
 *   6/6 -> 0/8 task rejects too). The baseline is a fixed sample and the candidate a sequence, so
 *   each is tested the way it can be: an exact one-sided Clopper-Pearson bound on the baseline's rate
 *   (level betaBase) and, given that bound, a one-sample e-value on the candidate's rate (level
 *   beta - betaBase). If the true rates are d or more apart one way, either the bound misses (chance
 *   <= betaBase) or the candidate's region holds its true rate (chance <= beta - betaBase): a task
 *   that moved by d or more is called "no change" with chance <= beta.
 * - Precedence: "worse"/"better" first, so the three decisions never overlap; a task shown to differ
 *   by less than d is "worse" or "better".
 * - The mixture puts 1/4 on "always fails", 1/4 on "always passes", 1/2 uniform: agents' tasks are
 *   mostly stable, and a stable task then needs fewer repeats for either decision.
 */
import type { RepeatCounts } from "./power.js";

export type TaskDecision = "worse" | "better" | "no change" | "undecidable" | "undecided";

export interface DecisionRule {
  /** Family-wise false alarm rate over all tasks; default 0.05. */
  alpha: number;
  /** The change (pass-rate fraction) a task is tested against for "no change"; default 0.3. */
  detect: number;
  /** The chance a task that moved by `detect` or more is called "no change"; default 0.2. */
  beta: number;
  /** How many tasks the family holds (Bonferroni). */
  tasks: number;
}

export const DEFAULT_DECISION = { alpha: 0.05, detect: 0.3, beta: 0.2 } as const;

/** A task whose every repeat on a side gave the same result needs this many candidate repeats to be called so. */
export const SAME_EVERY_REPEAT_AFTER = 3;

const LOG_FACTORIALS: number[] = [0];
function logFactorial(n: number): number {
  for (let i = LOG_FACTORIALS.length; i <= n; i++) LOG_FACTORIALS.push(LOG_FACTORIALS[i - 1] + Math.log(i));
  return LOG_FACTORIALS[n];
}

/** log B(a, b) for positive integers a, b. */
function logBeta(a: number, b: number): number {
  return logFactorial(a - 1) + logFactorial(b - 1) - logFactorial(a + b - 1);
}

/** x log y with 0 log 0 = 0 (and x log 0 = -Infinity for x > 0). */
const xlogy = (x: number, y: number) => (x === 0 ? 0 : x * Math.log(y));

/** log likelihood of one side's counts at pass rate p. */
const logLik = (c: RepeatCounts, p: number) => xlogy(c.passes, p) + xlogy(c.n - c.passes, 1 - p);

const SPIKE = 0.25;

/** log of the mixture likelihood of one side: 1/4 "always fails" + 1/4 "always passes" + 1/2 uniform. */
export function logMixture(c: RepeatCounts): number {
  const spikes = (c.passes === 0 ? SPIKE : 0) + (c.passes === c.n ? SPIKE : 0);
  const uniform = Math.exp(logBeta(1 + c.passes, 1 + c.n - c.passes));
  return Math.log(spikes + (1 - 2 * SPIKE) * uniform);
}

/** log E for "the candidate's pass rate equals the baseline's" (the best common rate in the denominator). */
export function logEvidence(base: RepeatCounts, cand: RepeatCounts): number {
  const pooled = (base.passes + cand.passes) / (base.n + cand.n);
  return logMixture(base) + logMixture(cand) - logLik(base, pooled) - logLik(cand, pooled);
}

/** log E against "the rate is <= bound" (side "below") or ">= bound" ("above"), from one side's counts. */
export function logOneSided(c: RepeatCounts, side: "below" | "above", bound: number): number {
  if (side === "below" ? bound < 0 : bound > 1) return Number.POSITIVE_INFINITY; // an empty region
  const mle = c.n === 0 ? 0.5 : c.passes / c.n;
  // The log likelihood is concave: over a half-line its maximum is the MLE if inside, else the end.
  const best = side === "below" ? Math.min(mle, bound) : Math.max(mle, bound);
  return logMixture(c) - logLik(c, best);
}

/** P(X <= s) for X ~ Bin(n, p). */
function binomialCdf(s: number, n: number, p: number): number {
  let total = 0;
  for (let k = 0; k <= s; k++) {
    total += Math.exp(logFactorial(n) - logFactorial(k) - logFactorial(n - k) + xlogy(k, p) + xlogy(n - k, 1 - p));
  }
  return Math.min(1, total);
}

const BOUNDS = new Map<string, number>();

/**
 * Exact one-sided Clopper-Pearson bound on a fixed sample's rate at level `level`: "upper" U with
 * P(rate > U) <= level (P(X <= s | U) = level), "lower" L with P(X >= s | L) = level.
 */
export function clopperPearson(c: RepeatCounts, side: "upper" | "lower", level: number): number {
  if (side === "upper" && c.passes === c.n) return 1;
  if (side === "lower" && c.passes === 0) return 0;
  const key = `${c.passes}/${c.n}/${side}/${level}`;
  const known = BOUNDS.get(key);
  if (known !== undefined) return known;
  // P(X <= s | p) falls as p rises; P(X >= s | p) = 1 - P(X <= s - 1 | p) rises.
  const tail = (p: number) =>
    side === "upper" ? binomialCdf(c.passes, c.n, p) : 1 - binomialCdf(c.passes - 1, c.n, p);
  let low = 0;
  let high = 1;
  for (let i = 0; i < 60; i++) {
    const mid = (low + high) / 2;
    // Past the bound, the tail is below the level (upper) or above it (lower).
    const past = side === "upper" ? tail(mid) < level : tail(mid) > level;
    if (past) high = mid;
    else low = mid;
  }
  // The conservative end: the wider interval.
  const bound = side === "upper" ? high : low;
  BOUNDS.set(key, bound);
  return bound;
}

/**
 * The baseline's share of beta: the least that lets a baseline of n repeats, all passing (all
 * failing), rule out a rise (fall) of d on its own, between half and 90% of beta. It depends on the
 * baseline's size only, never on its results, so the split is fixed before any data is seen.
 */
export function baselineShare(n: number, rule: Pick<DecisionRule, "beta" | "detect">): number {
  const alone = (1 - rule.detect) ** n * 1.001;
  return Math.min(0.9 * rule.beta, Math.max(0.5 * rule.beta, alone));
}

/** The two composite tests of "no change by d or more": each true when its hypothesis is rejected. */
export function noChangeTests(base: RepeatCounts, cand: RepeatCounts, rule: DecisionRule) {
  const share = baselineShare(base.n, rule);
  const bar = Math.log(1 / (rule.beta - share));
  const upper = clopperPearson(base, "upper", share);
  const lower = clopperPearson(base, "lower", share);
  return {
    /** "candidate <= baseline - d" rejected: the candidate is above (baseline's upper bound - d). */
    noDrop: logOneSided(cand, "below", upper - rule.detect) >= bar,
    /** "candidate >= baseline + d" rejected. */
    noRise: logOneSided(cand, "above", lower + rule.detect) >= bar,
    upper,
    lower,
  };
}

/** Every repeat on each side gave one result, the same on both sides (a deterministic agent, as far as repeats show). */
export function sameEveryRepeat(base: RepeatCounts, cand: RepeatCounts): boolean {
  const constant = (c: RepeatCounts) => c.n > 0 && (c.passes === 0 || c.passes === c.n);
  return constant(base) && constant(cand) && base.passes / base.n === cand.passes / cand.n;
}

/** Where one task stands: decided one way, undecidable by more repeats, or still undecided. */
export function decideTask(base: RepeatCounts, cand: RepeatCounts, rule: DecisionRule): TaskDecision {
  if (base.n === 0 || cand.n === 0) return "undecided";
  if (logEvidence(base, cand) >= Math.log(rule.tasks / rule.alpha)) {
    return cand.passes / cand.n < base.passes / base.n ? "worse" : "better";
  }
  const tests = noChangeTests(base, cand, rule);
  if (tests.noDrop && tests.noRise) return "no change";
  // The same result every repeat on both sides: further repeats that keep giving it can never
  // decide when the baseline alone cannot rule out the move the other way ("better" than all
  // passing, "worse" than all failing, is out of reach too). Repeats of a deterministic agent are
  // copies: asking for more would suggest they can tell something they cannot.
  if (cand.n >= SAME_EVERY_REPEAT_AFTER && sameEveryRepeat(base, cand)) {
    const allPass = cand.passes === cand.n;
    const reachable = allPass ? tests.lower + rule.detect > 1 : tests.upper - rule.detect < 0;
    if (!reachable) return "undecidable";
  }
  return "undecided";
}

/** Decisions that end a task's repeats: every one but "undecided" (the CLI adds "not in baseline" and "task changed"). */
export const isSettled = (d: string) => d !== "undecided";

/**
 * The next round: one more repeat of every task still undecided, in order, up to what --max-trials
 * leaves. The CLI (src/cli/run/until-decided.ts) and the simulation (scripts/simulate-sequential.ts) both
 * use it, so what the simulation verifies is what the CLI does.
 */
export function nextRound<T extends { decision: string }>(
  standings: readonly T[],
  added: number,
  maxTrials: number,
): T[] {
  return standings.filter((s) => !isSettled(s.decision)).slice(0, Math.max(0, maxTrials - added));
}
