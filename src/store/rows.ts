/**
 * Conversions between SQL rows (snake_case, 0/1 booleans, JSON text) and the store's records.
 * Kept apart from the queries so each query reads as SQL and nothing else.
 */
import { hostname } from "node:os";
import type { ActionRecord, CheckInput, CheckRecord, RunRecord, TrialRecord, TurnRecord } from "./records.js";
import type { Usage } from "../vocabulary.js";

type Row = Record<string, unknown>;

/** Parses a JSON column; a value that does not parse is returned as text rather than lost. */
export function parseJson<T>(text: unknown, fallback: T): T {
  if (typeof text !== "string") return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    return text as unknown as T;
  }
}

const bool = (v: unknown): boolean | null => (v === null || v === undefined ? null : Number(v) !== 0);
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const str = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));

export function runFromRow(r: Row): RunRecord {
  return {
    id: String(r.id),
    startedAt: String(r.started_at),
    endedAt: str(r.ended_at),
    status: r.status === "running" && ownerIsDead(r) ? "interrupted" : (r.status as RunRecord["status"]),
    tags: parseJson<string[]>(r.tags, []),
    options: parseJson<Record<string, unknown>>(r.options, {}),
    umpireVersion: String(r.umpire_version),
    folder: str(r.folder),
    ...(r.environment ? { environment: parseJson<Record<string, unknown>>(r.environment, {}) } : {}),
    ...(r.cpu_trials !== null && r.cpu_trials !== undefined
      ? {
          cpu: {
            seconds: num(r.cpu_seconds),
            trials: Number(r.cpu_trials),
            wallSeconds: Number(r.cpu_wall_seconds ?? 0),
            processes: num(r.cpu_processes),
            notMeasured: str(r.cpu_not_measured),
          },
        }
      : {}),
  };
}

export function trialFromRow(r: Row): TrialRecord {
  return {
    id: String(r.id),
    runId: String(r.run_id),
    seq: Number(r.seq),
    taskId: String(r.task_id),
    taskFile: String(r.task_file),
    agentLabel: String(r.agent_label),
    agentName: str(r.agent_name),
    agentHash: str(r.agent_hash),
    model: String(r.model),
    mode: r.mode as TrialRecord["mode"],
    repeat: Number(r.repeat),
    status: r.status as TrialRecord["status"],
    attempt: Number(r.attempt),
    retried: Number(r.retried) !== 0,
    stopReason: str(r.stop_reason) as TrialRecord["stopReason"],
    stopDetail: str(r.stop_detail),
    verdict: str(r.verdict) as TrialRecord["verdict"],
    claimed: bool(r.claimed),
    verified: bool(r.verified),
    turns: Number(r.turns),
    actions: Number(r.actions),
    inputTokens: num(r.input_tokens),
    outputTokens: num(r.output_tokens),
    reasoningTokens: num(r.reasoning_tokens),
    cachedTokens: num(r.cached_tokens),
    costUsd: num(r.cost_usd),
    wallMs: num(r.wall_ms),
    modelMs: num(r.model_ms),
    executorMs: num(r.executor_ms),
    captureMs: num(r.capture_ms),
    checkMs: num(r.check_ms),
    ttftMsAvg: num(r.ttft_ms_avg),
    folder: str(r.folder),
    error: str(r.error),
    metrics: parseJson<Record<string, unknown>>(r.metrics, {}),
    startedAt: str(r.started_at),
    endedAt: str(r.ended_at),
    shard: str(r.shard),
    answer: str(r.answer),
    taskTitle: str(r.task_title),
    taskTags: r.task_tags === null || r.task_tags === undefined ? null : parseJson<string[]>(r.task_tags, []),
    taskHash: str(r.task_hash),
    // Only when re-judged (issue 29), so a trial never re-judged reads exactly as before.
    ...(r.rejudged_at ? { rejudgedAt: String(r.rejudged_at) } : {}),
    sandbox: str(r.sandbox) as TrialRecord["sandbox"],
  };
}

