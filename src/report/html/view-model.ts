/**
 * What the pages are rendered from: a trial's records as the store returns them, joined with
 * where its files ended up in the report folder. Also the few derivations the pages need
 * (where a click landed, which turns a repetition pause or a reflection touched).
 */
import type { ActionRecord, CheckRecord, TrialRecord, TurnRecord } from "../../store/records.js";

/** What the task file says about a task, when it could be read at report time. */
export interface TaskInfo {
  title: string | null;
  tags: string[];
}

/** A screenshot: its link inside the report (null when the file was not found) and its pixel size. */
export interface ImageRef {
  /** Relative to the report folder, e.g. `screens/93536a8b4ab7455c58fb.png`. */
  href: string | null;
  width: number;
  height: number;
  /** The path as stored (relative to the run folder), shown when the file is missing. */
  source: string;
}

export type TurnHighlight =
  /** The repetition detector paused here: actions skipped, a reflection message sent. */
  | { kind: "pause"; condition: string }
  /** The repetition detector stopped the trial here. */
  | { kind: "stuck"; condition: string }
  /** The model's answer to a reflection message. */
  | { kind: "reflection" };

export interface TurnView {
  turn: TurnRecord;
  actions: ActionRecord[];
  /** The cost the report shows for this turn (re-priced when the user supplied prices). */
  costUsd: number | null;
  image: ImageRef | null;
  highlight: TurnHighlight | null;
}

export interface NoteFile {
  name: string;
  href: string;
  /** The note's text, cut at a limit (see `truncated`). */
  text: string;
  truncated: boolean;
  bytes: number;
}

export interface TrialView {
  /** `costUsd` is the cost the report shows (see `reportedCost`). */
  trial: TrialRecord;
  task: TaskInfo;
  turns: TurnView[];
  checks: CheckRecord[];
  /** The final answer, as stored with the trial. */
  answer: string | null;
  notes: NoteFile[];
  eventsHref: string | null;
  /** The trial's Playwright trace (`--trace`); null when it kept none. */
  traceHref?: string | null;
  /** Screenshots the repetition detector attached to a `stuck` stop. */
  evidence: ImageRef[];
  /** Other trials of the same task to open side by side with this one (see `sideBySidePartners`). */
  siblings: TrialRecord[];
  /** How many more trials of the task there are beyond `siblings`. */
  moreSiblings: number;
  previousSeq: number | null;
  nextSeq: number | null;
}

/** One proposed point drawn over a screenshot. */
export interface ClickMark {
  /** 1-based position among the turn's actions. */
  n: number;
  tool: string;
  status: string;
  /** The model's coordinates in [0, 1000]. */
  x: number;
  y: number;
  /** Where the point lies on the screenshot, unrounded: x/1000 * width, y/1000 * height (drawn here). */
  px: number;
  py: number;
  /** The pixel the executor acted on (see `landingPixel`). */
  pixelX: number;
  pixelY: number;
}

/**
 * The image pixel a [0,1000] coordinate lands on, exactly as the executor computes it
 * (src/runner/trial/executor.ts, Holo's formula): round(v/1000 * size), 1000 onto the last pixel.
 */
export function landingPixel(value: number, size: number): number {
  return Math.min(Math.round((value / 1000) * size), size - 1);
}

/** Tools whose `x`/`y` arguments are a point on the screenshot. */
const POINTING_TOOLS = new Set(["click", "double_click", "scroll"]);

/** The points a turn's actions proposed, mapped onto a screenshot of `width` x `height` pixels. */
export function clickMarks(
  actions: readonly Pick<ActionRecord, "tool" | "args" | "status">[],
  width: number,
  height: number,
): ClickMark[] {
  const marks: ClickMark[] = [];
  actions.forEach((action, i) => {
    const args = action.args as Record<string, unknown> | null;
    if (!POINTING_TOOLS.has(action.tool) || !args) return;
    const { x, y } = args;
    if (typeof x !== "number" || typeof y !== "number" || !Number.isFinite(x) || !Number.isFinite(y)) return;
    marks.push({
      n: i + 1,
      tool: action.tool,
      status: action.status,
      x,
      y,
      px: (x / 1000) * width,
      py: (y / 1000) * height,
      pixelX: landingPixel(x, width),
      pixelY: landingPixel(y, height),
    });
  });
  return marks;
}

/** `(500, 406) → 640, 325 px`: the model's value and the image pixel it maps to. */
export function markLabel(mark: ClickMark): string {
  return `(${mark.x}, ${mark.y}) → ${mark.pixelX}, ${mark.pixelY} px`;
}

/**
 * Which turns to highlight. The loop flags the turn it paused (`repetition: "pause"`, with
 * `reflection: true` because it then sent the reflection message) or stopped (`"stuck"`); the
 * turn after a reflection message is the model's reflection turn.
 */
export function turnHighlights(turns: readonly Pick<TurnRecord, "flags">[]): (TurnHighlight | null)[] {
  return turns.map((turn, i) => {
    const flags = turn.flags ?? {};
    const condition = typeof flags.condition === "string" ? flags.condition : "repeated actions on an unchanged screen";
    if (flags.repetition === "stuck") return { kind: "stuck", condition };
    if (flags.repetition === "pause") return { kind: "pause", condition };
    const previous = i > 0 ? (turns[i - 1]!.flags ?? {}) : {};
    if (previous.reflection === true || (flags.reflection === true && !flags.repetition)) return { kind: "reflection" };
    return null;
  });
}

/** How many side-by-side links a trial page offers; the compare page's pickers reach the rest. */
export const SIDE_BY_SIDE_LINKS = 8;

/**
 * The trials of the same task worth opening beside `trial`, best first: the same repeat in
 * the other agent configs (structured vs tools), then the other repeats of its own config,
 * then the rest; at most `limit`, so a task with hundreds of repeats keeps its pages small.
 */
export function sideBySidePartners(
  trial: TrialRecord,
  sameTask: readonly TrialRecord[],
  limit = SIDE_BY_SIDE_LINKS,
): { partners: TrialRecord[]; more: number } {
  const others = sameTask.filter((t) => t.id !== trial.id);
  const rank = (t: TrialRecord) => (t.repeat === trial.repeat ? 0 : t.agentLabel === trial.agentLabel ? 1 : 2);
  const sorted = [...others].sort((a, b) => rank(a) - rank(b) || a.seq - b.seq);
  return { partners: sorted.slice(0, limit), more: Math.max(0, sorted.length - limit) };
}

/** `#3 scorecard-note-bb042 · reference/tools · repeat 0`. */
export function trialLabel(trial: Pick<TrialRecord, "seq" | "taskId" | "agentLabel" | "repeat">): string {
  return `#${trial.seq} ${trial.taskId} · ${trial.agentLabel} · repeat ${trial.repeat}`;
}
