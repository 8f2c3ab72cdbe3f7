/**
 * `umpire run --until-decided --baseline RUN`: after the planned trials, adds one repeat per round
 * to every task whose comparison with the baseline is still undecided (src/report/sequential.ts),
 * until each is decided, `--max-trials` trials were added, or `--max-cost` USD was spent.
 */
import { UmpireError } from "../../errors.js";
import type { PriceBook } from "../../pricing.js";
import { reportedCost, sumCosts } from "../../report/cost.js";
import type { RepeatCounts } from "../../report/power.js";
import {
  DEFAULT_DECISION,
  decideTask,
  nextRound,
  sameEveryRepeat,
  type TaskDecision,
} from "../../report/sequential.js";
import { storedPlan, type PlannedTrial } from "../../runner/schedule/trial-plan.js";
import type { Store } from "../../store/store.js";
import type { TrialRecord } from "../../store/records.js";
import { trialId } from "../../vocabulary.js";
import type { Values } from "../args.js";
import { resolveBaseline } from "../baseline.js";
import { compareGroups } from "../../report/compare.js";
import { changeLines, sidesOf } from "../../report/agent-changes.js";

/** --until-decided adds at most this many times the planned trials unless --max-trials says otherwise. */
const MAX_TRIALS_PER_PLANNED = 10;

export const UNTIL_DECIDED_OPTIONS = {
  "until-decided": {
    kind: "boolean",
    help: "after the planned trials, add repeats to the tasks whose comparison with\n--baseline is still undecided (an always-valid sequential test; docs/reporting.md)",
  },
  baseline: { kind: "string", arg: "RUN|TAG", help: "the run --until-decided compares against" },
  "max-trials": {
    kind: "int",
    arg: "N",
    min: 1,
    defaultText: `${MAX_TRIALS_PER_PLANNED} x the planned trials`,
    help: "--until-decided adds at most N trials",
  },
  "max-cost": {
    kind: "number",
    arg: "USD",
    min: 0,
    help: "stop the run's model requests once it has spent USD (checked before each\nrequest; trials it stops are cancelled, --resume runs them); needs prices",
  },
} as const;

/** The options above as parsed, and `--resume` (a resumed run keeps the baseline it stored). */
export type UntilDecidedValues = Values<typeof UNTIL_DECIDED_OPTIONS> & { resume?: string };

export interface TaskStanding {
  task: string;
  agent: string;
  /** "task changed": the task's content differs from the baseline's, so no repeat can make it like-for-like. */
  decision: TaskDecision | "not in baseline" | "task changed";
  base: RepeatCounts;
  candidate: RepeatCounts;
}

export interface DecisionSummary {
  baseline: string;
  rounds: number;
  added: number;
  spentUsd: number | null;
  stoppedBy: "all decided" | "max trials" | "max cost" | "interrupted";
  /** What changed between the baseline and this run (an edited agent, an edited task), said first. */
  changes: string[];
  tasks: TaskStanding[];
}

/** Checks the flags before anything runs; returns the baseline run id, or null without --until-decided. */
export function untilDecidedBaseline(values: UntilDecidedValues, store: Store): string | null {
  if (!values["until-decided"]) {
    const stray = (["baseline", "max-trials"] as const).find((k) => values[k] !== undefined);
    if (stray) throw new UmpireError("usage", `--${stray} is for --until-decided`, "add --until-decided, or drop it");
    return null;
  }
  if (values.resume)
    throw new UmpireError("usage", "--until-decided does not go with --resume", "start a new run with --until-decided");
  if (!values.baseline)
    throw new UmpireError(
      "usage",
      "--until-decided needs --baseline RUN|TAG",
      "umpire run --until-decided --baseline <run id or tag>",
    );
  return resolveBaseline(store, values.baseline, []).id;
}

const counted = (t: TrialRecord) => t.status === "done" && (t.verdict === "passed" || t.verdict === "failed");

function countsBy(trials: readonly TrialRecord[], key: (t: TrialRecord) => string): Map<string, RepeatCounts> {
  const byKey = new Map<string, RepeatCounts>();
  for (const t of trials.filter(counted)) {
    const c = byKey.get(key(t)) ?? byKey.set(key(t), { passes: 0, n: 0 }).get(key(t))!;
    c.n += 1;
    if (t.verdict === "passed") c.passes += 1;
  }
  return byKey;
}

/** The known content hashes of each task among `trials`. */
function taskHashes(trials: readonly TrialRecord[]): Map<string, Set<string>> {
  const byTask = new Map<string, Set<string>>();
  for (const t of trials)
    if (t.taskHash) (byTask.get(t.taskId) ?? byTask.set(t.taskId, new Set()).get(t.taskId)!).add(t.taskHash);
  return byTask;
}

