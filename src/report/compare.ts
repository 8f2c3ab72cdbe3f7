/**
 * Comparisons: groups of trials (two runs, or one run split by mode, model or tag) lined up per
 * task, with a summary per group and a paired analysis of each group against the first.
 *
 * Pairing: a task is the same unit on both sides when its task id matches, plus its mode and model
 * when those vary inside a group and are crossed with the groups (and are not what is being
 * compared; see keyDimensions). Within a task, repeats are paired in repeat order for the McNemar
 * test; the bootstrap resamples whole tasks. Every number of a pair reads the paired tasks only; a
 * task one side ran alone is listed as unpaired.
 *
 * Changed tasks: when the stored content hashes of a task differ between the two sides, the task
 * was edited between the runs, so its trials are not like-for-like. It is listed as changed and
 * left out of the paired analysis (and so out of the regression gate) unless
 * `includeChangedTasks` is set. Trials stored without a hash (before schema 3) count as unknown, never
 * as changed.
 *
 * Changed agents: trials pair by task and agent NAME (label). An agent of the same name that ran
 * with another definition on the candidate side (stored hashes differ) is the change under test,
 * not a reason to drop its pairs (issue 36): editing an agent under its own name and running again
 * is the normal way to change one. Its label is listed (`changedAgents`) so that callers can say
 * what changed at the top (src/report/agent-changes.ts). Trials stored without a hash count as
 * unknown, never as changed.
 */
import { isNamedAgent, summarizeGroup, summarizeTrials, type ReportTrial, type TrialSetStats } from "./aggregate.js";
import type { CostPerSuccess } from "./cost.js";
import { detectableDrop, type Detectable } from "./power.js";
import { bootstrapPassRateDiff, mcnemarExact, pairRepeats, type PairedCounts } from "./stats.js";
import { TRIAL_MODES } from "../vocabulary.js";

export type CompareBy = "run" | "mode" | "model" | "tag" | "agent";

export interface CompareGroupInput {
  label: string;
  runIds: string[];
  trials: readonly ReportTrial[];
}

export interface CompareOptions {
  /** k for pass@k and pass^k; default: the fewest counted repeats of any task, so all rows share it. */
  k?: number;
  seed?: number;
  bootstrapIterations?: number;
  /** Pair tasks whose content changed between the sides as if they had not (default false). */
  includeChangedTasks?: boolean;
}

/** Said instead of a test's result when no task has counted trials on both sides. */
export const NOTHING_PAIRED =
  "nothing to compare: no task has passed or failed trials on both sides, so no pass rate, test or delta";

/** The task rows one side ran alone, said as `task (base only), ...`; null when every row is on both sides. */
export function unpairedText(p: Pick<PairedAnalysis, "unpaired" | "base" | "candidate">): string | null {
  if (p.unpaired.length === 0) return null;
  const rows = p.unpaired.map((u) => `${u.key} (${u.side === "base" ? p.base : p.candidate} only)`);
  return `${rows.join(", ")}: not in the pass rate, test or deltas, which read the paired tasks`;
}

/** The words shown beside a task whose content differs between the compared groups. */
export const TASK_CHANGED = "task changed; not a like-for-like comparison";

export interface TaskRow {
  key: string;
  taskId: string;
  mode?: string;
  model?: string;
  agent?: string;
  /** One per group, in group order; null when the group has no trial of this task. */
  cells: (TrialSetStats | null)[];
  /** True when the task's stored content hash is not the same in every group (see TASK_CHANGED). */
  changed: boolean;
}

export interface TaskCounts {
  key: string;
  passes: number;
  n: number;
}

