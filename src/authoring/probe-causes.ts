/**
 * Causes of a self-test probe's outcome that lie in another probe, said only where the evidence
 * points there (issue 37, item 6). A target with no per-trial reset hands each probe the state the
 * one before it left, so a negative that "passed" may have been judged on the gold's work: that is
 * said, not "the checks cannot tell it from the gold path". Two gold trials played at once that fail
 * where each alone passed are blamed on shared state only when they were played cleanly (every step
 * as written, every action a success, no wait that ran out): a stale-picture click or a slow page is
 * not another trial's state. A target that keys its browser context by the trial id is still blamed
 * then (test/integration/targets/instance-pool.test.ts: an app that ignores the namespace).
 */
import type { TargetDecl } from "../task/target-decl.js";
import type { ProjectTargets } from "../config/project.js";
import { CANNOT_TELL } from "./probe-judgement.js";
import type { ProbeResult } from "./probes.js";

/** The two gold trials played at the same moment on a target declared isolated (or pooled). */
export const AT_ONCE_PROBES = ["gold/at-once-1", "gold/at-once-2"] as const;

/** What an at-once gold trial that failed, where the same gold alone passed, means. */
export const INTERFERENCE = "two trials at once changed each other's state: declare instances or a context namespace";

export const isAtOnce = (name: string) => (AT_ONCE_PROBES as readonly string[]).includes(name);

/** The target keeps each trial's state apart by the trial id (its browser context names the trial). */
export function keysStateByTrial(decl: TargetDecl): boolean {
  return JSON.stringify(decl.context ?? {}).includes("${TRIAL_ID}");
}

/** Where a probe ran and how cleanly, as the causes below need it. */
export interface ProbeRun {
  /** The task's target ("fixture" for the built-in one). */
  target: string;
  startedAt: string | null;
  endedAt: string | null;
  /** Every step played as written and every action a success. */
  playedClean: boolean;
}

type Result = ProbeResult & ProbeRun;

/** The probe on the same app that ended last before `r` started (the state `r` started on), if any. */
function probeBefore(r: Result, results: readonly Result[]): Result | undefined {
  if (!r.startedAt) return undefined;
  return results
    .filter((x) => x !== r && x.target === r.target && x.endedAt !== null && x.endedAt <= r.startedAt!)
    .sort((a, b) => a.endedAt!.localeCompare(b.endedAt!))
    .at(-1);
}

/**
 * A probe that came out wrong on a target with no per-trial reset (and no per-trial namespace), after
 * another probe ran on it: it started on that probe's state. Said first; "the checks cannot tell it
 * from the gold path" is dropped (unproven on a carried state), and no wall-clock wait is blamed.
 */
export function blameCarriedState(results: Result[], config: ProjectTargets | undefined): Result[] {
  return results.map((r) => {
    if (r.ok || r.verdict === "error" || r.verdict === "cancelled") return r;
    const decl = config?.targets[r.target];
    if (!decl || decl.reset.kind !== "none" || keysStateByTrial(decl)) return r;
    const before = probeBefore(r, results);
    if (!before) return r;
    const line = `the target ${r.target} has no per-trial reset: probe ${r.probe.name} of ${r.task} started on the state probe ${before.probe.name} of ${before.task} left; declare reset: on target ${r.target} (docs/your-app.md, "Targets in full"), then run the self-test again`;
    return { ...r, reasons: [line, ...r.reasons.filter((x) => !x.endsWith(CANNOT_TELL))], clockWait: null };
  });
}

/** Why an at-once failure is not blamed on the other trial, or null when the evidence points at it. */
function notInterference(r: Result): string | null {
  if (r.clockWait) return `a wall-clock wait was involved (${r.clockWait})`;
  if (!r.exercised) return "it was not played as written";
  if (!r.playedClean) return "one of its actions did not succeed";
  return null;
}

/**
 * An at-once gold trial that failed where the task's gold trials alone passed: the two trials saw
 * each other's state (the target's declaration at fault, not the task's checks) when the evidence
 * says so; else the probe keeps its own reasons and says why another trial is not blamed.
 */
export function blameInterference(results: Result[]): Result[] {
  return results.map((r) => {
    if (!isAtOnce(r.probe.name) || r.ok || r.verdict !== "failed") return r;
    const alone = results.filter(
      (x) => x.task === r.task && x.probe.name.startsWith("gold/") && !isAtOnce(x.probe.name),
    );
    if (alone.length === 0 || !alone.every((x) => x.ok)) return r;
    const why = notInterference(r);
    if (why === null) return { ...r, exercised: true, reasons: [INTERFERENCE] };
    return { ...r, reasons: [...r.reasons, `it failed beside another gold trial, but not from its state: ${why}`] };
  });
}
