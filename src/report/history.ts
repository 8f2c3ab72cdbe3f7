/**
 * Cost per task over time (issue 17): per task and agent, one point per run (pass rate, cost per
 * success, mean tokens, p50 wall time) and the trend of each over the series, with two flags a
 * user acts on: the cost per success rose beyond a threshold, and the pass rate dropped by more
 * than chance (the exact McNemar test on the first and last runs' trials paired by repeat, the
 * same test `compare` uses).
 *
 * A changed task (content hash) or agent (definition hash) starts a new series segment: the
 * points before it are shown, but trends and flags are computed only over the current segment,
 * since a new task is not the old one getting cheaper. Unknown hashes (null: stored before the
 * store kept them) never break a series.
 *
 * Counting follows aggregate.ts: pass rates, tokens and times count `passed`/`failed` trials;
 * cost counts every finished trial (errors cost money too); `cancelled` counts nowhere.
 */
import type { HistoryTrialRow } from "../store/history-query.js";
import { costPerSuccess, sumCosts, type CostPerSuccess } from "./cost.js";
import { mcnemarExact, mean, percentile } from "./stats.js";

export interface HistoryOptions {
  /** Flag a cost-per-success rise above this many percent (first -> last). Default 20. */
  costThresholdPct?: number;
  /** Significance level of the pass-rate drop test. Default 0.05. */
  alpha?: number;
}

export const DEFAULT_COST_THRESHOLD_PCT = 20;
export const DEFAULT_ALPHA = 0.05;

/** What changed between this point and the one before it; null when nothing known did. */
export type SeriesBreak = "task" | "agent" | "task+agent" | null;

export interface HistoryPoint {
  runId: string;
  startedAt: string;
  tags: string[];
  /** Trials counted for the pass rate (passed or failed). */
  n: number;
  passes: number;
  errors: number;
  passRate: number | null;
  totalCostUsd: number | null;
  costPerSuccess: CostPerSuccess;
  /** Mean input + output tokens per counted trial; null when no counted trial has known usage. */
  meanTokens: number | null;
  p50WallMs: number | null;
  taskHash: string | null;
  agentHash: string | null;
  /** Set on the first point after a change of task or agent. */
  breakBefore: SeriesBreak;
}

/** A value's first and last point of the current segment, and the change between them. */
export interface Trend {
  first: number | null;
  last: number | null;
  /** Rates: difference in proportion (0.5 -> 0.25 is -0.25); other values: relative change in percent. */
  change: number | null;
}

export interface CostIncreaseFlag {
  from: number;
  to: number;
  changePct: number;
  thresholdPct: number;
}

export interface PassRateDropFlag {
  from: number;
  to: number;
  /** Pairs (same repeat) that passed only in the first run / only in the last run. */
  onlyFirst: number;
  onlyLast: number;
  pValue: number;
  alpha: number;
}

export interface HistorySeries {
  taskId: string;
  agentLabel: string;
  points: HistoryPoint[];
  /** Index in `points` where the current segment (the one trends are computed over) starts. */
  segmentStart: number;
  trend: { passRate: Trend; costPerSuccess: Trend; meanTokens: Trend; p50WallMs: Trend };
  flags: { costIncrease: CostIncreaseFlag | null; passRateDrop: PassRateDropFlag | null };
}

export interface History {
  costThresholdPct: number;
  alpha: number;
  series: HistorySeries[];
}

const counted = (t: HistoryTrialRow) => t.verdict === "passed" || t.verdict === "failed";
const numeric = (c: CostPerSuccess): number | null => (typeof c === "number" ? c : null);

function pointOf(trials: readonly HistoryTrialRow[]): Omit<HistoryPoint, "breakBefore"> {
  const first = trials[0];
  const judged = trials.filter(counted);
  const passes = judged.filter((t) => t.verdict === "passed").length;
  const spent = trials.filter((t) => t.verdict !== "cancelled");
  const totalCostUsd = spent.length > 0 ? sumCosts(spent.map((t) => t.costUsd)) : null;
  const tokens = judged
    .filter((t) => t.inputTokens !== null && t.outputTokens !== null)
    .map((t) => t.inputTokens! + t.outputTokens!);
  const walls = judged.map((t) => t.wallMs).filter((w): w is number => w !== null);
  return {
    runId: first.runId,
    startedAt: first.runStartedAt,
    tags: first.runTags,
    n: judged.length,
    passes,
    errors: trials.filter((t) => t.verdict === "error").length,
    passRate: judged.length > 0 ? passes / judged.length : null,
    totalCostUsd,
    costPerSuccess: totalCostUsd === null && spent.length === 0 ? "unknown" : costPerSuccess(totalCostUsd, passes),
    meanTokens: mean(tokens),
    p50WallMs: percentile(walls, 50),
    // A run where the hash differs between repeats cannot happen (one task file per run); take the first known.
    taskHash: trials.find((t) => t.taskHash !== null)?.taskHash ?? null,
    agentHash: trials.find((t) => t.agentHash !== null)?.agentHash ?? null,
  };
}