export interface PairedAnalysis {
  base: string;
  candidate: string;
  /** Task rows whose content differs between base and candidate. */
  changedTasks: string[];
  /** Whether those were paired anyway (`includeChangedTasks`); otherwise they are left out below. */
  changedTasksIncluded: boolean;
  /**
   * Agents (by label) with another definition on the candidate side than on the base side: the
   * change under test. Their pairs are counted like any other.
   */
  changedAgents: string[];
  /** Tasks with counted trials on both sides. */
  tasks: number;
  /**
   * Task rows run on one side only (a task not playable in one protocol, a run over fewer tasks):
   * not in the pass rate, McNemar, the bootstrap or the deltas, all of which read the paired tasks.
   */
  unpaired: { key: string; side: "base" | "candidate" }[];
  /** Repeats paired one to one (same task, same position in repeat order); a task the same every repeat on both sides counts once. */
  trialPairs: number;
  /** Tasks whose repeats all gave one result on each side, so counted as one pair. */
  countedOnce: number;
  /** Pairs that passed only on the base side (b) and only on the candidate side (c). */
  onlyBasePassed: number;
  onlyCandidatePassed: number;
  /** Exact McNemar two-sided p-value on b and c. */
  pValue: number;
  /** The smallest drop this design detects (80% power, alpha 0.05); null without paired repeats. */
  detectable: Detectable | null;
  /** Pass rates over the paired tasks. */
  basePassRate: number | null;
  candidatePassRate: number | null;
  /** candidate - base, with a 95% bootstrap interval over tasks. */
  diff: number | null;
  diffInterval: { low: number; high: number } | null;
  /** Every repeat passed on the base side, none on the candidate side. */
  flippedToFail: string[];
  /** No repeat passed on the base side, every one on the candidate side. */
  flippedToPass: string[];
  /** Tasks whose repeats disagree on either side. */
  flaky: { key: string; base: TaskCounts | null; candidate: TaskCounts | null }[];
  /** Stable on the base side (all repeats passed) and failing in most candidate repeats. */
  stableRegressions: { key: string; base: TaskCounts; candidate: TaskCounts }[];
  /** Cost per success over the paired tasks' trials on each side: what the cost gate compares. */
  costPerSuccess: { base: CostPerSuccess; candidate: CostPerSuccess };
  /**
   * Candidate relative to base, in percent, over the paired tasks' trials only (the same tasks on
   * both sides: a side with one more, cheaper task would otherwise look cheaper); null when not
   * computable (nothing paired, base 0 or unknown).
   */
  deltas: {
    meanCostPct: number | null;
    costPerSuccessPct: number | null;
    wallP50Pct: number | null;
    wallP95Pct: number | null;
    meanTurnsPct: number | null;
    meanActionsPct: number | null;
  };
}

export interface Comparison {
  by: CompareBy;
  k: number;
  groups: { label: string; runIds: string[]; summary: TrialSetStats }[];
  tasks: TaskRow[];
  paired: PairedAnalysis[];
}

/** Known modes first, in the protocol registry's order (TRIAL_MODES); anything else keeps first appearance. */
const MODE_ORDER: readonly string[] = TRIAL_MODES;

/**
 * Splits one run's (or several runs') trials into groups by mode, model or agent, in a stable order; agents
 * of different protocols are labelled with their family (`agentFamilyLabel`).
 */
export function groupTrialsBy(trials: readonly ReportTrial[], by: "mode" | "model" | "agent"): CompareGroupInput[] {
  const groups = new Map<string, ReportTrial[]>();
  // Agents of one protocol need no family beside their names; agents of several are read as families.
  const families = new Set(trials.map((t) => t.mode)).size > 1;
  for (const t of [...trials].sort((a, b) => a.runId.localeCompare(b.runId) || a.seq - b.seq)) {
    const label = by === "mode" ? t.mode : by === "model" ? t.model : families ? agentFamilyLabel(t) : t.agentLabel;
    (groups.get(label) ?? groups.set(label, []).get(label)!).push(t);
  }
  const labels = [...groups.keys()];
  return (by === "mode" ? inModeOrder(labels) : labels).map((label) => {
    const ts = groups.get(label)!;
    return { label, runIds: [...new Set(ts.map((t) => t.runId))], trials: ts };
  });
}

/**
 * An agent's row under `--by agent`, readable as its family: a named agent's name with its protocol,
 * `holo (tools)`, whatever the name says (an unnamed agent's label, `model/mode`, already names it).
 */
export function agentFamilyLabel(t: Pick<ReportTrial, "agentLabel" | "model" | "mode">): string {
  return !isNamedAgent(t) || t.agentLabel === t.mode ? t.agentLabel : `${t.agentLabel} (${t.mode})`;
}

