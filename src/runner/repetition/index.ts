/**
 * Repetition detection: masked screen comparison, action signatures, and the pause rule.
 * The loop creates one detector per trial and calls `observe` once per turn.
 */
export { createRepetitionDetector } from "./detector.js";
export type { RepetitionDecision, RepetitionDetector, RepetitionDetectorOptions, RepetitionMetrics, RepetitionStep } from "./detector.js";
export { compareScreens, DEFAULT_MAX_DIFF_RATIO } from "./image-diff.js";
export type { Capture, CompareOptions, ScreenComparison } from "./image-diff.js";
export { createDecodedImageCache } from "./decoded-cache.js";
export type { DecodedImageCache } from "./decoded-cache.js";
export { cssBoxesToImageBoxes, maskBoxesForCapture, splitTaskMasks } from "./masks.js";
export type { Box, CssMaskSources, ImageFrame } from "./masks.js";
export { actionSignature, sameAttempt } from "./signature.js";
export { describeAction, describeActions, reflectionMessage, stuckReport } from "./wording.js";
