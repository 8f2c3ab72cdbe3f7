/**
 * What a self-test probe is (gold, answer-now, a negative) and what one probe's trial came to: the
 * words the self-test, its judgement of causes, the negatives and `try` share.
 */
import type { ProjectTargets } from "../config/project.js";
import type { Task } from "../task/schema.js";
import type { OutputMode } from "../vocabulary.js";

/** What one self-test trial is for, and the verdict that makes the task sound. */
export interface Probe {
  /** "gold/structured", "gold/tools", "answer-now", "negative:wrong-record". */
  name: string;
  model: string;
  mode: OutputMode;
  expect: "passed" | "failed";
  /** The trajectory the model plays, as its log names it; null for answer-now. */
  trajectory: string | null;
}

export function probesFor(task: Task): Probe[] {
  return [
    { name: "gold/structured", model: "reference", mode: "structured", expect: "passed", trajectory: "reference" },
    { name: "gold/tools", model: "reference", mode: "tools", expect: "passed", trajectory: "reference" },
    { name: "answer-now", model: "reference:answer-now", mode: "structured", expect: "failed", trajectory: null },
    ...Object.keys(task.negatives).map(
      (n): Probe => ({
        name: `negative:${n}`,
        model: `reference:negative-${n}`,
        mode: "structured",
        expect: "failed",
        trajectory: `negatives.${n}`,
      }),
    ),
  ];
}

/** Whether a task's trials may run at the same moment on its target: declared isolated, or on several instances. */
export function runsAtOnce(task: Task, config: ProjectTargets | undefined): boolean {
  const decl = config?.targets[task.target];
  return decl !== undefined && (decl.isolated || decl.instances !== 1);
}

export interface ProbeResult {
  task: string;
  probe: Probe;
  trialId: string;
  verdict: string;
  stopReason: string;
  stopLine: string;
  /** Reflections the repetition detector asked for: on a gold trajectory, each is a false positive. */
  reflections: number;
  /** Played as written (answer-now always is). */
  exercised: boolean;
  /** Required checks that failed. */
  failedChecks: string[];
  /** Why the probe is not what soundness needs (empty when ok). */
  reasons: string[];
  /** The wall-clock wait or timeout involved, when the probe is not ok and one was. */
  clockWait: string | null;
  ok: boolean;
}
