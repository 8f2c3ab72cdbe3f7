/**
 * Known-wrong trajectories derived from a task's gold: what a careless agent does that looks
 * almost right. Each is a mutation of the gold with a sentence saying what it changed, so a
 * mutation no check catches reads as the check gap it is.
 *
 * - drop the last state-changing step;
 * - stop before the last click ahead of that step (the save, the submit), answering at once;
 * - aim the last click that has a sibling mark (first-toggle / second-toggle) at the sibling, and
 *   click the sibling as well (the agent that toggles both);
 * - type a near-miss of the last text written (its last character dropped).
 */
import type { ReferenceStep, Task } from "../task/schema.js";
import type { MarkDecl } from "../task/target-decl.js";

export interface Mutation {
  /** A negative's name: `mutation-drop-step-5`. */
  name: string;
  steps: ReferenceStep[];
  /** "dropping step 5 (click save)". */
  what: string;
  /** What no check sees when the mutation passes: "what clicking save does". */
  unseen: string;
  /** Marks its steps aim at that the task does not declare: controls found on the gold's page. */
  marks?: Record<string, MarkDecl>;
}

const CHANGES = new Set(["click", "double_click", "write", "press", "navigate", "go_back", "write_note"]);

function describe(step: ReferenceStep): string {
  if (step.target) return `${step.tool} ${step.target}`;
  if (step.tool === "write") return `write ${JSON.stringify(step.args.content)}`;
  if (step.tool === "press") return `press ${(step.args.keys as string[] | undefined)?.join("+") ?? ""}`;
  if (step.tool === "navigate") return `navigate ${String(step.args.url)}`;
  return step.tool;
}

function effectOf(step: ReferenceStep): string {
  if (step.tool === "click" || step.tool === "double_click") return `what clicking ${step.target ?? "there"} does`;
  if (step.tool === "write")
    return `whether ${JSON.stringify(step.args.content)} was typed${step.args.press_enter ? " and submitted" : ""}`;
  return `what step '${describe(step)}' does`;
}

/** Ends every mutated trajectory as the gold does (its answer), so only the mutation differs. */
function withAnswer(gold: readonly ReferenceStep[], steps: ReferenceStep[]): ReferenceStep[] {
  const answer = gold[gold.length - 1];
  if (answer?.tool === "answer" && steps[steps.length - 1]?.tool !== "answer") steps.push(answer);
  return steps;
}

function lastIndex(steps: readonly ReferenceStep[], test: (s: ReferenceStep) => boolean): number {
  for (let i = steps.length - 1; i >= 0; i--) if (test(steps[i]!)) return i;
  return -1;
}

/** The mark most like `mark` among `marks` (sharing its last or first word), else null: first-toggle -> second-toggle. */
export function siblingOf(mark: string, marks: readonly string[]): string | null {
  const words = mark.split(/[-_.:]/);
  const score = (other: string) => {
    const w = other.split(/[-_.:]/);
    return (w[w.length - 1] === words[words.length - 1] ? 2 : 0) + (w[0] === words[0] ? 1 : 0);
  };
  const ranked = marks
    .filter((m) => m !== mark && score(m) > 0)
    .sort((a, b) => score(b) - score(a) || a.localeCompare(b));
  return ranked[0] ?? null;
}

export function deriveMutations(task: Task, knownMarks: readonly string[]): Mutation[] {
  const gold = task.reference;
  const out: Mutation[] = [];
  const label = (i: number) => `step ${i + 1} (${describe(gold[i]!)})`;
  const drop = lastIndex(gold, (s) => CHANGES.has(s.tool));
  if (drop >= 0) {
    out.push({
      name: `mutation-drop-step-${drop + 1}`,
      steps: withAnswer(
        gold,
        gold.filter((_, i) => i !== drop),
      ),
      what: `dropping ${label(drop)}`,
      unseen: effectOf(gold[drop]!),
    });
  }
  // Dropping the last change covers stopping before it: the save to stop before is the last click before it.
  const save = lastIndex(gold.slice(0, Math.max(drop, 0)), (s) => s.tool === "click");
  if (save >= 0) {
    out.push({
      name: `mutation-stop-before-${save + 1}`,
      steps: withAnswer(gold, gold.slice(0, save)),
      what: `stopping before ${label(save)}`,
      unseen: `${effectOf(gold[save]!)} or anything after it`,
    });
  }
  const marks = [...new Set([...knownMarks, ...gold.flatMap((s) => (s.target ? [s.target] : []))])];
  for (let i = gold.length - 1; i >= 0; i--) {
    const step = gold[i]!;
    const sibling = step.tool === "click" && step.target ? siblingOf(step.target, marks) : null;
    if (!sibling) continue;
    const steps = gold.map((s, j) => (j === i ? { ...s, target: sibling, args: {} } : s));
    out.push({
      name: `mutation-sibling-${i + 1}`,
      steps,
      what: `aiming ${label(i)} at ${sibling}`,
      unseen: `whether ${step.target} or ${sibling} was clicked`,
    });
    // The agent that does both (toggles both todos, ticks every box): right once, wrong once.
    out.push({
      name: `mutation-both-${i + 1}`,
      steps: [...gold.slice(0, i + 1), { ...step, target: sibling, args: {} }, ...gold.slice(i + 1)],
      what: `clicking ${sibling} as well as ${step.target} at ${label(i)}`,
      unseen: `whether ${sibling} was left alone`,
    });
    break;
  }
  const typed = lastIndex(
    gold,
    (s) => s.tool === "write" && typeof s.args.content === "string" && s.args.content.trim().length > 1,
  );
  if (typed >= 0) {
    const content = gold[typed]!.args.content as string;
    const near = content.slice(0, -1);
    const steps = gold.map((s, j) => (j === typed ? { ...s, args: { ...s.args, content: near } } : s));
    out.push({
      name: `mutation-near-miss-${typed + 1}`,
      steps,
      what: `typing ${JSON.stringify(near)} instead of ${JSON.stringify(content)} at step ${typed + 1}`,
      unseen: `whether exactly ${JSON.stringify(content)} was typed`,
    });
  }
  // Two mutations that play the same steps prove the same thing once.
  const seen = new Set<string>();
  return out.filter((m) => {
    const key = JSON.stringify(m.steps);
    // Answering at once is the self-test's own answer-now probe already.
    const answerOnly = m.steps.every((s) => s.tool === "answer");
    if (seen.has(key) || answerOnly || key === JSON.stringify(gold)) return false;
    seen.add(key);
    return true;
  });
}
