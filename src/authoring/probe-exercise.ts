/**
 * Whether a self-test probe was played as written. A negative the reference model could not play
 * (a mark not found, an action rejected or failed, a step skipped or never reached) proves nothing
 * about the checks, however its verdict came out: it is "not exercised". The model's own request
 * log says which trajectory step each turn played and which mark it could not find (and what the
 * page showed instead); the stored actions say how each step's action went.
 */
import type { RequestRecord } from "../sim/log.js";
import type { ActionRecord } from "../store/records.js";
import { closest } from "../task/suggest.js";
import { missedMark } from "../runner/page/mark-hit.js";

/** One step of the trajectory a probe plays (a gold or negative step of the task). */
export interface ProbeStep {
  tool: string;
  target?: string;
}

export interface ExerciseInput {
  /** `reference` or `negatives.<name>`, as the reference model's log names it. */
  trajectory: string;
  steps: readonly ProbeStep[];
  /** The model's log records of this trial (every attempt, oldest first). */
  records: readonly RequestRecord[];
  /** The stored actions of the trial's final attempt (`turnIdx` counts from 1, as the loop stores it). */
  actions: readonly ActionRecord[];
  stopReason: string;
  stopDetail: string;
}

export interface Exercise {
  exercised: boolean;
  /** Why not, one line per step that was not played as written. */
  problems: string[];
  /** Marks of the trajectory the page showed and a step used (to tell a slow page from a typo elsewhere). */
  marksPlayed: string[];
  /** Marks the model waited for and never found. */
  marksMissing: string[];
}

/**
 * The repetition guard pauses an action it has already seen repeated (loop.ts: "not run: paused: ...").
 * A negative built to repeat a wrong action has then tried it: that skip is the guard's verdict, not a
 * step the trajectory failed to play.
 */
const GUARD_PAUSE = /^not run: paused:/;
/** Stop reasons a trajectory may legitimately end on before its last step: the guard stopped the repetition. */
const STOPS_BEFORE_END_ALLOWED = new Set(["stuck"]);
const SHOWN_MARKS = 12;
/**
 * The executor's "failed" after the input was sent and only the settle wait ran out (executor.ts):
 * the step was played; a starved machine was slow to show it, which the probe's CPU hint says.
 */
const INPUT_SENT = /but the application had not answered after [\d.]+ s/;

/** The records of the last attempt (also how `umpire try` reads a trial): a retried trial starts again at turn 0 with the same trial id. */
export function lastAttempt(records: readonly RequestRecord[]): RequestRecord[] {
  const played = records.filter((r) => r.status === 200 && r.turn !== null);
  let start = 0;
  for (let i = 1; i < played.length; i++) if ((played[i]!.turn ?? 0) < (played[i - 1]!.turn ?? 0)) start = i;
  return played.slice(start);
}

export function stepLabel(steps: readonly ProbeStep[], i: number): string {
  const step = steps[i];
  return `step ${i + 1} of ${steps.length} (${step ? `${step.tool}${step.target ? ` ${step.target}` : ""}` : "?"})`;
}

/** "the page /match/BB-042 had no mark confirm-yess (did you mean confirm-save?); its marks: a, b, +3 more". */
export function describeMissing(missing: NonNullable<RequestRecord["missing"]>): string {
  if (missing.page === null && missing.marks.length === 0) {
    return `mark ${missing.mark} could not be looked for: ${missing.problem ?? "no layout"}`;
  }
  const guess = closest(missing.mark, missing.marks);
  const more = missing.marks.length - SHOWN_MARKS;
  const shown = missing.marks.slice(0, SHOWN_MARKS).join(", ") + (more > 0 ? `, +${more} more` : "");
  const page = missing.page ?? "the page";
  const hint = guess ? ` (did you mean ${guess}?)` : "";
  return `mark ${missing.mark} not found on ${page}${hint}; the page had: ${shown || "no marks"}`;
}

