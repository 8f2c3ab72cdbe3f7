/**
 * The public API of custom checks: a task names a module and an export; the export is a
 * `CustomCheck` (or just its `judge` function). It gets the same context the built-in kinds get
 * and returns the same judgement. Import the types from "umpire/checks" (src/checks/custom-api.ts).
 *
 *   import type { CustomCheck } from "../../src/checks/custom-api.js";
 *   export const cartTotal: CustomCheck<{ total: number }> = {
 *     name: (o) => `cart total ${o.total}`,
 *     async judge(ctx, options) { ... return { pass, reason, evidence }; },
 *   };
 *
 * Throw `CheckUnjudgeableError` when the world cannot be looked at (verdict `error`, never the
 * agent's fault); return `pass: false` with a reason when the agent got it wrong.
 */
import type { CheckContext, Judgement } from "./types.js";

export type { CheckContext, Effect, Evidence, Judgement, PageProbe, StorageProbe, TargetView } from "./types.js";
export { CheckUnjudgeableError } from "./types.js";
export { judgeJson, pick } from "./json-expect.js";
export { checkMatchers, findText, normalizeText } from "./text-match.js";

export type CustomJudge<O> = (ctx: CheckContext, options: O) => Promise<Judgement> | Judgement;

export interface CustomCheck<O = Record<string, unknown>> {
  /** The name shown when the task gives none. */
  name?: string | ((options: O) => string);
  judge: CustomJudge<O>;
}

/** Identity helper that gives a custom check its types without a separate annotation. */
export function defineCheck<O = Record<string, unknown>>(check: CustomCheck<O>): CustomCheck<O> {
  return check;
}
