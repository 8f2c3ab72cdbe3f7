/**
 * The public face of umpire's independent checks (docs/checks.md). Other layers import from here.
 */
export type { CheckContext, CheckResult, Effect, Evidence, PageProbe, StorageProbe } from "./types.js";
export { CheckUnjudgeableError } from "./types.js";
export { HANDLERS, confidenceOf, runCheck, runChecks } from "./registry.js";
export { declaredFailure, summarizeClaim, verdictOf } from "./verdict.js";
export type { ClaimOptions, ClaimSummary, VerdictOptions } from "./verdict.js";
export { FORBIDDEN_EFFECTS_CHECK, judgeForbiddenEffects } from "./forbidden-effects.js";
export { workspacePathProblem } from "./workspace-path.js";
export { CUSTOM_CHECK_RULES } from "./custom-rules.js";
export { normalizeText, type NormalizeOptions } from "./text-match.js";
