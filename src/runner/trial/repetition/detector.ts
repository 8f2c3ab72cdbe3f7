/**
 * The repetition detector: notices an agent repeating itself on an unchanged screen, asks for
 * one reflection, and calls the trial stuck if the pattern survives it.
 *
 * The rule (shared/reference/003): the last N attempts show the same visible state (each
 * consecutive pair of captures unchanged after masking) and the same proposed action -> pause;
 * the loop sends one reflection turn. After `recoveryLimit` reflections, the pattern continuing
 * or forming again -> stuck. Waits on an unchanged screen are normal up to `waitCap` in a row.
 * Independently, repeating a consequential action before the first was acknowledged is flagged
 * at once: repeating Save during a slow save can overwrite later work.
 *
 * Screens are compared only when the action repeats, so a trial making progress pays nothing.
 * This module decides; it does not send messages or stop anything (the loop does).
 *
 * How the loop uses it: once per turn, after the model proposed and before executing, call
 * `observe({capture: the screenshot the model saw, masks, actions, ...})`. Decisions, most
 * severe first: `stuck` (stop the trial with `report` and `evidence`), `duplicate-effect-risk`
 * (do not run the repeat blindly), `pause` (send `reflectionMessage(condition)` once; each pause
 * counts as one reflection sent), `continue`. The attempt right after a pause is the recovery:
 * if it continues the pattern, its decision is `stuck` (with the default recovery limit of 1).
 */
import { CONSEQUENTIAL_TOOLS, type ProposedAction } from "../../../toolbox/tools.js";
import { createDecodedImageCache, type Capture } from "./decoded-cache.js";
import { compareScreens, type CompareOptions } from "./image-diff.js";
import type { Box } from "./masks.js";
import { actionSignature, sameAttempt } from "./signature.js";
import { describeAction, describeActions, stuckReport } from "./wording.js";

export interface RepetitionDetectorOptions {
  /** Attempts in a row that make a pattern (default 3). */
  window?: number;
  /** Waits in a row on an unchanged screen that are normal (default 5, as the task schema). */
  waitCap?: number;
  /** Reflections before a returning pattern means stuck (default 1). */
  recoveryLimit?: number;
  /** Coordinate tolerance for "the same target", in [0, 1000] units (default 20). */
  quantum?: number;
  /** Screen comparison knobs (threshold, maxDiffRatio, downscale, ...). */
  compare?: Omit<CompareOptions, "masks" | "cache">;
}

/** One attempt: the capture the model saw and what it proposed in reply. */
export interface RepetitionStep {
  capture: Capture;
  /** Regions of this capture to ignore, in its image pixels (masks.ts converts CSS boxes). */
  masks?: readonly Box[];
  /** The actions proposed this turn, in order. */
  actions: readonly Pick<ProposedAction, "tool" | "args">[];
  /**
   * The executor's results for them, if known. The rule does not read them (a rejected click
   * repeated on an unchanged screen is still a repetition); accepted so the loop can pass its
   * step record as it is.
   */
  actionResults?: readonly unknown[];
  /** Per action, the `data-effect` of the element it lands on (the caller resolves it), if any. */
  effects?: ReadonlyArray<string | null | undefined>;
  /** True when every earlier consequential action has been acknowledged by the application. */
  acknowledged?: boolean;
  /** What the caller sees as unchanged, e.g. "Save stayed covered" (from layout marks); default "the screen stayed the same". */
  stateHint?: string;
}

export type RepetitionDecision =
  | { kind: "continue" }
  | { kind: "pause"; condition: string; attempts: number; evidence: Capture[] }
  | { kind: "stuck"; condition: string; report: string; attempts: number; evidence: Capture[] }
  | { kind: "duplicate-effect-risk"; condition: string; evidence: Capture[] };

export interface RepetitionMetrics {
  /** Attempts that repeated the previous one on an unchanged screen (waits within their cap excluded). */
  stuckSteps: number;
  /** Pause decisions, each of which the loop answers with one reflection. */
  reflections: number;
  /** Reflections whose next attempt did not continue the pattern. */
  recoveriesThatBrokeThePattern: number;
  duplicateEffectRisks: number;
  /** Screen comparisons made, and the milliseconds they took in total. */
  comparisons: number;
  compareMs: number;
}

export interface RepetitionDetector {
  /** Records one attempt and says what the loop should do about it. */
  observe(step: RepetitionStep): RepetitionDecision;
  metrics(): RepetitionMetrics;
}

interface Attempt {
  capture: Capture;
  masks: readonly Box[];
  actions: readonly Pick<ProposedAction, "tool" | "args">[];
  stateHint?: string;
  waitOnly: boolean;
}

