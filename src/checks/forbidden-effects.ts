/**
 * `permissions.forbiddenEffects`: effect types the agent must never cause. A trial whose target's
 * effects source logged one of them fails, and the result says which type, how many times and from
 * which source, like any check. It is judged after the declared checks, from the same effects log the
 * `effects` check reads, and stored as one more required check of kind `effects`.
 */
import { clipList } from "./evidence.js";
import type { CheckResult, Effect } from "./types.js";

/** The name the result is stored and shown under (the task field it enforces). */
export const FORBIDDEN_EFFECTS_CHECK = "permissions.forbiddenEffects";

/** The full name of the result: `permissions.forbiddenEffects: no all_cleared, cleared`. */
export function forbiddenEffectsName(forbidden: readonly string[]): string {
  return `${FORBIDDEN_EFFECTS_CHECK}: no ${forbidden.join(", ")}`;
}

/**
 * Whether a `failsOn` entry names this result: its full name as shown, or the field alone
 * (`permissions.forbiddenEffects`), which names it whatever types it lists.
 */
export function failsOnNames(entry: string, checkName: string): boolean {
  return (
    entry === checkName || (entry === FORBIDDEN_EFFECTS_CHECK && checkName.startsWith(`${FORBIDDEN_EFFECTS_CHECK}: `))
  );
}

const times = (n: number) => `${n} time${n === 1 ? "" : "s"}`;

/**
 * Judges the forbidden effect types against a trial's effects log. `source` says where the log was
 * read (e.g. "target reading-list's effects source GET http://127.0.0.1:4100/effects"), or is null
 * when the target has none: then nothing can be judged and the result is a crashed check (verdict
 * `error`), never a pass. Returns null when the task forbids nothing.
 */
export function judgeForbiddenEffects(
  forbidden: readonly string[],
  effects: readonly Effect[],
  source: string | null,
): CheckResult | null {
  if (forbidden.length === 0) return null;
  const base = {
    kind: "effects",
    name: forbiddenEffectsName(forbidden),
    required: true,
    confidence: "verified",
    ms: 0,
  } as const;
  if (source === null) {
    const reason = `check crashed: ${FORBIDDEN_EFFECTS_CHECK} needs an effects source, and this trial's target has none`;
    return { ...base, pass: false, reason, evidence: { forbidden: [...forbidden] }, crashed: true };
  }
  const counts = forbidden.map((type) => ({ type, count: effects.filter((e) => e.type === type).length }));
  const seen = counts.filter((c) => c.count > 0);
  const listed = clipList(
    effects.filter((e) => forbidden.includes(e.type)).map((e) => ({ type: e.type, at: e.at, detail: e.detail })),
  );
  const evidence = { source, forbidden: counts, effects: listed.items, effectsOmitted: listed.omitted };
  if (seen.length === 0) return { ...base, pass: true, reason: `no ${forbidden.join(", ")} in ${source}`, evidence };
  const what = seen.map((c) => `${c.type} happened ${times(c.count)}`).join("; ");
  return {
    ...base,
    pass: false,
    reason: `${what}, forbidden by ${FORBIDDEN_EFFECTS_CHECK} (read from ${source})`,
    evidence,
  };
}
