/**
 * Repeats until decided: per task, an e-value that a candidate's pass rate differs from a stored
 * baseline's, valid under optional stopping, so repeats can be added until it is decided.
 *
 * Design (docs/reporting.md, "Repeats until decided"): universal inference (Wasserman, Ramdas and
 * Balakrishnan 2020, PNAS 117:16880). The alternative is a Beta(1, 1) mixture over each side's
 * pass rate, the null the best common pass rate:
 *
 *   E = B(1 + s_b, 1 + f_b) B(1 + s_c, 1 + f_c) / sup_p p^(s_b + s_c) (1 - p)^(f_b + f_c)
 *
 * Under the null (both sides pass with the same p*), the mixture over the likelihood at p* is a
 * nonnegative martingale of mean 1 over the trials in any order (baseline first, then each new
 * repeat), and E never exceeds it; by Ville's inequality P(E ever >= 1/a) <= a, whenever one
 * stops. A task is decided "differs" at E >= K/alpha for K tasks (Bonferroni: the family's false
 * alarm rate stays <= alpha). It is decided "no drop of d" when the same construction rejects
 * both "the candidate is d lower" and "d higher" at level beta: a task whose rate truly moved by d
 * is called unchanged with chance <= beta. Stopping for that can only lower false alarms.
 * The baseline is not paired repeat by repeat here: it has a fixed number of repeats and the
 * candidate adds more, and repeats of one task are exchangeable draws.
 */
import type { RepeatCounts } from "./power.js";

/** log B(a, b) for positive integers a, b: sum of logs, exact enough for thousands of trials. */
function logBeta(a: number, b: number): number {
  return logFactorial(a - 1) + logFactorial(b - 1) - logFactorial(a + b - 1);
}

const LOG_FACTORIALS: number[] = [0];
function logFactorial(n: number): number {
  for (let i = LOG_FACTORIALS.length; i <= n; i++) LOG_FACTORIALS.push(LOG_FACTORIALS[i - 1] + Math.log(i));
  return LOG_FACTORIALS[n];
}

const xlogy = (x: number, y: number) => (x === 0 ? 0 : x * Math.log(y));

/** log of the mixture likelihood of both sides (independent uniform priors on each rate). */
function logMixture(base: RepeatCounts, cand: RepeatCounts): number {
  return logBeta(1 + base.passes, 1 + base.n - base.passes) + logBeta(1 + cand.passes, 1 + cand.n - cand.passes);
}

/** max over p of the log likelihood with the candidate's rate p + shift (clamped to a valid range). */
function logNullMax(base: RepeatCounts, cand: RepeatCounts, shift: number): number {
  const ll = (p: number) =>
    xlogy(base.passes, p) +
    xlogy(base.n - base.passes, 1 - p) +
    xlogy(cand.passes, p + shift) +
    xlogy(cand.n - cand.passes, 1 - p - shift);
  let low = Math.max(0, -shift);
  let high = Math.min(1, 1 - shift);
  // The log likelihood is concave in p: a ternary search finds its maximum.
  for (let i = 0; i < 64; i++) {
    const m1 = low + (high - low) / 3;
    const m2 = high - (high - low) / 3;
    if (ll(m1) < ll(m2)) low = m1;
    else high = m2;
  }
  return ll((low + high) / 2);
}

/** log E for "the candidate's pass rate is not the baseline's + shift" (shift 0: "differs"). */
export function logEvidence(base: RepeatCounts, cand: RepeatCounts, shift = 0): number {
  return logMixture(base, cand) - logNullMax(base, cand, shift);
}

export type TaskDecision = "worse" | "better" | "no change" | "undecided";

export interface DecisionRule {
  /** Family-wise false alarm rate over all tasks; default 0.05. */
  alpha: number;
  /** The change (pass-rate fraction) a task is tested against for "no change"; default 0.3. */
  detect: number;
  /** The chance a task that moved by `detect` is called "no change"; default 0.2. */
  beta: number;
  /** How many tasks the family holds (Bonferroni). */
  tasks: number;
}

export const DEFAULT_DECISION = { alpha: 0.05, detect: 0.3, beta: 0.2 } as const;

/** Where one task stands: decided one way, or still undecided (and worth another repeat). */
export function decideTask(base: RepeatCounts, cand: RepeatCounts, rule: DecisionRule): TaskDecision {
  if (base.n === 0 || cand.n === 0) return "undecided";
  if (logEvidence(base, cand) >= Math.log(rule.tasks / rule.alpha)) {
    return cand.passes / cand.n < base.passes / base.n ? "worse" : "better";
  }
  const bar = Math.log(1 / rule.beta);
  const noDrop = logEvidence(base, cand, -rule.detect) >= bar;
  const noRise = logEvidence(base, cand, rule.detect) >= bar;
  return noDrop && noRise ? "no change" : "undecided";
}
