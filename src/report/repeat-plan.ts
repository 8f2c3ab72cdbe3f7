/**
 * `umpire plan`: how many repeats per task a run needs so a paired comparison against it detects
 * a given pass-rate drop (80% power by default), from the variance a stored baseline showed.
 */
import type { ReportTrial } from "./aggregate.js";
import { sumCosts } from "./cost.js";
import { DEFAULT_ALPHA, DEFAULT_POWER, noiseDiscordance, pairsNeeded, type RepeatCounts } from "./power.js";

/** With nothing measured, the worst case: every task passes half the time (2 p (1 - p) = 0.5). */
export const WORST_CASE_NOISE = 0.5;

export interface RepeatPlanInput {
  /** The drop to detect, as a fraction (0.1 = 10 points). */
  drop: number;
  tasks: number;
  /** Per task (and agent) counted repeats of the baseline; empty: none. */
  baseline: readonly RepeatCounts[];
  alpha?: number;
  power?: number;
  /** Mean cost of one baseline trial; null when unknown or no baseline. */
  meanTrialCostUsd?: number | null;
}

export interface RepeatPlan {
  drop: number;
  alpha: number;
  power: number;
  tasks: number;
  noise: number;
  noiseFrom: "baseline repeats" | "worst case";
  pairsNeeded: number;
  repeatsPerTask: number;
  trials: number;
  /** Estimated cost of the candidate run (trials x the baseline's mean trial cost); null: unknown. */
  estimatedCostUsd: number | null;
  /**
   * Every baseline task gave one result in every repeat (some task repeated): a deterministic
   * agent's repeats are copies, which compare counts once, so more repeats would not help.
   */
  sameEveryRepeat: boolean;
}

export function planRepeats(input: RepeatPlanInput): RepeatPlan {
  const alpha = input.alpha ?? DEFAULT_ALPHA;
  const power = input.power ?? DEFAULT_POWER;
  const measured = noiseDiscordance(input.baseline);
  const noise = measured ?? WORST_CASE_NOISE;
  const pairs = Math.ceil(pairsNeeded(input.drop, { noise, alpha, power }));
  const repeatsPerTask = Math.max(1, Math.ceil(pairs / Math.max(1, input.tasks)));
  const trials = repeatsPerTask * input.tasks;
  const cost = input.meanTrialCostUsd;
  return {
    drop: input.drop,
    alpha,
    power,
    tasks: input.tasks,
    noise,
    noiseFrom: measured === null ? "worst case" : "baseline repeats",
    pairsNeeded: pairs,
    repeatsPerTask,
    trials,
    estimatedCostUsd: cost === null || cost === undefined ? null : cost * trials,
    sameEveryRepeat:
      input.baseline.some((c) => c.n > 1) && input.baseline.every((c) => c.passes === 0 || c.passes === c.n),
  };
}

/** The baseline's counted repeats per task and agent, and its mean cost per finished trial. */
export function baselineCounts(trials: readonly ReportTrial[]): {
  counts: RepeatCounts[];
  meanTrialCostUsd: number | null;
} {
  const byKey = new Map<string, RepeatCounts>();
  for (const t of trials) {
    if (t.status !== "done" || (t.verdict !== "passed" && t.verdict !== "failed")) continue;
    const key = `${t.taskId}\u0000${t.agentLabel}`;
    const c = byKey.get(key) ?? byKey.set(key, { passes: 0, n: 0 }).get(key)!;
    c.n += 1;
    if (t.verdict === "passed") c.passes += 1;
  }
  const done = trials.filter((t) => t.status === "done");
  const total = sumCosts(done.map((t) => t.costUsd));
  return {
    counts: [...byKey.values()],
    meanTrialCostUsd: total === null || done.length === 0 ? null : total / done.length,
  };
}