/** A change of a known hash; an unknown one on either side says nothing. */
const differs = (a: string | null, b: string | null) => a !== null && b !== null && a !== b;

function breakBetween(
  before: Omit<HistoryPoint, "breakBefore">,
  after: Omit<HistoryPoint, "breakBefore">,
): SeriesBreak {
  const task = differs(before.taskHash, after.taskHash);
  const agent = differs(before.agentHash, after.agentHash);
  return task && agent ? "task+agent" : task ? "task" : agent ? "agent" : null;
}

/** First and last defined value; the change is relative (percent) unless `absolute`. */
function trendOf(values: readonly (number | null)[], absolute: boolean): Trend {
  const known = values.filter((v): v is number => v !== null);
  if (known.length === 0) return { first: null, last: null, change: null };
  const first = known[0];
  const last = known[known.length - 1];
  let change: number | null;
  if (absolute) change = last - first;
  else change = first === 0 ? (last === 0 ? 0 : null) : ((last - first) / first) * 100;
  return { first, last, change };
}

/** Trials of two runs paired by repeat number; only pairs judged in both runs count. */
function pairedDrop(
  first: readonly HistoryTrialRow[],
  last: readonly HistoryTrialRow[],
): { onlyFirst: number; onlyLast: number } {
  const byRepeat = new Map(first.filter(counted).map((t) => [t.repeat, t.verdict === "passed"]));
  let onlyFirst = 0;
  let onlyLast = 0;
  for (const t of last.filter(counted)) {
    const before = byRepeat.get(t.repeat);
    if (before === undefined) continue;
    const now = t.verdict === "passed";
    if (before && !now) onlyFirst += 1;
    if (!before && now) onlyLast += 1;
  }
  return { onlyFirst, onlyLast };
}

function seriesOf(
  taskId: string,
  agentLabel: string,
  runs: HistoryTrialRow[][],
  opts: Required<HistoryOptions>,
): HistorySeries {
  const bare = runs.map(pointOf);
  const points: HistoryPoint[] = bare.map((p, i) => ({
    ...p,
    breakBefore: i === 0 ? null : breakBetween(bare[i - 1], p),
  }));
  let segmentStart = 0;
  points.forEach((p, i) => {
    if (p.breakBefore) segmentStart = i;
  });
  const segment = points.slice(segmentStart);
  const trend = {
    passRate: trendOf(
      segment.map((p) => p.passRate),
      true,
    ),
    costPerSuccess: trendOf(
      segment.map((p) => numeric(p.costPerSuccess)),
      false,
    ),
    meanTokens: trendOf(
      segment.map((p) => p.meanTokens),
      false,
    ),
    p50WallMs: trendOf(
      segment.map((p) => p.p50WallMs),
      false,
    ),
  };

  let costIncrease: CostIncreaseFlag | null = null;
  const cost = trend.costPerSuccess;
  if (
    cost.first !== null &&
    cost.last !== null &&
    cost.first > 0 &&
    cost.change !== null &&
    cost.change > opts.costThresholdPct
  ) {
    costIncrease = { from: cost.first, to: cost.last, changePct: cost.change, thresholdPct: opts.costThresholdPct };
  }

  let passRateDrop: PassRateDropFlag | null = null;
  const firstRun = runs[segmentStart];
  const lastRun = runs[runs.length - 1];
  const a = points[segmentStart];
  const b = points[points.length - 1];
  if (runs.length - segmentStart >= 2 && a.passRate !== null && b.passRate !== null && b.passRate < a.passRate) {
    const { onlyFirst, onlyLast } = pairedDrop(firstRun, lastRun);
    const pValue = mcnemarExact(onlyFirst, onlyLast);
    if (onlyFirst > onlyLast && pValue < opts.alpha)
      passRateDrop = { from: a.passRate, to: b.passRate, onlyFirst, onlyLast, pValue, alpha: opts.alpha };
  }
  return { taskId, agentLabel, points, segmentStart, trend, flags: { costIncrease, passRateDrop } };
}

/** Rows as `Store.history` returns them (grouped by task, agent, run; oldest run first) -> series. */
export function buildHistory(rows: readonly HistoryTrialRow[], options: HistoryOptions = {}): History {
  const opts = {
    costThresholdPct: options.costThresholdPct ?? DEFAULT_COST_THRESHOLD_PCT,
    alpha: options.alpha ?? DEFAULT_ALPHA,
  };
  const series = new Map<string, { taskId: string; agentLabel: string; runs: Map<string, HistoryTrialRow[]> }>();
  for (const row of rows) {
    const key = `${row.taskId}\u0000${row.agentLabel}`;
    let s = series.get(key);
    if (!s) series.set(key, (s = { taskId: row.taskId, agentLabel: row.agentLabel, runs: new Map() }));
    const run = s.runs.get(row.runId);
    if (run) run.push(row);
    else s.runs.set(row.runId, [row]);
  }
  return {
    ...opts,
    series: [...series.values()].map((s) => seriesOf(s.taskId, s.agentLabel, [...s.runs.values()], opts)),
  };
}
