/**
 * Where two trials of one task parted: for a task that flipped between a baseline run and a
 * candidate run, the first turn at which the candidate's trajectory left the baseline's.
 *
 * The two trials are walked turn by turn (turn n beside turn n). At each turn the screens the two
 * agents were shown are compared first: screens less alike than SCREENS_APART mean the pages had
 * already parted (the application answered differently, or an earlier action landed elsewhere
 * without changing its signature). Then the turns' actions are compared by action signature
 * (tool, target point within a tolerance, text, other arguments; the wording of an element
 * description is not part of it). The first turn where either differs, or where one trial has no
 * turn left, is the divergence. Pure: the signature and screen comparisons are handed in (they
 * live in the runner's repetition module, which this layer does not import).
 */
import { resolve } from "node:path";
import type { ActionRecord, TurnRecord } from "../store/records.js";
import type { StopReason, Verdict } from "../vocabulary.js";

/** Screens less alike than this (share of compared pixels within the colour threshold) count as parted. */
export const SCREENS_APART = 0.9;

/** One turn as the divergence finder reads it. */
export interface TrajectoryTurn {
  idx: number;
  actions: Pick<ActionRecord, "tool" | "args" | "status">[];
  /** The screenshot the agent was shown, its path absolute; null when none was stored or the run has no folder. */
  screenshot: TurnRecord["screenshot"];
  /** The agent's final answer, on the turn that gave it (answers are not stored as actions). */
  answer?: string | null;
}

export interface TrajectorySide {
  trialId: string;
  seq: number;
  runId: string;
  repeat: number;
  verdict: Verdict | null;
  stopReason: StopReason | null;
  turns: TrajectoryTurn[];
}

export interface DivergenceTools {
  /** Whether two proposed actions are the same attempt (the repetition module's action signature). */
  sameAction(a: Pick<ActionRecord, "tool" | "args">, b: Pick<ActionRecord, "tool" | "args">): boolean;
  /** How alike two stored screenshots are, 0..1; null when either cannot be read. */
  screenSimilarity(a: NonNullable<TurnRecord["screenshot"]>, b: NonNullable<TurnRecord["screenshot"]>): number | null;
}

export type DivergenceCause = "actions" | "screens" | "ended";

export interface Divergence {
  /** The compare row's key (the task id, with its mode, model or agent when those vary). */
  key: string;
  direction: "pass->fail" | "fail->pass";
  base: Omit<TrajectorySide, "turns">;
  candidate: Omit<TrajectorySide, "turns">;
  /** The 1-based turn number where they parted; null when the two trajectories never parted. */
  turn: number | null;
  cause: DivergenceCause | null;
  /** Screen similarity at that turn (what both agents saw before acting), 0..1; null when unknown. */
  similarity: number | null;
  /**
   * The turns looked at (up to the divergence, or all of them), and how many of them had both
   * screenshots to compare: "alike screens" is said only of screens that were compared.
   */
  screensCompared: { turns: number; compared: number };
  /** Each side's turn at the divergence and the next one (null where that side has none). */
  baseTurns: [TrajectoryTurn | null, TrajectoryTurn | null];
  candidateTurns: [TrajectoryTurn | null, TrajectoryTurn | null];
}

const sameActions = (a: TrajectoryTurn, b: TrajectoryTurn, tools: DivergenceTools): boolean =>
  a.actions.length === b.actions.length &&
  a.actions.every((x, i) => tools.sameAction(x, b.actions[i]!)) &&
  (a.answer ?? null) === (b.answer ?? null);

function similarityAt(a: TrajectoryTurn, b: TrajectoryTurn, tools: DivergenceTools): number | null {
  return a.screenshot && b.screenshot ? tools.screenSimilarity(a.screenshot, b.screenshot) : null;
}

function withoutTurns({ turns: _turns, ...side }: TrajectorySide): Omit<TrajectorySide, "turns"> {
  return side;
}