/** Modes in the protocol registry's order (TRIAL_MODES), any other after them in the order given. */
export function inModeOrder(modes: readonly string[]): string[] {
  return [...modes].sort((a, b) => rank(a) - rank(b));
}

function rank(mode: string): number {
  const i = MODE_ORDER.indexOf(mode);
  return i === -1 ? MODE_ORDER.length : i;
}

/** Groups runs by their tags (runs with the same tag set form one group), in the order given. */
export function groupRunsByTag(
  runs: readonly { id: string; tags: string[]; trials: readonly ReportTrial[] }[],
): CompareGroupInput[] {
  const groups = new Map<string, CompareGroupInput>();
  for (const run of runs) {
    const label = run.tags.length > 0 ? [...run.tags].sort().join(",") : "(untagged)";
    const g = groups.get(label) ?? groups.set(label, { label, runIds: [], trials: [] }).get(label)!;
    g.runIds.push(run.id);
    g.trials = [...g.trials, ...run.trials];
  }
  return [...groups.values()];
}

type Dimension = "mode" | "model" | "agent";
const dimensionOf = (t: ReportTrial, dim: Dimension): string => (dim === "agent" ? t.agentLabel : t[dim]);

/**
 * The dimensions a task row is keyed by beyond its task id. Several agents in a group key rows
 * by agent alone (an agent implies its model and mode; two named agents may share both).
 *
 * A dimension keys rows only when it is crossed with the groups (some value of it is in two groups),
 * as agents are between two runs. One nested in them (two named agents of one protocol, under
 * `--by mode`: each agent in one group only) would make every row one group's alone and pair
 * nothing; its trials are pooled per task instead, which is what grouping by mode asks for.
 */
function keyDimensions(groups: readonly CompareGroupInput[], by: CompareBy): Dimension[] {
  const crossed = (dim: Dimension) => {
    const groupsHolding = new Map<string, Set<number>>();
    groups.forEach((g, i) => {
      for (const t of g.trials) {
        const value = dimensionOf(t, dim);
        (groupsHolding.get(value) ?? groupsHolding.set(value, new Set()).get(value)!).add(i);
      }
    });
    return groups.length < 2 || [...groupsHolding.values()].some((held) => held.size > 1);
  };
  const varies = (dim: Dimension) =>
    dim !== by && groups.some((g) => new Set(g.trials.map((t) => dimensionOf(t, dim))).size > 1) && crossed(dim);
  // Unnamed agents (labelled model/mode) keep the mode and model dimensions they have always had.
  const named = groups.some((g) => g.trials.some(isNamedAgent));
  if (named && varies("agent")) return ["agent"];
  return (["mode", "model"] as const).filter(varies);
}

function rowKey(t: ReportTrial, dims: readonly Dimension[]): string {
  const extra = dims.map((d) => dimensionOf(t, d));
  return extra.length > 0 ? `${t.taskId} [${extra.join(" ")}]` : t.taskId;
}

/** True when the trials carry more than one known task content hash. */
function contentDiffers(trials: readonly ReportTrial[]): boolean {
  return new Set(trials.map((t) => t.taskHash).filter((h): h is string => typeof h === "string")).size > 1;
}

/** The agent labels whose known definition hashes on the candidate side are not those of the base side. */
function changedAgentsBetween(base: readonly ReportTrial[], candidate: readonly ReportTrial[]): string[] {
  const hashes = (trials: readonly ReportTrial[]) => {
    const byLabel = new Map<string, Set<string>>();
    for (const t of trials) {
      if (typeof t.agentHash !== "string") continue;
      (byLabel.get(t.agentLabel) ?? byLabel.set(t.agentLabel, new Set()).get(t.agentLabel)!).add(t.agentHash);
    }
    return byLabel;
  };
  const [before, after] = [hashes(base), hashes(candidate)];
  return [...after]
    .filter(([label, set]) => before.has(label) && [...set].some((h) => !before.get(label)!.has(h)))
    .map(([label]) => label);
}

