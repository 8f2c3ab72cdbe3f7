/**
 * The public API of custom checks: a task names a module and an export; the export is a
 * `CustomCheck` (or just its `judge` function). It gets the same context the built-in kinds get
 * and returns the same judgement. A custom check module imports only this file
 * (src/checks/custom-api.ts); the fixture suite's own checks (tasks/checks/) are written that way.
 *
 *   import { defineCheck } from "./custom-api.js";
 *   export const cartTotal = defineCheck<{ total: number }>({
 *     name: (o) => `cart total ${o.total}`,
 *     validate: (o) => (typeof o.total === "number" ? [] : [{ path: ["total"], message: "total must be a number", fix: "e.g. total: 42" }]),
 *     expected: (o) => [{ path: ["total"], value: String(o.total), numeric: true }],
 *     async judge(ctx, options) { ... return { pass, reason, evidence }; },
 *   });
 *
 * Throw `CheckUnjudgeableError` when the world cannot be looked at (verdict `error`, never the
 * agent's fault); return `pass: false` with a reason when the agent got it wrong.
 */
import type { CheckContext, Judgement } from "./types.js";
import type { Confidence } from "../vocabulary.js";

export type { CheckContext, Effect, Evidence, Judgement, PageProbe, StorageProbe, TargetView } from "./types.js";
export type { Confidence } from "../vocabulary.js";
export type { TextMatcher } from "../task/schema.js";
export { CheckUnjudgeableError } from "./types.js";
export { judgeJson, pick } from "./json-expect.js";
export {
  checkMatchers,
  compileRegex,
  DEFAULT_NORMALIZE,
  findText,
  normalizeDashes,
  normalizeText,
  type NormalizeOptions,
} from "./text-match.js";
/** Why a pattern cannot run on umpire's linear-time regex engine (RE2), or undefined: for `validate`. */
export { userRegexProblem as regexProblem } from "../task/user-regex.js";
/** Reading a file of the trial's workspace, with the file check's refusals and reasons. */
export { MAX_READ_BYTES, readWorkspaceFile, type WorkspaceRead } from "./file-check.js";
export { workspacePathProblem } from "./workspace-path.js";
/** Keeping evidence small: a clipped string, a clipped list. */
export { clip, clipList } from "./evidence.js";
/** Numbers in prose: digits and number words up to ninety-nine ("six", "twenty-one"). */
export { findNumbers, NUMBER_WORD_SOURCE, parseNumberToken, parseNumberWord, type NumberMention } from "./numbers.js";

export type CustomJudge<O> = (ctx: CheckContext, options: O) => Promise<Judgement> | Judgement;

/** A problem with a check's options, found when the task file is validated. */
export interface OptionProblem {
  /** Where in `options`, e.g. ["record", "pattern"]; [] for the check as a whole. */
  path: ReadonlyArray<string | number>;
  message: string;
  /** How to fix it, in words. */
  fix?: string;
  /** Default "error" (the task is not valid); "warning" is listed but does not stop a run. */
  severity?: "error" | "warning";
}

/** What `validate` may know besides the options: the task around the check. */
export interface CheckSite {
  /** The task file, as shown in problems. */
  taskFile: string;
  /** The tools the task allows (a check that reads the answer needs `answer`). */
  tools: readonly string[];
  /** Whether the check decides the verdict. */
  required: boolean;
}

/**
 * A value the check expects to find in the world (a score, a record id). umpire's leak rule
 * refuses a task whose instruction states it, as it does for the built-in kinds' expected values.
 */
export interface ExpectedValue {
  /** Where in `options` the value is written, e.g. ["scores", 0]. */
  path: ReadonlyArray<string | number>;
  value: string;
  /** Match only as a whole number, so 16 is not found inside 168. */
  numeric?: boolean;
}

export interface CustomCheck<O = Record<string, unknown>> {
  /** The name shown when the task gives none. */
  name?: string | ((options: O) => string);
  /** What the check reads (verified, observed, claimed); the task's `confidence` overrides it. Default verified. */
  confidence?: Confidence;
  /**
   * Judges the options when the task file is validated (`umpire validate`, and before `umpire run`),
   * so a bad declaration is an error naming the file, the field and the fix, not a failed trial.
   * `options` is as written in the task file: check its shape here.
   */
  validate?(options: O, site: CheckSite): OptionProblem[];
  /** The values the check expects, for the rule that the instruction must not state them. */
  expected?(options: O): ExpectedValue[];
  judge: CustomJudge<O>;
}

/** Identity helper that gives a custom check its types without a separate annotation. */
export function defineCheck<O = Record<string, unknown>>(check: CustomCheck<O>): CustomCheck<O> {
  return check;
}