/**
 * Where every task x agent of the run stands against the baseline: paired by task id and agent
 * NAME (an agent edited under its name is the change under test); with one agent on the baseline
 * side of a task, that one whatever its name. A task whose content changed is left out.
 */
export function standings(
  store: Store,
  runId: string,
  baselineId: string,
  alpha = DEFAULT_DECISION.alpha,
): TaskStanding[] {
  const mine = store.trials(runId);
  const theirs = store.trials(baselineId);
  const base = countsBy(theirs, (t) => `${t.taskId}\u0000${t.agentLabel}`);
  const baseByTask = countsBy(theirs, (t) => t.taskId);
  const baseAgents = new Map<string, Set<string>>();
  for (const t of theirs)
    (baseAgents.get(t.taskId) ?? baseAgents.set(t.taskId, new Set()).get(t.taskId)!).add(t.agentLabel);
  const pairs = [...new Map(mine.map((t) => [`${t.taskId}\u0000${t.agentLabel}`, t])).values()];
  const cand = countsBy(mine, (t) => `${t.taskId}\u0000${t.agentLabel}`);
  const [baseHashes, candHashes] = [taskHashes(theirs), taskHashes(mine)];
  const changed = (task: string) =>
    [...(candHashes.get(task) ?? [])].some((h) => baseHashes.has(task) && !baseHashes.get(task)!.has(h));
  const rows = pairs.map((t) => {
    const key = `${t.taskId}\u0000${t.agentLabel}`;
    // One agent on the baseline side for this task: that is the one compared against, whatever its label.
    const b = base.get(key) ?? (baseAgents.get(t.taskId)?.size === 1 ? baseByTask.get(t.taskId) : undefined);
    return {
      task: t.taskId,
      agent: t.agentLabel,
      base: b ?? { passes: 0, n: 0 },
      candidate: cand.get(key) ?? { passes: 0, n: 0 },
      known: b !== undefined,
      taskChanged: changed(t.taskId),
    };
  });
  const family = Math.max(1, rows.filter((r) => r.known && !r.taskChanged).length);
  return rows.map(({ known, taskChanged, ...r }) => ({
    ...r,
    decision: !known
      ? "not in baseline"
      : taskChanged
        ? "task changed"
        : decideTask(r.base, r.candidate, { ...DEFAULT_DECISION, alpha, tasks: family }),
  }));
}

export interface UntilDecidedContext {
  store: Store;
  runId: string;
  baselineId: string;
  /** The trials planned so far (the first round); new ones are planned from them. */
  planned: readonly PlannedTrial[];
  prices: PriceBook;
  maxTrials?: number;
  maxCostUsd?: number;
  /** Runs a batch of trials (already stored); resolves with the batch's status. */
  execute: (batch: PlannedTrial[]) => Promise<{ status: "finished" | "interrupted"; stoppedEarly?: unknown }>;
}

const spent = (store: Store, runId: string, prices: PriceBook) =>
  sumCosts(store.trials(runId).map((t) => reportedCost(t, prices)));

/** Adds rounds of repeats until every task is decided or a limit is reached; returns what was spent and decided. */
export async function addRepeatsUntilDecided(ctx: UntilDecidedContext): Promise<DecisionSummary> {
  const maxTrials = ctx.maxTrials ?? MAX_TRIALS_PER_PLANNED * ctx.planned.length;
  const byPair = new Map(ctx.planned.map((t) => [`${t.task.id}\u0000${t.agent.label}`, t]));
  const nextRepeat = new Map<string, number>();
  for (const t of ctx.planned)
    nextRepeat.set(
      `${t.task.id}\u0000${t.agent.label}`,
      Math.max(nextRepeat.get(`${t.task.id}\u0000${t.agent.label}`) ?? 0, t.repeat + 1),
    );
  let nextSeq = Math.max(-1, ...ctx.store.trials(ctx.runId).map((t) => t.seq)) + 1;
  let added = 0;
  let rounds = 0;
  let stoppedBy: DecisionSummary["stoppedBy"];
  for (;;) {
    const now = standings(ctx.store, ctx.runId, ctx.baselineId);
    if (nextRound(now, 0, Number.POSITIVE_INFINITY).length === 0) {
      stoppedBy = "all decided";
      break;
    }
    const cost = spent(ctx.store, ctx.runId, ctx.prices);
    if (ctx.maxCostUsd !== undefined && cost !== null && cost >= ctx.maxCostUsd) {
      stoppedBy = "max cost";
      break;
    }
    if (added >= maxTrials) {
      stoppedBy = "max trials";
      break;
    }
    const batch = nextRound(now, added, maxTrials).map((s) => {
      const key = `${s.task}\u0000${s.agent}`;
      const like = byPair.get(key)!;
      const repeat = nextRepeat.get(key)!;
      nextRepeat.set(key, repeat + 1);
      const seq = nextSeq++;
      return { ...like, id: trialId(ctx.runId, seq), seq, repeat };
    });
    ctx.store.addTrials(
      ctx.runId,
      batch.map((t) => storedPlan(t)),
    );
    added += batch.length;
    rounds += 1;
    const result = await ctx.execute(batch);
    if (result.status === "interrupted" || result.stoppedEarly) {
      stoppedBy = "interrupted";
      break;
    }
  }
  return {
    baseline: ctx.baselineId,
    rounds,
    added,
    spentUsd: spent(ctx.store, ctx.runId, ctx.prices),
    stoppedBy,
    changes: changesAgainst(ctx.store, ctx.baselineId, ctx.runId),
    tasks: standings(ctx.store, ctx.runId, ctx.baselineId),
  };
}

