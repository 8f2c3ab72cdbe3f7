/**
 * Summaries of a set of trials (one task in one group, or a whole group): passes k/n with a
 * Wilson interval, pass@k and pass^k, cost, cost per success, wall-time percentiles, turns,
 * actions, the stop-reason mix and false successes.
 *
 * Counting rules (docs/reporting.md): only `done` trials count. Trials with verdict `error` broke
 * for infrastructure reasons, not because of the agent, so they are left out of pass rates, times,
 * turns and actions, and shown as `errors`; their cost is still counted, since it was spent.
 * Trials with verdict `cancelled` were stopped by the user: left out the same way, shown as
 * `cancelled`, and never paired or gated on. Refused calls (invalid-calls.ts) are counted over every
 * finished trial that stored them, per turn.
 */
import type { TrialRecord } from "../store/records.js";
import { costPerSuccess, sumCosts, type CostPerSuccess } from "./cost.js";
import { invalidCallRate, type InvalidCallRate } from "./invalid-calls.js";
import { mean, passAtK, passHatK, percentile, wilson, type Interval } from "./stats.js";

/** What a report needs of a trial; `costUsd` is the cost the report shows (see `reportedCost`). */
export type ReportTrial = Pick<
  TrialRecord,
  | "id"
  | "runId"
  | "seq"
  | "taskId"
  | "model"
  | "mode"
  | "agentLabel"
  | "repeat"
  | "status"
  | "verdict"
  | "claimed"
  | "stopReason"
  | "turns"
  | "actions"
  | "wallMs"
  | "costUsd"
> &
  Partial<Pick<TrialRecord, "taskHash" | "agentHash" | "metrics">>;

/**
 * Whether a trial's agent is a named one (`agents:` in the config): an unnamed agent's label is its
 * `model/mode` (src/agent/config.ts), a named one's is its name.
 */
export function isNamedAgent(t: Pick<ReportTrial, "agentLabel" | "model" | "mode">): boolean {
  return t.agentLabel !== `${t.model}/${t.mode}`;
}

/** A task's state in one group: every counted repeat passed, none did, or they disagree. */
export type TaskOutcome = "pass" | "fail" | "flaky" | "none";

export interface TrialSetStats {
  /** Finished trials, errors included. */
  trials: number;
  /** Finished trials that count for the pass rate (verdict passed or failed). */
  n: number;
  passes: number;
  errors: number;
  /** Trials stopped by the user (Ctrl-C) and not re-run yet: in no rate, pairing or regression. */
  cancelled: number;
  /** Trials not finished (pending, or running when the run was killed). */
  unfinished: number;
  passRate: number | null;
  /** Wilson 95% interval on the pass rate. */
  interval: Interval;
  /** Over the repeats with the comparison's k; for a group, the mean over its tasks. */
  passAtK: number | null;
  passHatK: number | null;
  totalCostUsd: number | null;
  meanCostUsd: number | null;
  costPerSuccess: CostPerSuccess;
  wallP50Ms: number | null;
  wallP95Ms: number | null;
  meanTurns: number | null;
  meanActions: number | null;
  /** Stop reason -> count, over finished trials (errors included: `environment_error` is a stop reason). */
  stopReasons: Record<string, number>;
  /** Trials that claimed success but failed their checks. */
  falseSuccesses: number;
  /** The model's proposals umpire's loop refused, per turn and by kind; null when no trial stored them. */
  invalidCalls: InvalidCallRate | null;
  outcome: TaskOutcome;
}

function outcomeOf(passes: number, n: number): TaskOutcome {
  if (n === 0) return "none";
  if (passes === n) return "pass";
  if (passes === 0) return "fail";
  return "flaky";
}

/** Summarises one set of trials; pass@k and pass^k over its repeats with the given k. */
export function summarizeTrials(trials: readonly ReportTrial[], k: number): TrialSetStats {
  const done = trials.filter((t) => t.status === "done");
  const counted = done.filter((t) => t.verdict === "passed" || t.verdict === "failed");
  const passes = counted.filter((t) => t.verdict === "passed").length;
  const n = counted.length;
  const totalCostUsd = sumCosts(done.map((t) => t.costUsd));
  const stopReasons: Record<string, number> = {};
  for (const t of done) {
    const reason = t.stopReason ?? "unknown";
    stopReasons[reason] = (stopReasons[reason] ?? 0) + 1;
  }
  const walls = counted.map((t) => t.wallMs).filter((w): w is number => w !== null);
  return {
    trials: done.length,
    n,
    passes,
    errors: done.filter((t) => t.verdict === "error").length,
    cancelled: done.filter((t) => t.verdict === "cancelled").length,
    unfinished: trials.length - done.length,
    passRate: n > 0 ? passes / n : null,
    interval: wilson(passes, n),
    passAtK: n > 0 ? passAtK(n, passes, k) : null,
    passHatK: n > 0 ? passHatK(n, passes, k) : null,
    totalCostUsd,
    meanCostUsd: totalCostUsd !== null && done.length > 0 ? totalCostUsd / done.length : null,
    costPerSuccess: costPerSuccess(totalCostUsd, passes),
    wallP50Ms: percentile(walls, 50),
    wallP95Ms: percentile(walls, 95),
    meanTurns: mean(counted.map((t) => t.turns)),
    meanActions: mean(counted.map((t) => t.actions)),
    stopReasons,
    falseSuccesses: counted.filter((t) => t.claimed === true && t.verdict === "failed").length,
    invalidCalls: invalidCallRate(done),
    outcome: outcomeOf(passes, n),
  };
}

/**
 * A group's summary: its trials summarised together, with pass@k and pass^k replaced by their
 * mean over the group's tasks (the usual way to report them for a suite).
 */
export function summarizeGroup(
  trials: readonly ReportTrial[],
  perTask: readonly TrialSetStats[],
  k: number,
): TrialSetStats {
  const all = summarizeTrials(trials, k);
  return {
    ...all,
    passAtK: mean(perTask.map((c) => c.passAtK).filter((v): v is number => v !== null)),
    passHatK: mean(perTask.map((c) => c.passHatK).filter((v): v is number => v !== null)),
    outcome: outcomeOf(all.passes, all.n),
  };
}
