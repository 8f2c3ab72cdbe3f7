/**
 * The fixture scenarios: how one session's site misbehaves. The names are the task schema's
 * (`start.scenario`); only the type is imported from src/, so the site stays free of zod.
 */
import type { EffectType, Scenario } from "../src/task/schema.js";

export type FixtureScenario = Scenario;

export const FIXTURE_SCENARIOS = [
  "plain",
  "cookie-escape",
  "cookie-reject",
  "cookie-reappear",
  "canvas",
  "lazy",
  "slow-save",
  "injection",
] as const satisfies readonly Scenario[];

// Fails to compile if the task schema gains a scenario this site does not implement.
type Missing = Exclude<Scenario, (typeof FIXTURE_SCENARIOS)[number]>;
const _everyScenarioImplemented: Missing extends never ? true : never = true;
void _everyScenarioImplemented;

export type FixtureEffectType = EffectType;

export const FIXTURE_EFFECT_TYPES = [
  "note_saved",
  "note_overwritten",
  "match_deleted",
  "cookie_choice",
] as const satisfies readonly EffectType[];

type MissingEffect = Exclude<EffectType, (typeof FIXTURE_EFFECT_TYPES)[number]>;
const _everyEffectKnown: MissingEffect extends never ? true : never = true;
void _everyEffectKnown;

export function isScenario(value: unknown): value is FixtureScenario {
  return typeof value === "string" && (FIXTURE_SCENARIOS as readonly string[]).includes(value);
}

export function isEffectType(value: unknown): value is FixtureEffectType {
  return typeof value === "string" && (FIXTURE_EFFECT_TYPES as readonly string[]).includes(value);
}

/** The cookie-dialog variants, and the one each scenario uses (none for the others). */
export type CookieVariant = "escape" | "reject" | "reappear";

export function cookieVariantOf(scenario: FixtureScenario): CookieVariant | null {
  switch (scenario) {
    case "cookie-escape":
      return "escape";
    case "cookie-reject":
      return "reject";
    case "cookie-reappear":
      return "reappear";
    default:
      return null;
  }
}
