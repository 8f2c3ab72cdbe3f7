/**
 * The model's proposals umpire refused, by kind (src/agent/action-validation.ts), per agent config of
 * a run (#41): whether a family's replies went unrun because it asked for something umpire cannot do
 * (`unsupported_action`, a fact about the harness) or because it emitted something unusable
 * (`invalid_json`, `missing_fields`, ..., the model's own). Read from each trial's `metrics.invalid`,
 * which umpire's loop stores; a trial without it (stored before, or not umpire's loop) is not counted,
 * and a group with no such trial has no count at all, never a 0 it did not measure.
 */
import { formatStopMix } from "./format.js";

export interface InvalidCalls {
  model: string;
  mode: string;
  /** Refused proposals (`skipped` calls, valid but after a refused one, are not counted). */
  total: number;
  /** Kind -> count, most frequent first. */
  byKind: Record<string, number>;
}

/** A trial's stored counts by kind, or null when it has none (an older row, another kind of loop). */
function storedCounts(metrics: Record<string, unknown>): Record<string, number> | null {
  const value = metrics.invalid;
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  return Object.fromEntries(
    Object.entries(value).filter((e): e is [string, number] => typeof e[1] === "number" && e[1] > 0),
  );
}

/** Per agent config (model and mode, as `show` groups trials), in first-seen order. */
export function invalidCallsByAgent(
  trials: readonly { model: string; mode: string; metrics: Record<string, unknown> }[],
): InvalidCalls[] {
  const groups = new Map<string, InvalidCalls>();
  for (const trial of trials) {
    const counts = storedCounts(trial.metrics);
    if (!counts) continue;
    const key = `${trial.model} · ${trial.mode}`;
    const group = groups.get(key) ?? { model: trial.model, mode: trial.mode, total: 0, byKind: {} };
    groups.set(key, group);
    for (const [kind, n] of Object.entries(counts)) {
      group.byKind[kind] = (group.byKind[kind] ?? 0) + n;
      group.total += n;
    }
  }
  return [...groups.values()].map((g) => ({
    ...g,
    byKind: Object.fromEntries(Object.entries(g.byKind).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))),
  }));
}

/** `invalid calls 3 (unsupported_action 2, missing_fields 1)`; null when there were none. */
export function invalidCallsText(calls: InvalidCalls | undefined): string | null {
  if (!calls || calls.total === 0) return null;
  return `invalid calls ${calls.total} (${formatStopMix(calls.byKind)})`;
}