/** The first turn where `candidate` left `base` (see the module comment). */
export function findDivergence(
  key: string,
  direction: Divergence["direction"],
  base: TrajectorySide,
  candidate: TrajectorySide,
  tools: DivergenceTools,
): Divergence {
  const screensCompared = { turns: 0, compared: 0 };
  const result = (i: number | null, cause: DivergenceCause | null, similarity: number | null): Divergence => ({
    key,
    direction,
    base: withoutTurns(base),
    candidate: withoutTurns(candidate),
    turn: i === null ? null : i + 1,
    cause,
    similarity,
    screensCompared,
    baseTurns: i === null ? [null, null] : [base.turns[i] ?? null, base.turns[i + 1] ?? null],
    candidateTurns: i === null ? [null, null] : [candidate.turns[i] ?? null, candidate.turns[i + 1] ?? null],
  });
  const length = Math.max(base.turns.length, candidate.turns.length);
  for (let i = 0; i < length; i++) {
    const b = base.turns[i];
    const c = candidate.turns[i];
    if (!b || !c) return result(i, "ended", null);
    const similarity = similarityAt(b, c, tools);
    screensCompared.turns += 1;
    if (similarity !== null) screensCompared.compared += 1;
    if (similarity !== null && similarity < SCREENS_APART) return result(i, "screens", similarity);
    if (!sameActions(b, c, tools)) return result(i, "actions", similarity);
  }
  return result(null, null, null);
}

/**
 * Turns in order, each with its actions and, on the last turn of an answered trial, the answer.
 * Screenshot paths are made absolute against the run folder (two runs have two folders).
 */
export function trajectoryTurns(
  turns: readonly TurnRecord[],
  actions: readonly ActionRecord[],
  answer: string | null,
  runFolder: string | null,
): TrajectoryTurn[] {
  const sorted = [...turns].sort((a, b) => a.idx - b.idx);
  return sorted.map((turn, i) => {
    const own = actions.filter((a) => a.turnIdx === turn.idx).sort((a, b) => a.idx - b.idx);
    const last = i === sorted.length - 1 && own.length === 0 && answer !== null;
    const shot =
      turn.screenshot && runFolder ? { ...turn.screenshot, path: resolve(runFolder, turn.screenshot.path) } : null;
    return {
      idx: turn.idx,
      actions: own.map((a) => ({ tool: a.tool, args: a.args, status: a.status })),
      screenshot: shot,
      ...(last ? { answer } : {}),
    };
  });
}

/** One turn's actions in words: `click 'Save' at (73, 634)`, `write "BB-042"`, `answer "Done."`. */
export function describeTurn(turn: TrajectoryTurn | null, ended = "no turn (the trial had ended)"): string {
  if (!turn) return ended;
  const parts = turn.actions.map(describeAction);
  if (turn.answer !== undefined && turn.answer !== null) parts.push(`answer ${quote(turn.answer)}`);
  return parts.length > 0 ? parts.join(", then ") : "no action";
}

/** Arguments said in their own words by `describeAction`; every other one is said as `name value`. */
const WORDED = new Set(["element", "x", "y", "content", "keys", "direction"]);

const argsOf = (action: Pick<ActionRecord, "args">): Record<string, unknown> =>
  (action.args && typeof action.args === "object" ? action.args : {}) as Record<string, unknown>;

function describeAction(action: Pick<ActionRecord, "tool" | "args">): string {
  const args = argsOf(action);
  const words: string[] = [action.tool];
  if (typeof args.element === "string") words.push(`'${short(args.element, 60)}'`);
  if (typeof args.x === "number" && typeof args.y === "number") words.push(`at (${args.x}, ${args.y})`);
  if (typeof args.content === "string") words.push(quote(args.content));
  if (Array.isArray(args.keys)) words.push(args.keys.map(String).join("+"));
  if (typeof args.direction === "string") words.push(args.direction);
  // The other arguments by name (an http_get's path, a note's name): often they are the whole story.
  for (const [name, value] of Object.entries(args)) {
    if (WORDED.has(name) || value === null || value === false || typeof value === "object") continue;
    words.push(`${name} ${typeof value === "string" ? short(value, 60) : String(value)}`);
  }
  return words.join(" ");
}