const counts = (key: string, c: TrialSetStats | null): TaskCounts | null =>
  c && c.n > 0 ? { key, passes: c.passes, n: c.n } : null;

function pct(base: number | null, candidate: number | null): number | null {
  if (base === null || candidate === null || base === 0) return null;
  return ((candidate - base) / base) * 100;
}

function cpsNumber(c: CostPerSuccess): number | null {
  return typeof c === "number" ? c : null;
}

/** The paired analysis of `candidate` (group j) against `base` (group 0). */
function pairGroups(
  groups: readonly CompareGroupInput[],
  rows: readonly TaskRow[],
  byKey: readonly Map<string, ReportTrial[]>[],
  j: number,
  k: number,
  opts: CompareOptions,
): PairedAnalysis {
  let b = 0;
  let c = 0;
  let trialPairs = 0;
  let countedOnce = 0;
  const tasksCounts: PairedCounts[] = [];
  const flippedToFail: string[] = [];
  const flippedToPass: string[] = [];
  const flaky: PairedAnalysis["flaky"] = [];
  const stableRegressions: PairedAnalysis["stableRegressions"] = [];
  const changedTasks: string[] = [];
  const unpaired: PairedAnalysis["unpaired"] = [];
  const pairedKeys: string[] = [];
  for (const row of rows) {
    if (!row.cells[0] !== !row.cells[j]) unpaired.push({ key: row.key, side: row.cells[0] ? "base" : "candidate" });
    const bothSides = [...(byKey[0].get(row.key) ?? []), ...(byKey[j].get(row.key) ?? [])];
    if (contentDiffers(bothSides)) {
      changedTasks.push(row.key);
      if (!opts.includeChangedTasks) continue;
    }
    const base = row.cells[0];
    const cand = row.cells[j];
    if ((base?.outcome === "flaky" || cand?.outcome === "flaky") && (base?.n || cand?.n)) {
      flaky.push({ key: row.key, base: counts(row.key, base), candidate: counts(row.key, cand) });
    }
    if (!base || !cand || base.n === 0 || cand.n === 0) continue;
    pairedKeys.push(row.key);
    tasksCounts.push({ basePasses: base.passes, baseN: base.n, candidatePasses: cand.passes, candidateN: cand.n });
    if (base.outcome === "pass" && cand.outcome === "fail") flippedToFail.push(row.key);
    if (base.outcome === "fail" && cand.outcome === "pass") flippedToPass.push(row.key);
    if (base.outcome === "pass" && cand.passes / cand.n < 0.5) {
      stableRegressions.push({ key: row.key, base: counts(row.key, base)!, candidate: counts(row.key, cand)! });
    }
    const counted = (ts: ReportTrial[] | undefined) =>
      (ts ?? [])
        .filter((t) => t.status === "done" && (t.verdict === "passed" || t.verdict === "failed"))
        .sort((x, y) => x.repeat - y.repeat || x.seq - y.seq);
    const bs = counted(byKey[0].get(row.key));
    const cs = counted(byKey[j].get(row.key));
    const passed = (ts: ReportTrial[]) => ts.map((t) => t.verdict === "passed");
    const pair = pairRepeats(passed(bs), passed(cs));
    trialPairs += pair.pairs;
    b += pair.b;
    c += pair.c;
    if (pair.once) countedOnce += 1;
  }
  const boot = bootstrapPassRateDiff(tasksCounts, {
    seed: opts.seed ?? 1,
    iterations: opts.bootstrapIterations ?? 2000,
  });
  const rate = (p: number, n: number) => (n > 0 ? p / n : null);
  const sum = (f: (t: PairedCounts) => number) => tasksCounts.reduce((acc, t) => acc + f(t), 0);
  const pairedStats = (g: number) =>
    summarizeTrials(
      pairedKeys.flatMap((key) => byKey[g].get(key) ?? []),
      k,
    );
  const [sb, sc] = [pairedStats(0), pairedStats(j)];
  return {
    base: groups[0].label,
    candidate: groups[j].label,
    changedTasks,
    changedTasksIncluded: opts.includeChangedTasks === true,
    changedAgents: changedAgentsBetween(groups[0].trials, groups[j].trials),
    tasks: tasksCounts.length,
    unpaired,
    trialPairs,
    countedOnce,
    onlyBasePassed: b,
    onlyCandidatePassed: c,
    pValue: mcnemarExact(b, c),
    detectable: detectableDrop(
      trialPairs,
      tasksCounts.flatMap((t) => [
        { passes: t.basePasses, n: t.baseN },
        { passes: t.candidatePasses, n: t.candidateN },
      ]),
      { b, c },
    ),
    basePassRate: rate(
      sum((t) => t.basePasses),
      sum((t) => t.baseN),
    ),
    candidatePassRate: rate(
      sum((t) => t.candidatePasses),
      sum((t) => t.candidateN),
    ),
    diff: boot?.diff ?? null,
    diffInterval: boot ? { low: boot.low, high: boot.high } : null,
    flippedToFail,
    flippedToPass,
    flaky,
    stableRegressions,
    costPerSuccess: { base: sb.costPerSuccess, candidate: sc.costPerSuccess },
    deltas: {
      meanCostPct: pct(sb.meanCostUsd, sc.meanCostUsd),
      costPerSuccessPct: pct(cpsNumber(sb.costPerSuccess), cpsNumber(sc.costPerSuccess)),
      wallP50Pct: pct(sb.wallP50Ms, sc.wallP50Ms),
      wallP95Pct: pct(sb.wallP95Ms, sc.wallP95Ms),
      meanTurnsPct: pct(sb.meanTurns, sc.meanTurns),
      meanActionsPct: pct(sb.meanActions, sc.meanActions),
    },
  };
}

