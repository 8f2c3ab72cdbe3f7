/**
 * The per-trial event log: `events.jsonl` in the Agents API envelope (`{type, data, timestamp}`;
 * step events as `AgentEvent` with `data.kind`), conforming to H's published OpenAPI document
 * (`schema/agents-api-openapi.json`; a test validates real trials' logs against it). Where that
 * schema has an enum, the value is the schema's; umpire's own words go in additional fields
 * (e.g. the completion event's `reason` is `finished|stopped|timed_out`, umpire's stop reason is
 * `stop_reason`). Screenshots are stored as files, once per distinct content.
 *
 * Versioned: the first event (`AgentStartedEvent`) carries `format: "umpire.trial-log"` and
 * `format_version`. Readers go through `readTrialLog`, which refuses a newer version instead of
 * misreading it.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { storageError, UmpireError, messageOf } from "../../errors.js";
import { capDeep } from "../../safety/limits.js";
import { scrubDeep } from "../../safety/secrets.js";
import type { StopReason } from "../../vocabulary.js";

export type EnvelopeType =
  | "AgentStartedEvent"
  | "AgentEvent"
  | "MetricsUpdateEvent"
  | "AgentCompletionEvent"
  | "AgentErrorEvent";

/** Names the log format in the first event, so a reader can tell umpire's log from another's. */
export const TRIAL_LOG_FORMAT = "umpire.trial-log";
/**
 * The version this umpire writes. Bump it when a reader of the old format would misread the new
 * one (a field changes meaning or shape), not when a field is added. Version 1: Agents API
 * conformant (issue #12 §4). Logs without a version were written before it and read as version 0.
 */
export const TRIAL_LOG_VERSION = 1;

export interface TrialLog {
  readonly folder: string;
  /** Appends one event; synchronous so a crash loses nothing already said. */
  emit(type: EnvelopeType, data: Record<string, unknown>): void;
  /** Shorthand for an `AgentEvent` step event. */
  step(kind: string, data: Record<string, unknown>): void;
  /** Stores a screenshot once per content; returns its path relative to the trial folder. */
  screenshot(png: Buffer, sha256: string): string;
}

/** Runs a write; a full or read-only disk becomes a `storage` error naming the path (it stops the run). */
export function writeOrFault<T>(path: string, write: () => T): T {
  try {
    return write();
  } catch (error) {
    throw storageError(error, path, "--out");
  }
}

/**
 * An observation's step event, the one way both trial kinds write it: the screenshot stored at `path`
 * (a PNG in the trial folder) and what umpire knew of the page when it took it (`metadata`).
 */
export function logObservation(log: Pick<TrialLog, "step">, path: string, metadata: Record<string, unknown>): void {
  log.step("observation_event", {
    type: "web",
    text: null,
    image: { type: "url", source: path, media_type: "image/png" },
    metadata,
  });
}

export function createTrialLog(folder: string, now: () => Date = () => new Date()): TrialLog {
  writeOrFault(folder, () => mkdirSync(join(folder, "screens"), { recursive: true }));
  const file = join(folder, "events.jsonl");
  return {
    folder,
    emit(type, data) {
      // Untrusted text (model output, error bodies, page text) is scrubbed of known secrets and
      // capped; a cut record lists the cut fields under `truncated`.
      const { value, paths } = capDeep(scrubDeep(data));
      const record = paths.length ? { ...value, truncated: paths } : value;
      writeOrFault(file, () =>
        appendFileSync(file, `${JSON.stringify({ type, data: record, timestamp: now().toISOString() })}\n`),
      );
    },
    step(kind, data) {
      this.emit("AgentEvent", { kind, ...data });
    },
    screenshot(png, sha256) {
      const relative = join("screens", `${sha256.slice(0, 20)}.png`);
      const path = join(folder, relative);
      if (!existsSync(path)) writeOrFault(path, () => writeFileSync(path, png));
      return relative;
    },
  };
}

/** The data of the first event: the format, its version, then what the trial is. */
export function startedEventData(info: Record<string, unknown>): Record<string, unknown> {
  return { format: TRIAL_LOG_FORMAT, format_version: TRIAL_LOG_VERSION, ...info };
}

/**
 * The Agents API completion reason for a stop reason: `finished` when the agent ended the task
 * itself (it answered), `timed_out` when the time limit ended it, `stopped` for every other
 * stop (a limit, the user, the repetition detector, the model or the environment). Unknown future
 * stop reasons are `stopped`: the harness ended the trial.
 */
export function completionReason(stop: StopReason): "finished" | "stopped" | "timed_out" {
  if (stop === "answered") return "finished";
  if (stop === "timeout") return "timed_out";
  return "stopped";
}

export interface TrialLogEvent {
  type: string;
  data: Record<string, unknown>;
  timestamp: string;
}

/**
 * Reads a trial's events.jsonl. Refuses, with a message naming the file and both versions, a log
 * written by a newer umpire (format_version above TRIAL_LOG_VERSION). A log without a version
 * (written before versions existed) reads as version 0.
 */
export function readTrialLog(path: string): { version: number; events: TrialLogEvent[] } {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new UmpireError(
      "input",
      `cannot read the trial log ${path}: ${messageOf(error)}`,
      "pass the events.jsonl of a trial folder",
    );
  }
  const events: TrialLogEvent[] = [];
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    if (line.trim() === "") return;
    try {
      events.push(JSON.parse(line) as TrialLogEvent);
    } catch {
      // The last line may be cut by a crash mid-write; any other broken line is a broken file.
      if (i < lines.length - 2) {
        throw new UmpireError(
          "input",
          `${path}:${i + 1}: not a JSON event`,
          "the trial log is damaged; re-run the trial",
        );
      }
    }
  });
  const first = events[0]?.data ?? {};
  const version = typeof first.format_version === "number" ? first.format_version : 0;
  if (version > TRIAL_LOG_VERSION) {
    throw new UmpireError(
      "input",
      `${path} is trial log format version ${version}; this umpire reads versions up to ${TRIAL_LOG_VERSION}`,
      "read it with the newer umpire that wrote it, or upgrade umpire",
    );
  }
  return { version, events };
}
