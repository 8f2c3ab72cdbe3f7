/**
 * What a self-test probe is (gold, answer-now, a negative) and what one probe's trial came to: the
 * words the self-test, its judgement of causes, the negatives and `try` share.
 */
import type { ProjectTargets } from "../config/project.js";
import type { Task } from "../task/schema.js";
import { HOLO_MODES, type OutputMode } from "../vocabulary.js";

/** What one self-test trial is for, and the verdict that makes the task sound. */
export interface Probe {
  /**
   * "gold/structured", "gold/tools", "answer-now", "negative:wrong-record"; in a vendor protocol
   * its name after a slash: "gold/ui-tars", "answer-now/ui-tars", "negative:wrong-record/ui-tars".
   */
  name: string;
  model: string;
  /** The protocol the probe is played in (a `--mode` name, src/agent/protocols/registry.ts). */
  mode: OutputMode;
  expect: "passed" | "failed";
  /** The trajectory the model plays, as its log names it; null for answer-now. */
  trajectory: string | null;
}

/** Whether a protocol is one of Holo's (the self-test's own: answer-now and negatives are always played in structured). */
export function isHoloMode(mode: OutputMode): boolean {
  return (HOLO_MODES as readonly string[]).includes(mode);
}

/**
 * The probes of a task in the given protocols (default Holo's two). Gold is played in each of
 * them. Answer-now and every negative are played in structured whatever the selection: they prove
 * the checks. Each vendor protocol selected also plays answer-now (one turn: its "Done." must fail
 * too), and the first one selected plays every negative as well, so a negative is proven played as
 * written through a vendor's action vocabulary and coordinates, not only Holo's.
 */
export function probesFor(task: Task, protocols: readonly OutputMode[] = HOLO_MODES): Probe[] {
  const negatives = (mode: OutputMode, suffix: string) =>
    Object.keys(task.negatives).map(
      (n): Probe => ({
        name: `negative:${n}${suffix}`,
        model: `reference:negative-${n}`,
        mode,
        expect: "failed",
        trajectory: `negatives.${n}`,
      }),
    );
  const vendors = protocols.filter((mode) => !isHoloMode(mode));
  return [
    ...protocols.filter(isHoloMode).map(
      (mode): Probe => ({
        name: `gold/${mode}`,
        model: "reference",
        mode,
        expect: "passed",
        trajectory: "reference",
      }),
    ),
    { name: "answer-now", model: "reference:answer-now", mode: "structured", expect: "failed", trajectory: null },
    ...negatives("structured", ""),
    ...vendors.flatMap((mode, i): Probe[] => [
      { name: `gold/${mode}`, model: "reference", mode, expect: "passed", trajectory: "reference" },
      { name: `answer-now/${mode}`, model: "reference:answer-now", mode, expect: "failed", trajectory: null },
      ...(i === 0 ? negatives(mode, `/${mode}`) : []),
    ]),
  ];
}

/** Whether a task's trials may run at the same moment on its target: declared isolated, or on several instances. */
export function runsAtOnce(task: Task, config: ProjectTargets | undefined): boolean {
  const decl = config?.targets[task.target];
  return decl !== undefined && (decl.isolated || decl.instances !== 1);
}

export interface ProbeResult {
  task: string;
  /** The protocol the probe was played in (its `probe.mode`), named on every row of the output and JSON. */
  protocol: OutputMode;
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
