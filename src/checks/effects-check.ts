/**
 * The `effects` check: reads the fixture's effects log (what the application recorded happening:
 * notes saved or overwritten, matches deleted, cookie choices), so its confidence is `verified`.
 * Required effects carry an exact count or a minimum; forbidden effects must never appear.
 */
import type { z } from "zod";
import type { EffectsCheck } from "../task/schema.js";
import { clipList } from "./evidence.js";
import type { CheckContext, Effect, Handler, Judgement } from "./types.js";

export type EffectsCheckSpec = z.output<typeof EffectsCheck>;
type EffectRule = { type: string; where?: Record<string, string> };

function matchesRule(effect: Effect, rule: EffectRule): boolean {
  if (effect.type !== rule.type) return false;
  return Object.entries(rule.where ?? {}).every(([key, value]) => {
    const actual = effect.detail?.[key];
    return actual !== undefined && actual !== null && String(actual) === value;
  });
}

/** "note_saved for BB-042.md", "note_saved with name=BB-042.md, via=write_note", "match_deleted". */
export function describeRule(rule: EffectRule): string {
  const where = Object.entries(rule.where ?? {});
  if (where.length === 0) return rule.type;
  if (where.length === 1) return `${rule.type} for ${where[0][1]}`;
  return `${rule.type} with ${where.map(([k, v]) => `${k}=${v}`).join(", ")}`;
}

const times = (n: number) => `${n} time${n === 1 ? "" : "s"}`;

/** One effect as a short line for evidence: "note_saved {name: BB-042.md} at 2025-…". */
function describeEffect(effect: Effect): string {
  const detail = Object.entries(effect.detail ?? {})
    .map(([k, v]) => `${k}: ${typeof v === "string" ? v : JSON.stringify(v)}`)
    .join(", ");
  return `${effect.type}${detail ? ` {${detail}}` : ""} at ${effect.at}`;
}

async function judgeEffects(spec: EffectsCheckSpec, ctx: CheckContext): Promise<Judgement> {
  const failures: string[] = [];
  const passes: string[] = [];
  const rules: Record<string, unknown>[] = [];

  for (const rule of spec.require) {
    const count = ctx.effects.filter((e) => matchesRule(e, rule)).length;
    const label = describeRule(rule);
    let problem: string | null = null;
    let expected: string;
    // An exact count wins over a minimum (declaring both is a task-file error: rule checks-consistent).
    if (rule.count !== undefined) {
      expected = `exactly ${rule.count}`;
      if (count !== rule.count) problem = `${label} happened ${times(count)}, expected exactly ${rule.count}`;
    } else {
      const min = rule.min ?? 1;
      expected = `at least ${min}`;
      if (count < min) problem = `${label} happened ${times(count)}, expected at least ${min}`;
    }
    rules.push({ rule: label, expected, count, pass: problem === null });
    if (problem) failures.push(problem);
    else passes.push(`${label} happened ${times(count)}`);
  }

  for (const rule of spec.forbid) {
    const count = ctx.effects.filter((e) => matchesRule(e, rule)).length;
    const label = describeRule(rule);
    rules.push({ rule: label, expected: "never", count, pass: count === 0 });
    if (count > 0) failures.push(`${label} happened ${times(count)}, which is forbidden`);
    else passes.push(`no ${label}`);
  }

  const listed = clipList(ctx.effects.map(describeEffect));
  const evidence = { effects: listed.items, effectsOmitted: listed.omitted, rules };
  if (failures.length > 0) return { pass: false, reason: failures.join("; "), evidence };
  return { pass: true, reason: passes.join("; ") || "no effect rules declared", evidence };
}

export const effectsCheck: Handler<EffectsCheckSpec> = {
  confidence: "verified",
  defaultName: (spec) => {
    const parts = [
      ...spec.require.map((r) => describeRule(r) + (r.count !== undefined ? ` x${r.count}` : "")),
      ...spec.forbid.map((r) => `no ${describeRule(r)}`),
    ];
    return `effects ${parts.join(", ") || "(none)"}`;
  },
  judge: judgeEffects,
};
