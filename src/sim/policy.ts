/**
 * The reference model's policy: recognise the task from the request, pick the trajectory the
 * profile plays (gold, a declared negative, or a synthetic one), find the step from the
 * conversation's progress, ground its target on the live layout of the trial's fixture
 * session, and describe the one action of this turn with a note, a thought and a reasoning
 * trace. It never sees checks: only instruction, reference and negatives are read.
 */
import type { ReferenceStep } from "../task/schema.js";
import { TOOL_ARGS, isToolName } from "../toolbox/tools.js";
import { describeElement, groundMark, type PageLayout, type ScreenFrame } from "./grounding.js";
import { dataUriImageInfo } from "./image.js";
import { NEGATIVE_PROFILES, misclickOffset, type ProfileName } from "./profiles.js";
import { HOLD_PHRASE, readProgress, type Progress } from "./progress.js";
import { imagesOf, squashSpace, taskContextText, type WireMessage } from "./request.js";

/** What the policy reads of a task (a resolved `Task` fits). */
export interface ReferenceTask {
  id?: string;
  instruction: string;
  reference: readonly PolicyStep[];
  negatives?: Readonly<Record<string, readonly PolicyStep[]>>;
  /** Where the task starts; its scenario tells apart tasks with the same instruction. */
  start?: { scenario?: string };
}

/** A trajectory step; `args` may be omitted as in a task file. */
export type PolicyStep = Omit<ReferenceStep, "args"> & { args?: Record<string, unknown> };

export interface PolicyContext {
  tasks: readonly ReferenceTask[];
  profile: ProfileName;
  /** A declared negative to play instead of the gold trajectory (`reference:negative-<name>`). */
  negative?: string;
  seed: number;
  /** Reads the trial's latest layout; null when there is none (no session, no fixture site). */
  layout: () => Promise<{ layout: PageLayout | null; problem?: string }>;
  /** The fixture session's scenario, when known. */
  scenario?: () => Promise<string | null>;
  /** How long it waits for a step's mark that is not on the page yet (default MARK_WAIT: 2 waits of 1 s). */
  markWait?: MarkWait;
}

/** The reference model's patience for a missing mark: up to `waits` waits of `seconds` each, then it gives up. */
export interface MarkWait {
  waits: number;
  seconds: number;
}

export interface PlannedTurn {
  taskId: string | null;
  /** Which trajectory was played: `reference`, `negatives.<name>`, `same-spot`, `answer-now`, `unknown-task`, `hold`, `lost`. */
  trajectory: string;
  /** Index of the trajectory step played, null for synthetic turns. */
  step: number | null;
  progress: Progress;
  action: { tool: string; args: Record<string, unknown> };
  note: string | null;
  thought: string;
  reasoning: string;
  /** On `hold` and `lost` turns: the step whose mark the page did not show, and what it showed instead. */
  missing?: MissingMark;
}

/** A trajectory step the policy could not ground: the self-test names it ("not exercised"). */
export interface MissingMark {
  /** Which trajectory (`reference`, `negatives.<name>`) and its 0-based step. */
  trajectory: string;
  step: number;
  tool: string;
  mark: string;
  /** The page the layout was of (its path, else URL), null without a layout. */
  page: string | null;
  /** The marks the page reported instead (names), empty without a layout. */
  marks: string[];
  /** Why there was no layout, when there was none. */
  problem?: string;
}

/** Hold turns (waits while a target mark is missing) before the policy gives up and says so. */
export const MAX_HOLDS = 2;
export const MARK_WAIT: MarkWait = { waits: MAX_HOLDS, seconds: 1 };

/**
 * `UMPIRE_MARK_WAIT`: the patience as `WAITSxSECONDS` ("5x2": five waits of 2 s) or `WAITS` (of 1 s
 * each); unset is the default. Null when the text is neither (the caller says so).
 */