function usageFromRow(r: Row): Usage | null {
  if (r.input_tokens === null && r.output_tokens === null) return null;
  return {
    inputTokens: Number(r.input_tokens ?? 0),
    outputTokens: Number(r.output_tokens ?? 0),
    reasoningTokens: Number(r.reasoning_tokens ?? 0),
    cachedTokens: Number(r.cached_tokens ?? 0),
  };
}

export function turnFromRow(r: Row): TurnRecord {
  return {
    trialId: String(r.trial_id),
    attempt: Number(r.attempt),
    idx: Number(r.idx),
    startedAt: String(r.started_at),
    outcome: r.outcome as TurnRecord["outcome"],
    finishReason: str(r.finish_reason),
    modelMs: Number(r.model_ms),
    ttftMs: num(r.ttft_ms),
    retries: Number(r.retries),
    usage: usageFromRow(r),
    costUsd: num(r.cost_usd),
    note: str(r.note),
    thought: str(r.thought),
    content: str(r.content),
    reasoning: str(r.reasoning),
    screenshot:
      r.screenshot_path === null
        ? null
        : { path: String(r.screenshot_path), width: Number(r.screenshot_width), height: Number(r.screenshot_height) },
    flags: parseJson<Record<string, unknown>>(r.flags, {}),
  };
}

export function actionFromRow(r: Row): ActionRecord {
  return {
    trialId: String(r.trial_id),
    attempt: Number(r.attempt),
    turnIdx: Number(r.turn_idx),
    idx: Number(r.idx),
    callId: String(r.call_id),
    tool: String(r.tool),
    args: parseJson<unknown>(r.args, null),
    status: r.status as ActionRecord["status"],
    message: String(r.message),
    executorMs: Number(r.executor_ms),
  };
}

export function checkFromRow(r: Row): CheckRecord {
  return {
    trialId: String(r.trial_id),
    attempt: Number(r.attempt),
    idx: Number(r.idx),
    kind: String(r.kind),
    name: String(r.name),
    required: Number(r.required) !== 0,
    pass: Number(r.pass) !== 0,
    confidence: r.confidence as CheckRecord["confidence"],
    reason: String(r.reason),
    evidence: parseJson<unknown>(r.evidence, null),
    ms: Number(r.ms),
  };
}

/** A check's row, the inverse of `checkFromRow`: what a trial's end and a re-judgement both write. */
export function checkRow(trialId: string, attempt: number, idx: number, c: CheckInput): Row {
  return {
    trial_id: trialId,
    attempt,
    idx,
    kind: c.kind,
    name: c.name,
    required: toBit(c.required),
    pass: toBit(c.pass),
    confidence: c.confidence,
    reason: c.reason,
    evidence: toJson(c.evidence ?? null),
    ms: c.ms,
  };
}

/** JSON text for a column; `undefined` becomes `null` so the column is never left unparsable. */
export function toJson(value: unknown): string {
  return JSON.stringify(value === undefined ? null : value);
}

/** SQLite has no boolean: 1/0, and null stays null. */
export function toBit(value: boolean | null | undefined): number | null {
  return value === null || value === undefined ? null : value ? 1 : 0;
}

/** How often a running umpire says it is alive. */
export const HEARTBEAT_MS = 15_000;
/** A heartbeat older than this means the owner is gone (another host, or a reused pid). */
export const HEARTBEAT_STALE_MS = 8 * HEARTBEAT_MS;

/**
 * True when a `running` row's owner is gone: on this host, its pid no longer exists; anywhere, its
 * heartbeat stopped long ago. A run killed with -9 cannot mark itself interrupted, so readers do.
 * Rows written before owners were recorded carry none and are taken as they say.
 */
export function ownerIsDead(r: Row): boolean {
  if (r.owner_pid === null || r.owner_pid === undefined) return false;
  const beat = r.heartbeat_at ? Date.parse(String(r.heartbeat_at)) : NaN;
  if (Number.isFinite(beat) && Date.now() - beat > HEARTBEAT_STALE_MS) return true;
  if (r.owner_host !== hostname()) return false;
  try {
    process.kill(Number(r.owner_pid), 0);
    return false;
  } catch (error) {
    return (error as { code?: string }).code === "ESRCH";
  }
}
