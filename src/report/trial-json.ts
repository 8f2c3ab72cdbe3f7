/**
 * The JSON shape of a trial, shared by `umpire run --json` and `umpire show --json` so scripts
 * read one format. Costs are numbers in USD or null when unknown (never 0 for unknown).
 */
import { cpuJson, type RunCpuJson } from "./run-cpu.js";
import { checkSummary, type CheckSummary, type RunRecord, type TrialRecord } from "../store/records.js";
import { environmentOf } from "./environment-diff.js";
import { runNotes, type RunNotes } from "./run-notes.js";
import { invalidCallsByAgent, type InvalidCalls } from "./invalid-calls.js";

export interface TrialJson {
  id: string;
  task: string;
  taskFile: string;
  /** The task as it was run: title, tags and content hash (null for trials stored before schema 3). */
  taskTitle: string | null;
  taskTags: string[] | null;
  taskHash: string | null;
  agent: string;
  mode: string;
  /** A command agent's sandbox this attempt: `bubblewrap` or `none`; null for umpire's own loop (or unknown). */
  sandbox: string | null;
  model: string;
  repeat: number;
  status: string;
  attempt: number;
  retried: boolean;
  stopReason: string | null;
  stopDetail: string | null;
  verdict: string | null;
  claimed: boolean | null;
  verified: boolean | null;
  /** The agent's final answer, verbatim; null when it did not answer. */
  answer: string | null;
  checks: { kind: string; name: string; required: boolean; pass: boolean; confidence: string; reason: string }[];
  turns: number;
  actions: number;
  usage: {
    inputTokens: number | null;
    outputTokens: number | null;
    reasoningTokens: number | null;
    cachedTokens: number | null;
  };
  costUsd: number | null;
  timing: {
    wallMs: number | null;
    modelMs: number | null;
    executorMs: number | null;
    captureMs: number | null;
    checkMs: number | null;
    ttftMsAvg: number | null;
  };
  metrics: Record<string, unknown>;
  error: string | null;
  folder: string | null;
}

/** One trial and its checks as JSON. `trial.costUsd` is written as given (see `reportedCost`). */
export function trialToJson(trial: TrialRecord, checks: readonly CheckSummary[]): TrialJson {
  return {
    id: trial.id,
    task: trial.taskId,
    taskFile: trial.taskFile,
    taskTitle: trial.taskTitle,
    taskTags: trial.taskTags,
    taskHash: trial.taskHash,
    agent: trial.agentLabel,
    mode: trial.mode,
    sandbox: trial.sandbox ?? null,
    model: trial.model,
    repeat: trial.repeat,
    status: trial.status,
    attempt: trial.attempt,
    retried: trial.retried,
    stopReason: trial.stopReason,
    stopDetail: trial.stopDetail,
    verdict: trial.verdict,
    ...(trial.rejudgedAt ? { rejudgedAt: trial.rejudgedAt } : {}),
    claimed: trial.claimed,
    verified: trial.verified,
    answer: trial.answer,
    checks: checks.map(checkSummary),
    turns: trial.turns,
    actions: trial.actions,
    usage: {
      inputTokens: trial.inputTokens,
      outputTokens: trial.outputTokens,
      reasoningTokens: trial.reasoningTokens,
      cachedTokens: trial.cachedTokens,
    },
    costUsd: trial.costUsd,
    timing: {
      wallMs: trial.wallMs,
      modelMs: trial.modelMs,
      executorMs: trial.executorMs,
      captureMs: trial.captureMs,
      checkMs: trial.checkMs,
      ttftMsAvg: trial.ttftMsAvg,
    },
    metrics: trial.metrics,
    error: trial.error,
    folder: trial.folder,
  };
}

export interface RunJson {
  runId: string;
  status: string;
  startedAt: string;
  endedAt: string | null;
  tags: string[];
  umpireVersion: string;
  /** What the run ran on (browser, Playwright, Node, OS, fonts, targets, umpire); null when not recorded. */
  environment: Record<string, unknown> | null;
  /** The CPU its trials spent (umpire and every process it started), per trial a mean (src/report/run-cpu.ts). */
  cpu: RunCpuJson;
  /** Named agents whose protocol was inferred from the model id (or defaulted), not written in their entry. */
  inferredProtocols: RunNotes["inferredProtocols"];
  /** Task x agent pairs left out: the agent's protocol cannot offer a tool the task needs (never failures). */
  notPlayed: RunNotes["notPlayed"];
  /** Per agent (its label; two named agents of one model and mode are two): the calls umpire refused, by kind; only agents whose trials recorded them. */
  invalidCalls: InvalidCalls[];
  trials: TrialJson[];
}

/** A run with its trials as JSON: what `run --json` and `show --json` print. */
export function runToJson(run: RunRecord, trials: TrialJson[]): RunJson {
  return {
    runId: run.id,
    status: run.status,
    startedAt: run.startedAt,
    endedAt: run.endedAt,
    tags: run.tags,
    umpireVersion: run.umpireVersion,
    environment: environmentOf(run) ?? null,
    cpu: cpuJson(run),
    // #41: named agents whose protocol was inferred, and the pairs left out as not playable.
    ...runNotes(run),
    invalidCalls: invalidCallsByAgent(trials.map((t) => ({ ...t, agentLabel: t.agent }))),
    trials,
  };
}
