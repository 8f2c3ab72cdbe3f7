/**
 * The shared words: each is declared here once, on the bottom layer, so the
 * agent, the checks, the runner, the store and the report speak of one thing by one name.
 * `test/unit/house/vocabulary.test.ts` fails when any of these names is declared again under src/.
 * Nothing here imports anything: every layer may import this file.
 */
import { randomBytes } from "node:crypto";

/** A trial's judgement. `error`: the trial could not be judged (infrastructure), never the agent's fault; `cancelled`: stopped by the user, counts in no rate, and `--resume` runs it again. */
export type Verdict = "passed" | "failed" | "error" | "cancelled";

/**
 * How a check knows what it reports:
 * - `verified`: read the artifact or the application state directly (a file, the effects log);
 * - `observed`: from a fresh view of the page, which shows what the application displays;
 * - `claimed`: only the agent's own words (the final answer).
 */
export type Confidence = "verified" | "observed" | "claimed";

/**
 * How one proposed action ended in the executor; the agent renders it for the model, the store keeps
 * it (the turns table's CHECK lists the same words), an external agent's `tool_result` reports it.
 */
export const ACTION_STATUSES = ["success", "rejected", "failed", "skipped"] as const;
export type ActionStatus = (typeof ACTION_STATUSES)[number];

/**
 * How one model turn ended: `actions` (the reply held calls to run), `invalid` (none could be read
 * as a valid call), `refused`, `truncated` (cut at the token limit) or `error` (the request failed).
 * The agent session gives it, the loop acts on it, the store keeps it per turn.
 */
export const TURN_OUTCOMES = ["actions", "invalid", "refused", "truncated", "error"] as const;
export type TurnOutcome = (typeof TURN_OUTCOMES)[number];

/**
 * The protocols umpire's loop speaks (src/agent/protocols/registry.ts has one entry per name): Holo's
 * JSON structured outputs and native function calling, then each vendor family's computer-use protocol.
 */
export const OUTPUT_MODES = [
  "structured",
  "tools",
  "openai-computer",
  "anthropic-computer",
  "gemini-computer",
  "qwen2.5-vl",
  "qwen3-vl",
  "ui-tars",
] as const;
/** The Holo protocols, which `--mode both` means. */
export const HOLO_MODES = ["structured", "tools"] as const;
export type OutputMode = (typeof OUTPUT_MODES)[number];

/**
 * How a stored trial's agent spoke to umpire: one of the Holo output protocols of umpire's own
 * loop, or `external` for an agent that brings its own loop (config `agents:` of kind `command`),
 * which uses neither protocol. `compare --by mode` groups by it, so an external agent is never
 * lumped with the structured protocol.
 */
export const TRIAL_MODES = [...OUTPUT_MODES, "external"] as const;
export type TrialMode = (typeof TRIAL_MODES)[number];

/** Why a trial's loop stopped: exactly one per finished trial. */
export const STOP_REASONS = [
  // the agent ended it, or a limit did
  "answered",
  "turn_limit",
  "action_limit",
  "token_budget",
  "cost_limit",
  "timeout",
  // the environment ended its episode (a benchmark's page set its done flag): nothing left to play
  "episode_done",
  // the user, the repetition guard
  "cancelled",
  "stuck",
  // the model's output
  "model_refused",
  "model_truncated",
  "model_error",
  "invalid_output",
  // the harness
  "environment_error",
  // an agent that brings its own loop (kind command): its command crashed, exited non-zero, or left no result file
  "agent_crashed",
] as const;
export type StopReason = (typeof STOP_REASONS)[number];

/**
 * `--trace`: whether a trial keeps a Playwright trace (`trace.zip` in its folder): always, only
 * when its verdict is not `passed`, or never.
 */
export const TRACE_MODES = ["off", "on", "retain-on-failure"] as const;
export type TraceMode = (typeof TRACE_MODES)[number];
/** The trace's file name in the trial folder: the runner writes it, the report links it. */
export const TRACE_FILE = "trace.zip";

/**
 * How many trials a run plays at once, decided once from the options and handed as this one value
 * to the concurrency gate, the target pools and the store: pinned to `trials` (`--concurrency N`),
 * or adaptive per model endpoint, the embedded model's endpoint starting at `start`, all endpoints
 * together never above `max` (`--max-concurrency`).
 */
export type ConcurrencyPolicy = { mode: "pinned"; trials: number } | { mode: "adaptive"; start: number; max: number };

/** The most trials a policy ever runs at once: the run-wide cap, and what pools and browsers are sized to. */
export function concurrencyCeiling(policy: ConcurrencyPolicy): number {
  return policy.mode === "pinned" ? policy.trials : policy.max;
}

/** Token counts as the model server reported them. See docs/reporting.md for what each includes. */
export interface Usage {
  /** prompt_tokens: every input token, cached ones included. */
  inputTokens: number;
  /** completion_tokens: every generated token, reasoning included (OpenAI-compatible servers count it there). */
  outputTokens: number;
  /** completion_tokens_details.reasoning_tokens: a part of outputTokens, not an addition to it. */
  reasoningTokens: number;
  /** prompt_tokens_details.cached_tokens: a part of inputTokens. */
  cachedTokens: number;
}

/** One turn's usage as read from a response: a field is null when the server did not say (never 0). */
export type ReportedUsage = { [K in keyof Usage]: number | null };

export const UNKNOWN_USAGE: Readonly<ReportedUsage> = Object.freeze({
  inputTokens: null,
  outputTokens: null,
  reasoningTokens: null,
  cachedTokens: null,
});

/**
 * The one null-to-number converter: a reported usage as countable `Usage`, or null when the server
 * reported neither input nor output tokens (cost and totals are then unknown, not zero). A missing
 * reasoning or cached count is 0: both are parts of the input/output counts, not additions to them.
 */
export function knownUsage(u: ReportedUsage | null | undefined): Usage | null {
  if (!u || (u.inputTokens === null && u.outputTokens === null)) return null;
  return {
    inputTokens: u.inputTokens ?? 0,
    outputTokens: u.outputTokens ?? 0,
    reasoningTokens: u.reasoningTokens ?? 0,
    cachedTokens: u.cachedTokens ?? 0,
  };
}

/**
 * A run id that sorts by start time, `YYYYMMDD-HHMMSS-xxxx` (UTC), e.g. `20250612-143005-7f3a`.
 * The random suffix keeps ids made on different machines (shards) apart.
 */
export function newRunId(startedAt: Date = new Date()): string {
  const iso = startedAt.toISOString(); // 2025-06-12T14:30:05.123Z
  const stamp = `${iso.slice(0, 10).replaceAll("-", "")}-${iso.slice(11, 19).replaceAll(":", "")}`;
  return `${stamp}-${randomBytes(2).toString("hex")}`;
}

/**
 * The tag of a run `umpire validate --self-test` stored: its trials are probes of the tasks (gold,
 * answer-now, negatives), not an evaluation, so `latest`, `--last-failed` and history skip it.
 */
export const SELF_TEST_TAG = "self-test";

/**
 * `<runId>-<seq>` with seq zero-padded to 4 digits so ids sort in trial order. Derived from the
 * position in the deterministic trial order, so the same trial has the same id in every shard's store.
 */
export function trialId(runId: string, seq: number): string {
  return `${runId}-${String(seq).padStart(4, "0")}`;
}
