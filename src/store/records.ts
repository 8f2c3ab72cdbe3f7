/**
 * The shapes the store reads and writes: what goes in (…Input) and what comes out (…Record).
 * Field names are camelCase here and snake_case in SQL; `rows.ts` maps between the two.
 * Timestamps are ISO-8601 strings (UTC), so they sort as text and read well in `sqlite3`.
 */
import type { ActionStatus, Confidence, StopReason, TrialMode, TurnOutcome, Usage, Verdict } from "../vocabulary.js";
import type { StoredRunOptionsInput } from "./run-options.js";

export type RunStatus = "running" | "finished" | "interrupted";
export type TrialStatus = "pending" | "running" | "done";

export interface RunInput {
  /** Given by `--run-id` so that shards of one logical run share it; generated otherwise. */
  id?: string;
  startedAt?: string;
  tags?: string[];
  /** The run's options (`run-options.ts`). Anything that looks like a secret is removed before it is stored. */
  options?: StoredRunOptionsInput;
  umpireVersion: string;
  /** The run's output folder; stored screenshot paths are relative to it. */
  folder?: string | null;
}

export interface RunRecord {
  id: string;
  startedAt: string;
  endedAt: string | null;
  status: RunStatus;
  tags: string[];
  /**
   * The run's options as stored, by whichever umpire version stored them (shown as they are by
   * `runs --json`); `runOptionsOf(run)` parses them into `StoredRunOptions` for a reader that uses them.
   */
  options: Readonly<Record<string, unknown>>;
  umpireVersion: string;
  folder: string | null;
  /** The browser, Playwright, OS, scale factors, fonts and target versions the run ran on (issue 29); absent when not recorded. */
  environment?: Record<string, unknown>;
  /** The CPU its trials spent (issue 42); absent when the run never recorded it (older umpire, or no trial ran). */
  cpu?: RunCpu;
}

/**
 * The CPU a run's trials spent: umpire's process and every process it started (browsers, renderers,
 * command agents, app servers), read from /proc when the trials started and ended; a resumed run adds
 * each session's. At concurrency above 1 the mean per trial is the run's share per trial, not any
 * one episode's own.
 */
export interface RunCpu {
  /** CPU seconds (user + system); null when not measured. */
  seconds: number | null;
  /** Trials that ended in the measured spans (retried attempts' CPU included in `seconds`). */
  trials: number;
  /** Wall seconds of the measured spans. */
  wallSeconds: number;
  /** Processes in umpire's tree at the end of the last span; null when not measured. */
  processes: number | null;
  /** Why it was not measured (or, with `seconds`, why a resumed session was not): null when it all was. */
  notMeasured: string | null;
}

/** A run with its trials counted, for `umpire runs`. */
export interface RunSummary extends RunRecord {
  trials: number;
  done: number;
  passed: number;
  failed: number;
  errors: number;
  /** Trials stopped by the user and not yet re-run (`--resume`). */
  cancelled: number;
  /** Sum of stored trial costs; null when any finished trial's cost is unknown. */
  costUsd: number | null;
  models: string[];
  modes: string[];
}

/** One planned trial as the store records it, before it runs (the runner's plan is `PlannedTrial`). */
export interface TrialInput {
  /** Defaults to `<runId>-<seq>`: deterministic, so merged shards of one run never collide. */
  id?: string;
  /** Position in the deterministic trial order of the whole (unsharded) run. */
  seq: number;
  taskId: string;
  taskFile: string;
  /** Names the agent config (model + mode + options), e.g. `reference/structured`. */
  agentLabel: string;
  model: string;
  /** The Holo protocol of umpire's loop, or `external` for an agent of kind command (its own loop). */
  mode: TrialMode;
  repeat: number;
  /** `i/n` when the trial was run by a shard. */
  shard?: string | null;
  /** The task as planned, so reports never re-read a task file that may have changed since. */
  taskTitle?: string | null;
  taskTags?: readonly string[] | null;
  /** `definitionHash` of the resolved task (src/task/content-hash.ts); compares tell changed tasks by it. */
  taskHash?: string | null;
  /** The named agent (config file `agents:`); null for an agent made of --model/--mode. */
  agentName?: string | null;
  /** `definitionHash` of the agent's resolved definition; compares tell a changed agent by it. */
  agentHash?: string | null;
}

export interface Timing {
  wallMs: number;
  modelMs: number;
  executorMs: number;
  captureMs: number;
  checkMs: number;
}

/** What the loop knows when a trial ends; `finishTrial` stores it with the checks in one transaction. */
export interface TrialResult {
  stopReason: StopReason;
  /** The human line beside the stop reason: "turn cap reached, note missing". */
  stopDetail: string;
  verdict: Verdict;
  /** The agent's final answer, verbatim; null when it never answered. */
  answer?: string | null;
  claimed: boolean;
  verified: boolean;
  turns: number;
  actions: number;
  /** null when the server never reported usage. */
  usage: Usage | null;
  /** null when the model's price is unknown or some turn's usage was not reported. */
  costUsd: number | null;
  timing: Timing;
  /** Mean time to first token over streamed turns; null when not streamed. */
  ttftMsAvg?: number | null;
  /** The infrastructure error behind an `error` verdict, as one line. */
  error?: string | null;
  /** Loop metrics, e.g. repetition: `{ stuckSteps, reflections, recoveries }`. */
  metrics?: Record<string, unknown>;
  endedAt?: string;
}