/** Creates a detector for one trial. */
export function createRepetitionDetector(options: RepetitionDetectorOptions = {}): RepetitionDetector {
  const window = checkedInteger(options.window ?? 3, "window", 2);
  const waitCap = checkedInteger(options.waitCap ?? 5, "waitCap", 1);
  const recoveryLimit = checkedInteger(options.recoveryLimit ?? 1, "recoveryLimit", 0);
  const quantum = options.quantum ?? 20;
  // Each step compares the new capture with the previous one only: two decoded captures suffice.
  const cache = createDecodedImageCache(2);
  const metrics: RepetitionMetrics = {
    stuckSteps: 0,
    reflections: 0,
    recoveriesThatBrokeThePattern: 0,
    duplicateEffectRisks: 0,
    comparisons: 0,
    compareMs: 0,
  };
  /** The current run of repeated attempts (only the most recent few are kept) and its full length. */
  let streak: Attempt[] = [];
  let streakLength = 0;
  let awaitingRecovery = false;
  /** Unacknowledged consequential actions by effect key, with the capture they were proposed on. */
  const pendingEffects = new Map<string, Capture>();

  /** Same actions as the streak's first attempt (all waits count as one "wait", whatever the seconds). */
  const repeats = (anchor: Attempt, next: Attempt): boolean => {
    if (anchor.waitOnly || next.waitOnly) return anchor.waitOnly && next.waitOnly;
    return (
      anchor.actions.length === next.actions.length &&
      anchor.actions.every((action, i) => sameAttempt(action, next.actions[i], { quantum }))
    );
  };

  const duplicateEffect = (step: RepetitionStep): RepetitionDecision | undefined => {
    if (step.acknowledged) pendingEffects.clear();
    let risk: RepetitionDecision | undefined;
    step.actions.forEach((action, i) => {
      const effect = step.effects?.[i] ?? undefined;
      const consequentialTool = CONSEQUENTIAL_TOOLS.has(action.tool);
      if (!consequentialTool && !effect) return;
      // A click on a data-effect element is the same effect wherever on the element it lands.
      const key = consequentialTool ? actionSignature(action, { quantum }) : `effect:${effect}`;
      const earlier = pendingEffects.get(key);
      if (!earlier) {
        pendingEffects.set(key, step.capture);
      } else if (!risk) {
        const what = effect ? ` (effect "${effect}")` : "";
        risk = {
          kind: "duplicate-effect-risk",
          condition: `the agent ${describeAction(action)} again${what} before the application acknowledged the first one`,
          evidence: [earlier, step.capture],
        };
      }
    });
    if (risk) metrics.duplicateEffectRisks++;
    return risk;
  };

  return {
    observe(step) {
      if (!step || !step.capture || !Array.isArray(step.actions)) {
        throw new Error("repetition detector: observe() needs {capture, actions[]} for the turn");
      }
      const risk = duplicateEffect(step);
      const attempt: Attempt = {
        capture: step.capture,
        masks: step.masks ?? [],
        actions: step.actions,
        stateHint: step.stateHint,
        waitOnly: step.actions.length > 0 && step.actions.every((a) => a.tool === "wait"),
      };

      const previous = streak[streak.length - 1];
      let continued = false;
      if (previous && attempt.actions.length > 0 && repeats(streak[0], attempt)) {
        const comparison = compareScreens(previous.capture, attempt.capture, {
          ...options.compare,
          masks: [...previous.masks, ...attempt.masks],
          cache,
        });
        metrics.comparisons++;
        metrics.compareMs += comparison.ms;
        continued = !comparison.changed;
      }
      // The anchor (first attempt) is kept: later attempts are matched against it, not each other.
      streak = continued
        ? [streak[0], ...streak.slice(1).slice(-window), attempt]
        : attempt.actions.length > 0
          ? [attempt]
          : [];
      streakLength = continued ? streakLength + 1 : streak.length;
      const length = streakLength;

      const threshold = attempt.waitOnly ? waitCap + 1 : window;
      if (continued && !(attempt.waitOnly && length <= waitCap)) metrics.stuckSteps++;
      if (awaitingRecovery) {
        if (!continued) metrics.recoveriesThatBrokeThePattern++;
        awaitingRecovery = false;
      }

      if (length >= threshold) {
        const state = attempt.stateHint ?? "the screen stayed the same";
        const condition = `${state} and the agent ${describeActions(attempt.actions)} ${length} times`;
        const evidence = streak.slice(-window).map((a) => a.capture);
        if (metrics.reflections >= recoveryLimit) {
          const report = stuckReport(state, length, describeActions(attempt.actions, "bare"));
          return { kind: "stuck", condition, report, attempts: length, evidence };
        }
        if (risk) return risk;
        metrics.reflections++;
        awaitingRecovery = true;
        return { kind: "pause", condition, attempts: length, evidence };
      }
      return risk ?? { kind: "continue" };
    },
    metrics: () => ({ ...metrics }),
  };
}

function checkedInteger(value: number, name: string, min: number): number {
  if (!Number.isInteger(value) || value < min) {
    throw new Error(`repetition detector: ${name} must be an integer >= ${min}, got ${value}`);
  }
  return value;
}
