/**
 * The per-trial event log: `events.jsonl` in the Agents API envelope
 * (`{type, data, timestamp}`; step events as `AgentEvent` with `data.kind`), and screenshots
 * stored as files, once per distinct content.
 */
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { storageError } from "../errors.js";
import { capDeep } from "../safety/limits.js";
import { scrubDeep } from "../safety/secrets.js";

export type EnvelopeType = "AgentStartedEvent" | "AgentEvent" | "MetricsUpdateEvent" | "AgentCompletionEvent" | "AgentErrorEvent";

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
      writeOrFault(file, () => appendFileSync(file, `${JSON.stringify({ type, data: record, timestamp: now().toISOString() })}\n`));
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
