/**
 * Identifiers. Run ids sort by start time and carry a random suffix, so ids made on different
 * machines (shards) never collide; trial ids derive from the run id and the trial's position in
 * the deterministic trial order, so the same trial has the same id in every shard's store.
 */
import { randomBytes } from "node:crypto";

/** `YYYYMMDD-HHMMSS-xxxx` (UTC), e.g. `20250612-143005-7f3a`. */
export function newRunId(startedAt: Date = new Date()): string {
  const iso = startedAt.toISOString(); // 2025-06-12T14:30:05.123Z
  const stamp = `${iso.slice(0, 10).replaceAll("-", "")}-${iso.slice(11, 19).replaceAll(":", "")}`;
  return `${stamp}-${randomBytes(2).toString("hex")}`;
}

/** `<runId>-<seq>` with seq zero-padded to 4 digits so ids sort in trial order. */
export function trialIdFor(runId: string, seq: number): string {
  return `${runId}-${String(seq).padStart(4, "0")}`;
}
