/**
 * What a self-test probe is (gold, answer-now, a negative) and what one probe's trial came to: the
 * words the self-test, its judgement of causes, the negatives and `try` share.
 */
import type { ProjectTargets } from "../config/project.js";
import type { Task } from "../task/schema.js";
import { HOLO_MODES, type OutputMode } from "../vocabulary.js";
import { missingTools, notPlayableText, playability, toolsOfSteps } from "../agent/protocols/playable.js";

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
 * written through a vendor's action vocabulary and coordinates, not only Holo's. A protocol the task
 * is not playable in (its gold needs a tool the protocol cannot offer: `notPlayableIn`) plays none
 * (when none selected can, gold is played in structured, which offers every tool), and a vendor protocol plays only the negatives its action space can express (structured plays them all).
 */
export function probesFor(task: Task, protocols: readonly OutputMode[] = HOLO_MODES): Probe[] {
  const expressible = (mode: OutputMode, n: string) =>
    isHoloMode(mode) || missingTools(toolsOfSteps(task.negatives[n] ?? []), mode).length === 0;
  const negatives = (mode: OutputMode, suffix: string) =>
    Object.keys(task.negatives)
      .filter((n) => expressible(mode, n))
      .map(
        (n): Probe => ({
          name: `negative:${n}${suffix}`,
          model: `reference:negative-${n}`,
          mode,
          expect: "failed",
          trajectory: `negatives.${n}`,
        }),
      );
  // Gold must pass somewhere for the task to be sound: in structured when no protocol selected can play it.
  const selected = protocols.filter((mode) => playability(task, mode).playable);
  const playable: readonly OutputMode[] = selected.length > 0 ? selected : ["structured"];
  const vendors = playable.filter((mode) => !isHoloMode(mode));
  return [
    ...playable.filter(isHoloMode).map(
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

/** A task/protocol pair the self-test does not play: the task's gold needs tools the protocol cannot offer. */
export interface NotPlayable {
  task: string;
  protocol: OutputMode;
  /** The tools of the toolbox the task's gold uses and the protocol cannot offer. */
  missing: string[];
}

/** The pairs of `tasks` x `protocols` that are not playable, in task then protocol order. */
export function notPlayableIn(tasks: readonly Task[], protocols: readonly OutputMode[]): NotPlayable[] {
  return tasks.flatMap((task) =>
    protocols.flatMap((protocol) => {
      const { missing } = playability(task, protocol);
      return missing.length > 0 ? [{ task: task.id, protocol, missing }] : [];
    }),
  );
}

/** The line a not-playable pair gets under the self-test's table. */
export function notPlayableLine(pair: NotPlayable): string {
  return `${pair.task} ${notPlayableText(pair.protocol, pair.missing)}`;
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
