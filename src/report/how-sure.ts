/**
 * The sentence that says how sure a paired comparison is: the smallest drop its design could detect,
 * printed next to the McNemar result by `compare` (text and Markdown) and the regression gate. A
 * "not significant" is never printed without it: at a small run's size it means little.
 */
import type { PairedAnalysis } from "./compare.js";
import type { Detectable } from "./power.js";

const points = (x: number) => `${(x * 100).toFixed(1)} points`;

function design(d: Detectable): string {
  const noise = `noise ${(d.noise * 100).toFixed(1)}% discordant pairs, from the ${d.noiseFrom}`;
  return `${Math.round(d.power * 100)}% power, alpha ${d.alpha}, ${d.pairs} paired repeat${d.pairs === 1 ? "" : "s"}, ${noise}`;
}

/**
 * Where tasks were the same every repeat, more repeats of a deterministic agent would not make the
 * comparison surer (their copies count once): say so, so the line does not suggest they would.
 */
function copiesNote(p: Partial<Pick<PairedAnalysis, "countedOnce" | "tasks">>): string {
  if (!p.countedOnce) return "";
  const all = p.countedOnce === p.tasks;
  return `; ${all ? "every task was" : `${p.countedOnce} of ${p.tasks} tasks were`} the same every repeat: if the agent is deterministic, more repeats add nothing there, more tasks do`;
}

/** How sure, in one line; null when nothing was paired. */
export function howSure(
  p: Pick<PairedAnalysis, "detectable" | "pValue"> & Partial<Pick<PairedAnalysis, "countedOnce" | "tasks">>,
  alpha = 0.05,
): string | null {
  const d = p.detectable;
  if (!d) return null;
  const significant = p.pValue < alpha;
  if (d.drop === null) {
    return `${significant ? "" : "not significant, and "}too few paired repeats to detect any drop (${design(d)})${copiesNote(p)}`;
  }
  const reach = `drops of ${points(d.drop)} or more (${design(d)})${copiesNote(p)}`;
  return significant
    ? `this design detects ${reach}`
    : `not significant: this comparison could only have detected ${reach}`;
}

/**
 * What each statistic generalises over, said on its line. McNemar pairs repeats of the same tasks:
 * it speaks about these tasks, repeated (would another run of this suite come out the same?). The
 * bootstrap resamples whole tasks: it speaks about tasks like these (would a new suite drawn the
 * same way?). They can disagree: a drop on a few tasks can be sure for these tasks and unsure for
 * tasks in general.
 */
export const OVER_REPEATS = "these tasks, repeated";
export const OVER_TASKS = "tasks like these";

/** The McNemar line's note on tasks whose every repeat gave one result on each side; "" when none. */
export function countedOnceText(p: Pick<PairedAnalysis, "countedOnce">): string {
  if (p.countedOnce === 0) return "";
  return ` (${p.countedOnce} task${p.countedOnce === 1 ? "" : "s"} the same every repeat, counted once)`;
}

/** Which statistic the regression gate uses, and why: said with its verdict. */
export const GATE_BASIS = `the gate judges ${OVER_REPEATS}: exact McNemar on paired repeats (a task the same every repeat counted once) and any stable task that now fails; a suite is a fixed list of tasks, and the question is whether this change moved its results. The bootstrap interval (${OVER_TASKS}) is shown, not gated`;