/** A stored trial: what was planned (`TrialInput`), then how it went. */
export interface TrialRecord extends Omit<TrialInput, "id" | "shard"> {
  id: string;
  runId: string;
  status: TrialStatus;
  /** 0 before the first start; each start (retry, resume) takes the next number. */
  attempt: number;
  /** True once the trial was reset for an automatic infrastructure retry. */
  retried: boolean;
  stopReason: StopReason | null;
  stopDetail: string | null;
  verdict: Verdict | null;
  claimed: boolean | null;
  verified: boolean | null;
  turns: number;
  actions: number;
  inputTokens: number | null;
  outputTokens: number | null;
  reasoningTokens: number | null;
  cachedTokens: number | null;
  costUsd: number | null;
  wallMs: number | null;
  modelMs: number | null;
  executorMs: number | null;
  captureMs: number | null;
  checkMs: number | null;
  ttftMsAvg: number | null;
  folder: string | null;
  error: string | null;
  metrics: Record<string, unknown>;
  startedAt: string | null;
  endedAt: string | null;
  shard: string | null;
  /** The agent's final answer of the current attempt; null when it did not answer (or not yet). */
  answer: string | null;
  /** The task as it was run; null for trials stored before schema version 3. */
  taskTitle: string | null;
  taskTags: string[] | null;
  taskHash: string | null;
  /** The named agent; null for an unnamed one, or for trials stored before schema version 5. */
  agentName: string | null;
  /** The agent definition's hash; null when unknown (stored before schema version 5). */
  agentHash: string | null;
  /** When the trial was last judged again by `umpire rejudge` (its verdict and checks are that judgement's); absent when never. */
  rejudgedAt?: string;
  /**
   * The sandbox a command agent's attempt ran in: `bubblewrap`, or `none` (--no-sandbox, or it could
   * not start); null for umpire's own loop, and for trials stored before schema version 10.
   */
  sandbox: TrialSandbox | null;
}

/** What held a command agent's code during a trial. */
export type TrialSandbox = "bubblewrap" | "none";

export interface TurnInput {
  trialId: string;
  idx: number;
  startedAt?: string;
  outcome: TurnOutcome;
  finishReason?: string | null;
  modelMs: number;
  ttftMs?: number | null;
  retries?: number;
  usage: Usage | null;
  costUsd: number | null;
  note?: string | null;
  thought?: string | null;
  content?: string | null;
  /** The reasoning trace, kept in full (it is evidence, and never sent back to the model). */
  reasoning?: string | null;
  /** The observation sent with this turn: path relative to the run folder, and its pixel size. */
  screenshot?: { path: string; width: number; height: number } | null;
  /** e.g. `{ reflection: true }` when the turn followed a reflection message. */
  flags?: Record<string, unknown>;
}

export interface TurnRecord extends Omit<TurnInput, "usage" | "startedAt" | "flags" | "screenshot"> {
  attempt: number;
  startedAt: string;
  finishReason: string | null;
  ttftMs: number | null;
  retries: number;
  usage: Usage | null;
  note: string | null;
  thought: string | null;
  content: string | null;
  reasoning: string | null;
  screenshot: { path: string; width: number; height: number } | null;
  flags: Record<string, unknown>;
}

export interface ActionInput {
  trialId: string;
  turnIdx: number;
  /** Position of the action within its turn. */
  idx: number;
  /** The call's stable id (tool_call_id in function-calling mode). */
  callId: string;
  tool: string;
  args: unknown;
  status: ActionStatus;
  message: string;
  executorMs: number;
}

export interface ActionRecord extends ActionInput {
  attempt: number;
}

/** The checks contract's CheckResult (ARCHITECTURE.md), as stored. */
export interface CheckInput {
  kind: string;
  name: string;
  required: boolean;
  pass: boolean;
  confidence: Confidence;
  reason: string;
  evidence?: unknown;
  ms: number;
}

/** What names and judges a check, without its evidence and time (a trial's JSON, a JUnit case). */
export type CheckSummary = Pick<CheckInput, "kind" | "name" | "required" | "pass" | "confidence" | "reason">;

/** Those fields of a check, picked from anything that carries them (a check's result, a stored row). */
export function checkSummary(c: CheckSummary): CheckSummary {
  return { kind: c.kind, name: c.name, required: c.required, pass: c.pass, confidence: c.confidence, reason: c.reason };
}

/** A check's stored fields, picked from anything that carries them: what a trial's end and a re-judgement write. */
export function checkInput(c: CheckInput): CheckInput {
  return { ...checkSummary(c), evidence: c.evidence, ms: c.ms };
}

export interface CheckRecord extends CheckInput {
  trialId: string;
  attempt: number;
  idx: number;
  evidence: unknown;
}

/** Mean duration of earlier finished trials, for duration-aware shards. */
export interface DurationHistoryEntry {
  taskId: string;
  agentLabel: string;
  meanWallMs: number;
  trials: number;
}