/** The lines `compare` would say first about these two runs (src/report/agent-changes.ts). */
function changesAgainst(store: Store, baselineId: string, runId: string): string[] {
  const groups = [baselineId, runId].map((id) => ({ label: id, runIds: [id], trials: store.trials(id) }));
  const comparison = compareGroups(groups, "run");
  const side = (label: string) => groups.find((g) => g.label === label)?.trials ?? [];
  return changeLines(
    comparison,
    sidesOf(comparison, (id) => store.getRun(id), side),
  );
}

const ratio = (c: RepeatCounts) => `${c.passes}/${c.n}`;

const SAME = "same every repeat";

/** What a decision's line adds after its tasks: why an undecidable task got no more repeats. */
const DECISION_NOTES: Partial<Record<TaskStanding["decision"], string>> = {
  undecidable: `(${SAME} on both sides: more repeats add no information, and the baseline's repeats cannot rule out
                  a change of ${DEFAULT_DECISION.detect * 100} points the other way; rerun the baseline with more repeats)`,
};

const SAME_NOTE = `  (${SAME}: every repeat of the task gave one result on both sides. If the agent is deterministic, its
  repeats are copies: "no change" then says only that the one behaviour seen did not change)`;

const same = (t: TaskStanding) => t.decision !== "not in baseline" && sameEveryRepeat(t.base, t.candidate);

/** The summary lines: what was spent and what was decided. */
export function decisionText(s: DecisionSummary): string {
  const group = (d: TaskStanding["decision"]) => s.tasks.filter((t) => t.decision === d);
  const task = (t: TaskStanding) =>
    `${t.task} [${t.agent}] ${ratio(t.base)} -> ${ratio(t.candidate)}${t.decision !== "undecidable" && same(t) ? ` (${SAME})` : ""}`;
  const line = (d: TaskStanding["decision"]) => {
    const ts = group(d);
    const note = DECISION_NOTES[d];
    return ts.length === 0
      ? []
      : [`  ${d.padEnd(16)}${ts.map(task).join(", ")}`, ...(note ? [`  ${"".padEnd(16)}${note}`] : [])];
  };
  const cost = s.spentUsd === null ? "unknown cost" : `$${s.spentUsd.toFixed(4)} spent by the run`;
  return [
    `until decided against ${s.baseline}: ${s.added} trials added in ${s.rounds} rounds, ${cost}; stopped: ${s.stoppedBy}`,
    ...s.changes.map((c) => `  ${c}`),
    ...(
      ["worse", "better", "no change", "undecidable", "undecided", "not in baseline", "task changed"] as const
    ).flatMap(line),
    ...(s.tasks.some((t) => t.decision !== "undecidable" && same(t)) ? [SAME_NOTE] : []),
    "",
  ].join("\n");
}

/**
 * After a run with --max-cost: the line saying it stopped trials unjudged (exit 130 like an
 * interrupted run: `--resume` runs them), or null when the money lasted.
 */
export function moneyStopNotice(
  store: Store,
  runId: string,
  spend: { limitUsd: number; spentUsd: number },
): string | null {
  const stopped = store.trials(runId).filter((t) => t.stopReason === "cost_limit" && t.verdict === "cancelled").length;
  if (stopped === 0) return null;
  const usd = (x: number) => `$${Number(x.toPrecision(3))}`;
  return `umpire: the run reached --max-cost ${usd(spend.limitUsd)} (${usd(spend.spentUsd)} spent); ${stopped} trial${stopped === 1 ? " was" : "s were"} stopped unjudged: umpire run --resume ${runId} runs them\n`;
}