export function parseMarkWait(text: string | undefined): MarkWait | null {
  if (text === undefined || text.trim() === "") return MARK_WAIT;
  const m = /^\s*(\d{1,3})(?:\s*x\s*(\d+(?:\.\d+)?)\s*s?)?\s*$/.exec(text);
  if (!m) return null;
  const seconds = m[2] === undefined ? 1 : Number(m[2]);
  if (seconds <= 0 || seconds > 30) return null;
  return { waits: Number(m[1]), seconds };
}
export const UNKNOWN_TASK_ANSWER = "I cannot identify the task";

const SAME_SPOT: PolicyStep = { tool: "click", args: { element: "the middle of the page", x: 500, y: 500 } };

/** Decides this turn's single action. */
export async function planTurn(messages: readonly WireMessage[], context: PolicyContext): Promise<PlannedTurn> {
  const progress = readProgress(messages);
  const task = findTask(messages, context.tasks, context.scenario ? await context.scenario() : null);
  const base = { taskId: task?.id ?? null, progress };
  if (!task) {
    return {
      ...base,
      trajectory: "unknown-task",
      step: null,
      ...answer(UNKNOWN_TASK_ANSWER, "The request names no task I know, so I say so."),
    };
  }
  if (context.profile === "answer-now") {
    return { ...base, trajectory: "answer-now", step: null, ...answer("Done.", "I answer at once.") };
  }
  const { name, steps, index } = chooseStep(task, context.profile, progress, context.negative);
  const step = steps[Math.min(index, steps.length - 1)];
  const label = `step ${Math.min(index, steps.length - 1) + 1} of ${steps.length}`;
  // The layout is read every turn (one local HTTP call): it grounds targets and feeds the note.
  const seen = await context.layout();
  const grounded = groundStep(step, messages, context, progress, seen);
  if (grounded.kind !== "ok") {
    const missing: MissingMark = {
      trajectory: name,
      step: Math.min(index, steps.length - 1),
      tool: step.tool,
      mark: step.target ?? "",
      page: seen.layout ? (seen.layout.path ?? seen.layout.url ?? null) : null,
      marks: seen.layout ? seen.layout.marks.map((m) => m.name) : [],
      ...(seen.layout ? {} : { problem: seen.problem ?? "no layout" }),
    };
    return { ...base, trajectory: grounded.kind, step: null, ...grounded.turn, missing };
  }
  const { args, where } = grounded;
  const layout = seen.layout;
  const action = { tool: step.tool, args: withDefaults(step.tool, args) };
  const thought = `${describeAction(action)} (${label} of the plan).`;
  return {
    ...base,
    trajectory: name,
    step: Math.min(index, steps.length - 1),
    action,
    note: step.note ?? (step.tool === "answer" ? null : pageNote(layout)),
    thought,
    reasoning: [
      `The task is ${task.id ?? "the one stated in the prompt"}.`,
      layout
        ? `The screen shows ${layout.path ?? layout.url ?? "a page"}${layout.title ? ` titled "${layout.title}"` : ""}.`
        : "I have no layout for this screen.",
      `Next is ${label}: ${step.tool}${step.target ? ` on ${step.target}` : ""}.`,
      where,
    ]
      .filter(Boolean)
      .join(" "),
  };
}

/**
 * The task whose instruction occurs in the system prompt or first user message (the longest, when
 * several do). Tasks that share an instruction (the same request on another scenario) are told
 * apart by the fixture session's scenario.
 */
export function findTask<T extends ReferenceTask>(
  messages: readonly WireMessage[],
  tasks: readonly T[],
  scenario: string | null = null,
): T | null {
  const context = squashSpace(taskContextText(messages));
  let candidates: T[] = [];
  let longest = 0;
  for (const task of tasks) {
    const instruction = squashSpace(task.instruction);
    if (!instruction || !context.includes(instruction) || instruction.length < longest) continue;
    if (instruction.length > longest) candidates = [];
    longest = instruction.length;
    candidates.push(task);
  }
  return (
    candidates.find((t) => scenario !== null && (t.start?.scenario ?? "plain") === scenario) ?? candidates[0] ?? null
  );
}

