/**
 * The reference model (public surface): the server, the conformance lint, the profiles and the
 * grounding maths. See docs/ARCHITECTURE.md, "Reference model contract".
 */
export { startReferenceModel, type ReferenceModel, type ReferenceModelOptions } from "./server.js";
export { lintRequest, LINT_RULES, formatViolations, type LintRule, type Violation, type RequestHeaders } from "./lint.js";
export { PROFILE_NAMES, PROFILE_DESCRIPTIONS, REFERENCE_MODEL, MALFORMED_KINDS, isProfileName, profileForModel, referenceModelIds, type ProfileName, type MalformedKind } from "./profiles.js";
export { groundMark, normalisePoint, markCentre, type LayoutSource, type PageLayout, type LayoutMark, type ScreenFrame } from "./grounding.js";
export { readImageInfo, pngSize, type ImageInfo } from "./image.js";
export { RequestLog, type RequestRecord } from "./log.js";
export type { ReferenceTask, PolicyStep } from "./policy.js";
