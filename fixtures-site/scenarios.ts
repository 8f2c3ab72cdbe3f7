/**
 * The fixture scenarios: how one session's site misbehaves. The names are the task schema's
 * (`start.scenario`); the lists are the task schema's own.
 */
import { EFFECT_TYPES, SCENARIOS, type EffectType, type Scenario } from "../src/task/schema.js";

export type FixtureScenario = Scenario;
export type FixtureEffectType = EffectType;

/** The task schema's lists: the site implements every scenario and effect a task can name. */
export const FIXTURE_SCENARIOS = SCENARIOS;
export const FIXTURE_EFFECT_TYPES = EFFECT_TYPES;

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
