/**
 * Regression gating for CI (`umpire compare --baseline X --fail-on-regression`): decides from a
 * paired analysis whether the candidate regressed, and says why in plain lines.
 */
import { unpairedText, type PairedAnalysis } from "./compare.js";
import type { CostPerSuccess } from "./cost.js";
import { countedOnceText, GATE_BASIS, howSure, OVER_REPEATS } from "./how-sure.js";

export interface RegressionPolicy {
  /** Significance level for the pass-rate drop; default 0.05. */
  alpha?: number;
  /** Fail when cost per success rises by more than this many percent; unset: cost is not gated. */
  maxCostIncreasePct?: number;
}

export interface RegressionVerdict {
  regressed: boolean;
  /** Why it regressed, one line each; empty when it did not. */
  reasons: string[];
  /** Things the gate could not judge (unknown cost), one line each. */
  notes: string[];
  /** Which statistic the gate judged by, and why (what it generalises over). */
  basis: string;
}

const percent = (x: number) => `${(x * 100).toFixed(1)}%`;

/**
 * Regressed when any of:
 * - the pass rate dropped significantly: fewer paired repeats passed on the candidate side and the
 *   exact McNemar p-value is below alpha;
 * - a stable task (every baseline repeat passed) fails in most of its candidate repeats;
 * - cost per success rose more than `maxCostIncreasePct` (when set), or nothing succeeded any more
 *   where the baseline had successes at a known cost. Pass `paired.costPerSuccess`: over the paired
 *   tasks only, so a candidate run over fewer (or other) tasks is not judged on its task mix.
 */
export function judgeRegression(
  paired: PairedAnalysis,
  cost: { base: CostPerSuccess; candidate: CostPerSuccess },
  policy: RegressionPolicy = {},
): RegressionVerdict {
  const alpha = policy.alpha ?? 0.05;
  const reasons: string[] = [];
  const notes: string[] = [];
  if (paired.onlyBasePassed > paired.onlyCandidatePassed && paired.pValue < alpha) {
    const from = paired.basePassRate === null ? "?" : percent(paired.basePassRate);
    const to = paired.candidatePassRate === null ? "?" : percent(paired.candidatePassRate);
    reasons.push(
      `pass rate fell from ${from} to ${to}: ${paired.onlyBasePassed} paired repeats passed only in ${paired.base}, ${paired.onlyCandidatePassed} only in ${paired.candidate}${countedOnceText(paired)} (exact McNemar p = ${paired.pValue.toPrecision(3)} < ${alpha}, ${OVER_REPEATS})`,
    );
  }
  for (const r of paired.stableRegressions) {
    reasons.push(
      `stable task ${r.key} now fails: ${r.base.passes}/${r.base.n} passed in ${paired.base}, ${r.candidate.passes}/${r.candidate.n} in ${paired.candidate}`,
    );
  }
  if (policy.maxCostIncreasePct !== undefined) {
    const limit = policy.maxCostIncreasePct;
    if (cost.base === "unknown" || cost.candidate === "unknown") {
      notes.push("cost per success is unknown on one side (a model without a price); the cost gate was not applied");
    } else if (typeof cost.base === "number" && cost.candidate === "no_success") {
      reasons.push(
        `cost per success: no trial succeeded in ${paired.candidate} (was $${cost.base.toPrecision(3)} in ${paired.base})`,
      );
    } else if (typeof cost.base === "number" && typeof cost.candidate === "number" && cost.base > 0) {
      const rise = ((cost.candidate - cost.base) / cost.base) * 100;
      if (rise > limit) {
        reasons.push(
          `cost per success rose ${rise.toFixed(1)}% (limit ${limit}%): $${cost.base.toPrecision(3)} -> $${cost.candidate.toPrecision(3)}`,
        );
      }
    } else if (cost.base === "no_success") {
      notes.push(`nothing succeeded in ${paired.base}; cost per success has no baseline`);
    }
  }
  // A task run on one side only is judged by nothing above: say so, so a candidate that skipped the
  // hard tasks does not read as one that kept them passing.
  if (paired.unpaired.length > 0) {
    notes.push(`not judged, run on one side only: ${unpairedText(paired)}`);
  }
  // "No regression" from a design too small to see one is not a pass: say what it could have seen.
  if (!(paired.onlyBasePassed > paired.onlyCandidatePassed && paired.pValue < alpha)) {
    const sure = howSure(paired, alpha);
    if (sure) notes.push(`pass rate, ${paired.candidate} vs ${paired.base}: ${sure}`);
  }
  return { regressed: reasons.length > 0, reasons, notes, basis: GATE_BASIS };
}
