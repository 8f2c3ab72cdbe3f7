/**
 * The run summary's note on each declared target: how many copies of the app ran, how many trials
 * ran on it at once, how long trials waited for an instance and what a reset cost; and, when the
 * target took its trials one at a time, that it was pinned and why.
 */
import type { Target } from "./contract.js";
import type { PoolReport } from "./instance-pool.js";

const seconds = (ms: number) => `${(ms / 1000).toFixed(ms >= 10_000 ? 0 : 2)} s`;

export function describePool(r: PoolReport): string {
  if (r.trials === 0) return `target notes: ${r.target}: no trials ran`;
  const parts = [
    `${r.instances} instance${r.instances === 1 ? "" : "s"}${r.sizedBy ? ` (${r.sizedBy})` : ""}`,
    `peak ${r.peak} at once`,
    `waited ${seconds(r.waitedMs / r.trials)} per trial`,
    r.resets > 0 ? `reset ${seconds(r.resetMs / r.resets)} per trial` : "no reset",
  ];
  if (r.memoryBytes) parts.push(`${Math.round(r.memoryBytes / (1024 * 1024))} MB per instance`);
  const pinned = !r.isolated && r.instances === 1 && r.trials > 1;
  return `target notes: ${r.target}: ${parts.join(", ")}${pinned ? "; pinned: isolated false (one trial at a time; instances: N runs N at once)" : ""}`;
}

/** One note per declared target that ran trials in the run. */
export function describePools(reports: readonly PoolReport[]): string[] {
  return reports.map(describePool);
}

/** The pool reports of the targets that ran trials (declared targets; the fixture keeps none). */
export function poolReports(targets: readonly Target[]): PoolReport[] {
  return targets.flatMap((t) => (t.poolReport ? [t.poolReport()] : [])).filter((r) => r.trials > 0);
}
