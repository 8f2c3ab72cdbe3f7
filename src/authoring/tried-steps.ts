/**
 * `umpire try`'s reading of one played trajectory: per turn, the trajectory step it played (from
 * the reference model's log, as the self-test reads it in probe-exercise.ts), the mark the step
 * aimed at, the point it clicked, how the action went, and the observation it was sent. A step
 * whose mark the page did not show is named at its step, with what the page had instead.
 */
import type { ReferenceStep } from "../task/schema.js";
import type { RequestRecord } from "../sim/log.js";
import type { ActionRecord, TurnRecord } from "../store/records.js";
import { missedMark } from "../runner/page/mark-hit.js";
import { describeMissing, lastAttempt, stepLabel } from "./probe-exercise.js";

export interface TriedStep {
  /** The loop's turn number (from 1). */
  turn: number;
  /** The trajectory step played (from 0); null for a turn that played none of it. */
  step: number | null;
  /** "step 2 of 4 (click greet)". */
  label: string;
  tool: string | null;
  /** The mark the step aimed at, when it has one. */
  mark: string | null;
  /** Where the action aimed, in [0, 1000] of the screenshot (click, double_click, a scroll at a point). */
  point: { x: number; y: number } | null;
  /** How it went, one line: the action's status and message, or why the step was not played. */
  outcome: string;
  /** The step could not be played as written (its mark missing, its action not a success). */
  broken: boolean;
  /** The turn waited for the step's mark to appear (the reference model holds twice before giving up). */
  waited: boolean;
  /** The observation the turn was sent (relative to the run folder). */
  screenshot: { path: string; width: number; height: number } | null;
}

function pointOf(args: unknown): { x: number; y: number } | null {
  const a = args as { x?: unknown; y?: unknown } | null;
  return a && typeof a.x === "number" && typeof a.y === "number" ? { x: a.x, y: a.y } : null;
}

/** One entry per turn of the trial's last attempt, in order. */
export function triedSteps(input: {
  trajectory: string;
  steps: readonly ReferenceStep[];
  records: readonly RequestRecord[];
  turns: readonly TurnRecord[];
  actions: readonly ActionRecord[];
  /** The task's tools: a wait the model asked for is refused when they lack it. */
  tools?: readonly string[];
}): TriedStep[] {
  // The last record of each turn number is the one the loop acted on (a retried request logs twice).
  const byTurn = new Map<number, RequestRecord>();
  for (const r of lastAttempt(input.records)) byTurn.set(r.turn!, r);
  return [...byTurn]
    .sort((a, b) => a[0] - b[0])
    .map(([logTurn, record]): TriedStep => {
      // The model's log counts turns from 0, the loop from 1.
      const turn = logTurn + 1;
      const shot = input.turns.find((t) => t.idx === turn)?.screenshot ?? null;
      const actions = input.actions.filter((a) => a.turnIdx === turn);
      const action = actions[0];
      const missing = record.missing && record.missing.trajectory === input.trajectory ? record.missing : null;
      const step = missing ? missing.step : record.trajectory === input.trajectory ? record.step : null;
      const planned = step === null ? undefined : input.steps[step];
      const label = step === null ? `turn ${turn}` : stepLabel(input.steps, step);
      const base = {
        turn,
        step,
        label,
        tool: planned?.tool ?? record.tool,
        mark: planned?.target ?? null,
        screenshot: shot,
      };
      if (missing) {
        const why = describeMissing(missing);
        if (record.trajectory !== "hold")
          return { ...base, point: null, broken: true, waited: false, outcome: `NOT PLAYED: ${why}` };
        const refused = refusedWait(action, input.tools);
        return {
          ...base,
          point: null,
          broken: refused !== null,
          waited: refused === null,
          outcome: refused ? `NOT PLAYED: ${why}; ${refused}` : `${why}; waited for it (${action!.message})`,
        };
      }
      if (!action) {
        const answered = record.tool === "answer" || planned?.tool === "answer";
        return {
          ...base,
          point: null,
          broken: !answered,
          waited: false,
          outcome: answered ? "answered" : "no action was run",
        };
      }
      const bad = actions.find((a) => a.status !== "success");
      const shown = bad ?? action;
      // A click that landed off the step's mark did not do what the step says, whatever its status.
      const missed = bad ? null : missedMark(planned?.target, action.message);
      return {
        ...base,
        point: pointOf(action.args),
        broken: Boolean(bad) || missed !== null,
        waited: false,
        outcome: missed ?? `${shown.status}: ${shown.message}`,
      };
    });
}

/**
 * Why the wait the model asked for (holding for a mark not on the page yet) did not happen, or null when
 * it waited: the task's tools lack `wait` (the proposal is refused before it runs, so no action is stored),
 * or the wait itself did not succeed.
 */
function refusedWait(action: ActionRecord | undefined, tools: readonly string[] | undefined): string | null {
  if (tools && !tools.includes("wait"))
    return "the model asked to wait for it, but this task's tools lack wait, so the wait was refused (add wait to the task's tools)";
  if (!action) return "the model asked to wait for it, and no wait was run (its output was refused)";
  if (action.status !== "success") return `the model asked to wait for it: ${action.status}: ${action.message}`;
  return null;
}

/** ✓ played, … waited for its mark, ✗ broken. */
export function triedStepSymbol(s: TriedStep): string {
  return s.broken ? "✗" : s.waited ? "…" : "✓";
}

/** `step 2 of 4 (click greet) on mark greet at (512, 88) of 1000: success: click sent ...` (or `: missed its mark greet: ...`). */
export function triedStepLine(s: TriedStep): string {
  const at = s.point ? ` at (${s.point.x}, ${s.point.y}) of 1000` : "";
  const mark = s.mark && s.point ? ` on mark ${s.mark}${at}` : at;
  return `${s.label}${mark}: ${s.outcome}`;
}