/**
 * Lines groups up per task and analyses each later group against the first. Pure: the same
 * trials and options always give the same comparison (the bootstrap is seeded).
 */
export function compareGroups(
  groups: readonly CompareGroupInput[],
  by: CompareBy,
  opts: CompareOptions = {},
): Comparison {
  const dims = keyDimensions(groups, by);
  const byKey = groups.map((g) => {
    const m = new Map<string, ReportTrial[]>();
    for (const t of g.trials) (m.get(rowKey(t, dims)) ?? m.set(rowKey(t, dims), []).get(rowKey(t, dims))!).push(t);
    return m;
  });
  // Row order: first appearance in trial order, group by group.
  const keys: string[] = [];
  const sample = new Map<string, ReportTrial>();
  for (const g of groups) {
    for (const t of [...g.trials].sort((a, b) => a.runId.localeCompare(b.runId) || a.seq - b.seq)) {
      const key = rowKey(t, dims);
      if (!sample.has(key)) {
        sample.set(key, t);
        keys.push(key);
      }
    }
  }
  const countedPerCell = byKey.flatMap((m) =>
    [...m.values()].map(
      (ts) => ts.filter((t) => t.status === "done" && (t.verdict === "passed" || t.verdict === "failed")).length,
    ),
  );
  const repeatCounts = countedPerCell.filter((n) => n > 0);
  const k = opts.k ?? (repeatCounts.length > 0 ? Math.min(...repeatCounts) : 1);
  const rows: TaskRow[] = keys.map((key) => {
    const t = sample.get(key)!;
    return {
      key,
      taskId: t.taskId,
      ...(dims.includes("mode") ? { mode: t.mode } : {}),
      ...(dims.includes("model") ? { model: t.model } : {}),
      ...(dims.includes("agent") ? { agent: t.agentLabel } : {}),
      cells: byKey.map((m) => {
        const ts = m.get(key);
        return ts ? summarizeTrials(ts, k) : null;
      }),
      changed: contentDiffers(byKey.flatMap((m) => m.get(key) ?? [])),
    };
  });
  const summaries = groups.map((g, i) =>
    summarizeGroup(
      g.trials,
      rows.map((r) => r.cells[i]).filter((c): c is TrialSetStats => c !== null),
      k,
    ),
  );
  return {
    by,
    k,
    groups: groups.map((g, i) => ({ label: g.label, runIds: g.runIds, summary: summaries[i] })),
    tasks: rows,
    paired: groups.slice(1).map((_, i) => pairGroups(groups, rows, byKey, i + 1, k, opts)),
  };
}