/** The trajectory a profile plays and the index within it for this turn. */
export function chooseStep(
  task: ReferenceTask,
  profile: ProfileName,
  progress: Progress,
  named?: string,
): { name: string; steps: readonly PolicyStep[]; index: number } {
  const gold = { name: "reference", steps: task.reference };
  const negative = (name: string) => {
    const steps = task.negatives?.[name];
    return steps && steps.length > 0 ? { name: `negatives.${name}`, steps } : null;
  };
  if (named) return { ...(negative(named) ?? gold), index: progress.stepsPlayed };
  const loop = negative("loop") ?? { name: "same-spot", steps: [SAME_SPOT] };
  if (profile === "loop") return { ...loop, index: progress.stepsPlayed };
  if (profile === "recover") {
    const reflectedAt = progress.stepsBeforeReflection;
    if (reflectedAt === null) return { ...loop, index: progress.stepsPlayed };
    return {
      name: "recovered",
      steps: recoveredTrajectory(loop.steps, gold.steps, reflectedAt),
      index: progress.stepsPlayed,
    };
  }
  if (NEGATIVE_PROFILES.has(profile)) return { ...(negative(profile) ?? gold), index: progress.stepsPlayed };
  return { ...gold, index: progress.stepsPlayed };
}

/** A step's identity for comparing trajectories; the element description is wording, not identity. */
function stepKey(s: PolicyStep): string {
  const { element: _element, ...args } = s.args ?? {};
  return JSON.stringify([s.tool, s.target ?? null, args]);
}

/** First index where two trajectories differ (tool, target or other args). */
export function divergence(a: readonly PolicyStep[], b: readonly PolicyStep[]): number {
  let i = 0;
  while (i < a.length && i < b.length && stepKey(a[i]) === stepKey(b[i])) i += 1;
  return i;
}

/**
 * What `recover` plays once a reflection arrives: the loop steps already played, then gold from
 * where the two trajectories part (for a cookie dialog: dismiss it, then type and save the note
 * again, since input behind the modal never arrived).
 */
export function recoveredTrajectory(
  loop: readonly PolicyStep[],
  gold: readonly PolicyStep[],
  reflectedAt: number,
): PolicyStep[] {
  // The loop's last step repeats once the trajectory runs out (the index is clamped when played).
  const played = Array.from({ length: reflectedAt }, (_, i) => loop[Math.min(i, loop.length - 1)]!);
  return [...played, ...gold.slice(Math.min(divergence(loop, gold), reflectedAt))];
}

type Grounded =
  | { kind: "ok"; args: Record<string, unknown>; where: string }
  | { kind: "hold" | "lost"; turn: Pick<PlannedTurn, "action" | "note" | "thought" | "reasoning"> };