/**
 * The arguments that differ between two turns' actions of the same tool, by name ("path"; a
 * click's x and y as "point"); empty when the tools differ or nothing does.
 */
export function differingArgs(base: TrajectoryTurn | null, candidate: TrajectoryTurn | null): string[] {
  if (!base || !candidate) return [];
  const names = new Set<string>();
  base.actions.forEach((a, i) => {
    const b = candidate.actions[i];
    if (!b || b.tool !== a.tool) return;
    const [x, y] = [argsOf(a), argsOf(b)];
    for (const name of new Set([...Object.keys(x), ...Object.keys(y)])) {
      // An element's description is wording, not the action (the signature ignores it too).
      if (name === "element" || JSON.stringify(x[name]) === JSON.stringify(y[name])) continue;
      names.add(name === "x" || name === "y" ? "point" : name);
    }
  });
  return [...names];
}

function quote(text: string): string {
  return JSON.stringify(short(text, 60));
}

function short(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/**
 * The compare line: `task X flipped pass->fail: diverged at turn 3: baseline ..., candidate ...;
 * screens 98% alike before (baseline trial ..., candidate trial ...)`.
 */
export function divergenceLine(d: Divergence): string {
  const head = `task ${d.key} flipped ${d.direction}`;
  const base = `baseline trial ${d.base.trialId} ${d.base.verdict ?? "not run"}`;
  const pair = `(${base}, candidate trial ${d.candidate.trialId} ${d.candidate.verdict ?? "not run"})`;
  if (d.turn === null) return `${head}: ${neverParted(d.screensCompared)} ${pair}`;
  const [b] = d.baseTurns;
  const [c] = d.candidateTurns;
  const when = d.cause === "screens" ? "(the pages had already parted)" : "before";
  const screens = d.similarity === null ? "" : `; screens ${percent(d.similarity)} alike ${when}`;
  const differ = differingArgs(b ?? null, c ?? null);
  const which = differ.length ? ` (${differ.join(", ")} differ${differ.length === 1 ? "s" : ""})` : "";
  const actions = `baseline ${describeTurn(b)}, candidate ${describeTurn(c)}${which}`;
  return `${head}: diverged at turn ${d.turn}: ${actions}${screens} ${pair}`;
}

/** Two trajectories that never parted, saying only what was compared (screens need both screenshots). */
function neverParted({ turns, compared }: Divergence["screensCompared"]): string {
  if (compared === turns) return "the same actions on alike screens at every turn";
  if (compared === 0)
    return "the same actions at every turn (screens not compared: no turn has a screenshot on each side)";
  return `the same actions at every turn, on alike screens at the ${compared} of ${turns} turns with both screenshots`;
}

/** Floor, so 99.6% alike never reads as 100% for screens that differ. */
export function percent(fraction: number): string {
  return `${Math.floor(fraction * 100)}%`;
}

/** The section `compare` prints after the paired analysis of two runs ("" when nothing flipped); Markdown as a list. */
export function divergenceSection(
  divergences: readonly Divergence[],
  baseRun: string,
  candidateRun: string,
  markdown = false,
): string {
  if (divergences.length === 0) return "";
  const command = `umpire report ${candidateRun} --baseline ${baseRun}`;
  if (markdown) {
    const escaped = (line: string) => line.replace(/[\\`*_[\]<|]/g, (c) => `\\${c}`);
    const items = divergences.map((d) => `- ${escaped(divergenceLine(d))}`);
    return `\n### Where the flipped tasks diverged\n\n${items.join("\n")}\n\nSide by side: \`${command}\`\n`;
  }
  const lines = divergences.map((d) => `  ${divergenceLine(d)}`);
  return `\nwhere the flipped tasks diverged:\n${lines.join("\n")}\n  side by side: ${command}\n`;
}
