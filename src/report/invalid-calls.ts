/**
 * The model's proposals umpire refused, by kind (src/agent/action-validation.ts), per agent config of
 * a run (#41): whether a family's replies went unrun because it asked for something umpire cannot do
 * (`unsupported_action`, a fact about the harness) or because it emitted something unusable
 * (`invalid_json`, `missing_fields`, ..., the model's own). Read from each trial's `metrics.invalid`
 * (and a turn's `flags.invalid`), which umpire's loop stores; a trial without it (stored before, or not
 * umpire's loop) is not counted, and a group with no such trial has no count at all, never a 0 it did
 * not measure.
 *
 * Groups with different numbers of trials (or of turns per trial) are compared by a rate: refused calls
 * per turn, over the turns of the trials that recorded them (`invalidCallRate`), as `compare` and the
 * HTML report show it.
 */
import { formatRate, formatStopMix, NONE, plural } from "./format.js";

export interface InvalidCalls {
  /** The agent's label: a named agent's name, or an unnamed one's `model/mode`. */
  agent: string;
  model: string;
  mode: string;
  /** Refused proposals (`skipped` calls, valid but after a refused one, are not counted). */
  total: number;
  /** Kind -> count, most frequent first. */
  byKind: Record<string, number>;
}

/** The refused calls of a set of trials (a compared group or task, an agent config of the report). */
export interface InvalidCallRate {
  /** Refused proposals over the trials that recorded them. */
  total: number;
  /** Kind -> count, most frequent first. */
  byKind: Record<string, number>;
  /** The turns of those trials: the rate's denominator. */
  turns: number;
  /** `total / turns`; null when they played no turn. */
  perTurn: number | null;
  /** Finished trials with stored counts. */
  recorded: number;
  /** Finished trials without (stored before umpire kept kinds, or a command agent's): in no figure above. */
  notRecorded: number;
}

/** Counts by kind (a trial's metrics or a turn's flags, `.invalid`), or null when it has none. */
function storedCounts(record: Record<string, unknown> | undefined): Record<string, number> | null {
  const value = record?.invalid;
  if (value === null || typeof value !== "object" || Array.isArray(value)) return null;
  return Object.fromEntries(
    Object.entries(value).filter((e): e is [string, number] => typeof e[1] === "number" && e[1] > 0),
  );
}

/** Adds `counts` into `into` (kind -> n), returning how many were added. */
function addCounts(into: Record<string, number>, counts: Record<string, number>): number {
  let added = 0;
  for (const [kind, n] of Object.entries(counts)) {
    into[kind] = (into[kind] ?? 0) + n;
    added += n;
  }
  return added;
}

const mostFrequentFirst = (byKind: Record<string, number>) =>
  Object.fromEntries(Object.entries(byKind).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])));

/**
 * Per agent (by label, as `show` groups trials: two named agents of one model and mode are two), in
 * first-seen order.
 */
export function invalidCallsByAgent(
  trials: readonly { agentLabel: string; model: string; mode: string; metrics: Record<string, unknown> }[],
): InvalidCalls[] {
  const groups = new Map<string, InvalidCalls>();
  for (const trial of trials) {
    const counts = storedCounts(trial.metrics);
    if (!counts) continue;
    const key = trial.agentLabel;
    const group = groups.get(key) ?? {
      agent: trial.agentLabel,
      model: trial.model,
      mode: trial.mode,
      total: 0,
      byKind: {},
    };
    groups.set(key, group);
    group.total += addCounts(group.byKind, counts);
  }
  return [...groups.values()].map((g) => ({ ...g, byKind: mostFrequentFirst(g.byKind) }));
}

/**
 * The refused calls of finished trials, whatever groups them, per turn; null when none of them recorded
 * any (older rows, command agents): "not recorded", never 0.
 */
export function invalidCallRate(
  trials: readonly { metrics?: Record<string, unknown>; turns: number }[],
): InvalidCallRate | null {
  const byKind: Record<string, number> = {};
  let total = 0;
  let turns = 0;
  let recorded = 0;
  for (const trial of trials) {
    const counts = storedCounts(trial.metrics);
    if (!counts) continue;
    recorded += 1;
    turns += trial.turns;
    total += addCounts(byKind, counts);
  }
  if (recorded === 0) return null;
  return {
    total,
    byKind: mostFrequentFirst(byKind),
    turns,
    perTurn: turns > 0 ? total / turns : null,
    recorded,
    notRecorded: trials.length - recorded,
  };
}

/** `invalid calls 3 (unsupported_action 2, missing_fields 1)`; null when there were none. */
export function invalidCallsText(calls: Pick<InvalidCalls, "total" | "byKind"> | undefined): string | null {
  if (!calls || calls.total === 0) return null;
  return `invalid calls ${calls.total} (${formatStopMix(calls.byKind)})`;
}

/** One trial's (its `metrics`) or one turn's (its `flags`) refusals in the same words; null when none. */
export function storedInvalidCallsText(record: Record<string, unknown>): string | null {
  const counts = storedCounts(record);
  return counts ? invalidCallsText({ total: addCounts({}, counts), byKind: mostFrequentFirst(counts) }) : null;
}

/** A table cell: refused calls per turn (`0.25`), `—` when not recorded or no turn was played. */
export function invalidRateCell(rate: InvalidCallRate | null): string {
  return rate?.perTurn == null ? NONE : formatRate(rate.perTurn);
}

/**
 * A group's refused calls in words: `0.25 per turn: invalid calls 4 (invalid_json 2, unknown_tool 2) in
 * 16 turns`, `0 per turn: no invalid calls in 12 turns`, or `not recorded` (no trial of umpire's loop
 * that stored them); trials without counts beside ones with are said, since they are in no figure.
 */
export function invalidRateText(rate: InvalidCallRate | null): string {
  if (!rate) return "not recorded (no trial of umpire's loop stored them)";
  const per = rate.perTurn === null ? "" : `${invalidRateCell(rate)} per turn: `;
  const text = `${per}${invalidCallsText(rate) ?? "no invalid calls"} in ${plural(rate.turns, "turn")}`;
  return rate.notRecorded > 0
    ? `${text}; ${rate.notRecorded} of ${plural(rate.recorded + rate.notRecorded, "trial")} not recorded`
    : text;
}

/** The heading of the per-group lines and what the column's header means. */
export const INVALID_RATE_HEAD = "invalid calls per turn (the model's proposals umpire's loop refused, by kind)";

/**
 * Per compared group (or report agent config), its refused calls in words; empty when none of them
 * recorded any, so comparisons of older runs or command agents read as before.
 */
export function invalidRateLines(groups: readonly { label: string; rate: InvalidCallRate | null }[]): string[] {
  if (!groups.some((g) => g.rate !== null)) return [];
  return groups.map((g) => `${g.label}: ${invalidRateText(g.rate)}`);
}
