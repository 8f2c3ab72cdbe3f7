/**
 * Where a trial's time went. Inside one trial everything is sequential (observe, ask the model,
 * execute, observe again, then check), so the parts add up to a lower bound of the wall time:
 * four 2 s model turns and 4 s of computer operations take at least 12 s. What the parts do not
 * explain (`otherMs`) is the harness's own bookkeeping, waits for pages to settle, and set-up.
 */

export interface LatencyParts {
  modelMs: number;
  executorMs: number;
  captureMs: number;
  checkMs: number;
}

export interface DurationExplained extends LatencyParts {
  wallMs: number;
  /** model + executor + capture + checks: the least the trial could have taken. */
  sequentialMs: number;
  /** wall - sequential; negative only if the timings were recorded wrongly. */
  otherMs: number;
  /** True when the sequential sum does not exceed the wall time (it must not). */
  consistent: boolean;
}

/** The sequential sum of a trial's recorded parts, and what is left of the wall time. */
export function explainDuration(wallMs: number, parts: LatencyParts): DurationExplained {
  const sequentialMs = minimumDuration([parts.modelMs], [parts.executorMs, parts.captureMs, parts.checkMs]);
  return { ...parts, wallMs, sequentialMs, otherMs: wallMs - sequentialMs, consistent: sequentialMs <= wallMs + 1e-6 };
}

/**
 * The least time a sequence of model turns and operations can take when nothing overlaps:
 * the sum of both. `minimumDuration([2000, 2000, 2000, 2000], [4000])` is 12000.
 */
export function minimumDuration(modelTurnsMs: readonly number[], operationsMs: readonly number[]): number {
  let total = 0;
  for (const ms of modelTurnsMs) total += ms;
  for (const ms of operationsMs) total += ms;
  return total;
}