function groundStep(
  step: PolicyStep,
  messages: readonly WireMessage[],
  context: PolicyContext,
  progress: Progress,
  { layout, problem }: { layout: PageLayout | null; problem?: string },
): Grounded {
  const args: Record<string, unknown> = { ...(step.args ?? {}) };
  const clickLike = step.tool === "click" || step.tool === "double_click";
  if (!step.target) {
    if (clickLike && context.profile === "misclick") applyMisclick(args, context.seed, progress.turn);
    if (step.tool === "answer" && typeof args.content !== "string") args.content = step.note ?? "Done.";
    return { kind: "ok", args, where: "" };
  }
  const frame = lastScreenshotFrame(messages);
  const point = layout ? groundMark(layout, step.target, frame ?? undefined) : null;
  if (!layout || !point) {
    if (step.tool === "scroll")
      return { kind: "ok", args, where: `I cannot see ${step.target}, so I scroll where the pointer is.` };
    const missing = layout
      ? `${step.target} is not on ${layout.path ?? "the page"}`
      : `I have no layout (${problem ?? "no session"})`;
    const patience = context.markWait ?? MARK_WAIT;
    if (layout && progress.trailingHolds < patience.waits) {
      return {
        kind: "hold",
        turn: {
          action: { tool: "wait", args: { seconds: patience.seconds } },
          note: null,
          thought: `${HOLD_PHRASE} [${step.target}].`,
          reasoning: `${missing}; it may still be loading, so I wait.`,
        },
      };
    }
    return {
      kind: "lost",
      turn: answer(`I could not find ${step.target}: ${missing}.`, `${missing}; I stop and say so.`),
    };
  }
  if (step.tool === "scroll") {
    // Scroll at the mark while it is on screen; once it has scrolled away, wherever the pointer is.
    if (point.clamped)
      return { kind: "ok", args, where: `${step.target} is out of view, so I scroll where the pointer is.` };
  } else {
    args.element ??= describeElement(point.mark, layout);
  }
  args.x = point.x;
  args.y = point.y;
  if (clickLike && context.profile === "misclick") applyMisclick(args, context.seed, progress.turn);
  const frameText = frame
    ? `the screenshot is ${frame.width}x${frame.height} px`
    : "there is no screenshot, so the viewport is the frame";
  const where = `${step.target} spans (${point.mark.x}, ${point.mark.y}) ${point.mark.width}x${point.mark.height} CSS px in a ${layout.viewport.width}x${layout.viewport.height} viewport; ${frameText}, so its centre is (${args.x}, ${args.y}) in [0, 1000].`;
  return { kind: "ok", args, where };
}

/** Pixel size of the last image in the request, the frame coordinates refer to. */
export function lastScreenshotFrame(messages: readonly WireMessage[]): ScreenFrame | null {
  const images = imagesOf(messages);
  const last = images[images.length - 1];
  const info = last ? dataUriImageInfo(last.url) : null;
  return info ? { width: info.width, height: info.height } : null;
}

function applyMisclick(args: Record<string, unknown>, seed: number, turn: number): void {
  if (typeof args.x !== "number" || typeof args.y !== "number") return;
  const { dx, dy } = misclickOffset(seed, turn);
  args.x = Math.min(1000, Math.max(0, args.x + dx));
  args.y = Math.min(1000, Math.max(0, args.y + dy));
}

/** Fills a tool's defaults (write's press_enter) when the args are otherwise valid. */
function withDefaults(tool: string, args: Record<string, unknown>): Record<string, unknown> {
  if (!isToolName(tool)) return args;
  const parsed = TOOL_ARGS[tool].safeParse(args);
  return parsed.success ? (parsed.data as Record<string, unknown>) : args;
}

function answer(content: string, thought: string): Pick<PlannedTurn, "action" | "note" | "thought" | "reasoning"> {
  return { action: { tool: "answer", args: { content } }, note: null, thought, reasoning: thought };
}

function describeAction(action: { tool: string; args: Record<string, unknown> }): string {
  const a = action.args;
  switch (action.tool) {
    case "click":
    case "double_click":
      return `${action.tool === "click" ? "Click" : "Double-click"} ${String(a.element ?? "the target")}`;
    case "write":
      return `Type ${JSON.stringify(a.content)}${a.press_enter ? " and press Enter" : ""}`;
    case "press":
      return `Press ${Array.isArray(a.keys) ? a.keys.join("+") : "a key"}`;
    case "scroll":
      return `Scroll ${String(a.direction ?? "down")} by ${String(a.amount ?? 1)}`;
    case "navigate":
      return `Open ${String(a.url)}`;
    case "answer":
      return "Give the final answer";
    default:
      return `Use ${action.tool}`;
  }
}

/** A note of what the screen shows: the page and the marked elements in view. */
function pageNote(layout: PageLayout | null): string | null {
  if (!layout) return null;
  const inView = layout.marks.filter((m) => m.visible !== false).map((m) => m.name + (m.covered ? " (covered)" : ""));
  const shown = inView.slice(0, 8).join(", ") + (inView.length > 8 ? `, +${inView.length - 8} more` : "");
  return `On ${layout.path ?? layout.url ?? "the page"}${layout.title ? ` ("${layout.title}")` : ""}: ${shown || "no marked elements in view"}.`;
}