export function judgeExercise(input: ExerciseInput): Exercise {
  const records = lastAttempt(input.records);
  // No turn of this trial in the model's log names the trajectory: nothing to judge by (seen under heavy
  // load for a trial that passed; the cause is not yet found), so the verdict alone speaks for it.
  const mine = records.filter((r) => r.trajectory === input.trajectory || r.missing?.trajectory === input.trajectory);
  if (mine.length === 0) return { exercised: true, problems: [], marksPlayed: [], marksMissing: [] };
  const actionsByTurn = new Map<number, ActionRecord[]>();
  // The loop numbers turns from 1 (loop.ts counts the turn before it records it); the model's log from 0.
  for (const a of input.actions) actionsByTurn.set(a.turnIdx - 1, [...(actionsByTurn.get(a.turnIdx - 1) ?? []), a]);
  // The last record of each turn number is the one the loop acted on (a retried request logs twice).
  const byTurn = new Map<number, RequestRecord>();
  for (const r of records) byTurn.set(r.turn!, r);

  const problems: string[] = [];
  const played = new Set<number>();
  const marksPlayed = new Set<string>();
  const marksMissing = new Set<string>();
  const reported = new Set<number>();
  for (const [turn, record] of [...byTurn].sort((a, b) => a[0] - b[0])) {
    if (record.trajectory === "lost" && record.missing && record.missing.trajectory === input.trajectory) {
      const i = record.missing.step;
      marksMissing.add(record.missing.mark);
      if (!reported.has(i)) problems.push(`${stepLabel(input.steps, i)}: ${describeMissing(record.missing)}`);
      reported.add(i);
      continue;
    }
    if (record.trajectory !== input.trajectory || record.step === null) continue;
    const i = record.step;
    const step = input.steps[i];
    const mine = actionsByTurn.get(turn) ?? [];
    // The answer is handled by the loop, not the executor: it has no stored action.
    const bad = mine.find(
      (a) =>
        a.status !== "success" &&
        !(a.status === "skipped" && GUARD_PAUSE.test(a.message)) &&
        !INPUT_SENT.test(a.message),
    );
    // A click that landed off the step's mark (the page moved under it, a cover) did not play the step.
    const missed = bad ? null : firstMiss(step?.target, mine);
    if (missed) {
      if (!reported.has(i)) problems.push(`${stepLabel(input.steps, i)}: the click ${missed}`);
      reported.add(i);
      continue;
    }
    if (step?.tool === "answer" || (mine.length > 0 && !bad)) {
      played.add(i);
      if (step?.target) marksPlayed.add(step.target);
      continue;
    }
    if (bad && !reported.has(i)) {
      problems.push(`${stepLabel(input.steps, i)}: the action was ${bad.status}: ${bad.message}`);
      reported.add(i);
    }
  }
  // A step never reached: the trial stopped first (a limit, the time, the model's output).
  const firstUnplayed = input.steps.findIndex((_, i) => !played.has(i) && !reported.has(i));
  const anyLater = firstUnplayed >= 0 && [...played].some((i) => i > firstUnplayed);
  if (firstUnplayed >= 0 && !anyLater && problems.length === 0 && !STOPS_BEFORE_END_ALLOWED.has(input.stopReason)) {
    const why = input.stopDetail ? `${input.stopReason}: ${input.stopDetail}` : input.stopReason;
    problems.push(`${stepLabel(input.steps, firstUnplayed)} was never played: the trial stopped first (${why})`);
  } else if (firstUnplayed >= 0 && anyLater && problems.length === 0) {
    problems.push(`${stepLabel(input.steps, firstUnplayed)} was skipped`);
  }
  return { exercised: problems.length === 0, problems, marksPlayed: [...marksPlayed], marksMissing: [...marksMissing] };
}

/** The first of a step's actions whose click missed the step's mark, said as `missedMark` says it. */
function firstMiss(mark: string | undefined, actions: readonly ActionRecord[]): string | null {
  for (const a of actions) {
    const missed = missedMark(mark, a.message);
    if (missed) return missed;
  }
  return null;
}
