/**
 * Whether a probe was played as written, from the reference model's request log (which step each
 * turn played, which mark it could not find) and the stored actions (how each step's action went).
 */
import { describe, expect, it } from "vitest";
import { judgeExercise, type ProbeStep } from "../../../src/authoring/probe-exercise.js";
import type { RequestRecord } from "../../../src/sim/log.js";
import type { ActionRecord } from "../../../src/store/records.js";

const STEPS: ProbeStep[] = [
  { tool: "click", target: "search-box" },
  { tool: "click", target: "confirm-yess" },
  { tool: "answer" },
];
const TRAJECTORY = "negatives.typo";

function record(turn: number, fields: Partial<RequestRecord>): RequestRecord {
  return {
    seq: turn,
    at: "",
    method: "POST",
    path: "/v1/chat/completions",
    status: 200,
    model: "reference:negative-typo",
    profile: "gold",
    user: "t",
    mode: "structured",
    stream: false,
    taskId: "x",
    turn,
    step: null,
    trajectory: TRAJECTORY,
    outcome: "action",
    tool: "click",
    lint: [],
    serverMs: 1,
    ...fields,
  };
}

function action(turnIdx: number, status: ActionRecord["status"], message = "input sent"): ActionRecord {
  // Stored turns count from 1; the model's log counts from 0 (this helper takes the model's number).
  return {
    trialId: "t",
    attempt: 1,
    turnIdx: turnIdx + 1,
    idx: 0,
    callId: "c",
    tool: "click",
    args: {},
    status,
    message,
    executorMs: 1,
  };
}

const missing = {
  trajectory: TRAJECTORY,
  step: 1,
  tool: "click",
  mark: "confirm-yess",
  page: "/match/BB-042",
  marks: ["add-note", "confirm-save", "search-box"],
};

describe("judgeExercise", () => {
  it("a mark the model gave up on: the step, the mark, the page and the marks it had", () => {
    const records = [
      record(0, { step: 0 }),
      record(1, { trajectory: "hold", missing }),
      record(2, { trajectory: "hold", missing }),
      record(3, { trajectory: "lost", missing, tool: "answer" }),
    ];
    const result = judgeExercise({
      trajectory: TRAJECTORY,
      steps: STEPS,
      records,
      actions: [action(0, "success"), action(1, "success"), action(2, "success")],
      stopReason: "answered",
      stopDetail: "",
    });
    expect(result.exercised).toBe(false);
    expect(result.problems).toEqual([
      "step 2 of 3 (click confirm-yess): mark confirm-yess not found on /match/BB-042; the page had: add-note, confirm-save, search-box",
    ]);
    expect(result.marksMissing).toEqual(["confirm-yess"]);
  });

  it("an action rejected or failed is a step not played", () => {
    const records = [record(0, { step: 0 }), record(1, { step: 1 }), record(2, { step: 2, tool: "answer" })];
    const result = judgeExercise({
      trajectory: TRAJECTORY,
      steps: STEPS,
      records,
      actions: [action(0, "success"), action(1, "failed", "click failed: target closed")],
      stopReason: "answered",
      stopDetail: "",
    });
    expect(result.problems).toEqual([
      "step 2 of 3 (click confirm-yess): the action was failed: click failed: target closed",
    ]);
  });

  it("a trajectory the trial stopped before: the first step never played and the stop", () => {
    const records = [record(0, { step: 0 })];
    const result = judgeExercise({
      trajectory: TRAJECTORY,
      steps: STEPS,
      records,
      actions: [action(0, "success")],
      stopReason: "turn_limit",
      stopDetail: "1 turns used",
    });
    expect(result.problems).toEqual([
      "step 2 of 3 (click confirm-yess) was never played: the trial stopped first (turn_limit: 1 turns used)",
    ]);
  });

  it("played as written: every step, a hold that resolved, a repeat the repetition guard paused, a retried attempt", () => {
    const hold = { ...missing, mark: "confirm-yess" };
    const records = [
      record(0, { step: 0 }), // the first attempt (an infrastructure error), retried from turn 0
      record(0, { step: 0 }),
      record(1, { trajectory: "hold", missing: hold }),
      record(2, { step: 1 }),
      record(3, { step: 2, tool: "answer" }),
    ];
    const actions = [
      action(0, "success"),
      action(1, "success"),
      action(2, "skipped", "not run: paused: confirm-yess clicked 3 times"),
    ];
    const result = judgeExercise({
      trajectory: TRAJECTORY,
      steps: STEPS,
      records,
      actions,
      stopReason: "answered",
      stopDetail: "",
    });
    expect(result).toMatchObject({ exercised: true, problems: [] });
    expect(result.marksPlayed.sort()).toEqual(["confirm-yess", "search-box"]);
  });

  it("a loop negative the repetition guard stopped before its last step is played", () => {
    const records = [record(0, { step: 0 }), record(1, { step: 1 })];
    const result = judgeExercise({
      trajectory: TRAJECTORY,
      steps: STEPS,
      records,
      actions: [action(0, "success"), action(1, "skipped", "not run: paused: stuck")],
      stopReason: "stuck",
      stopDetail: "",
    });
    expect(result.exercised).toBe(true);
  });

  it("a click that landed off its step's mark did not play the step (the probe is not exercised)", () => {
    const steps: ProbeStep[] = [{ tool: "click", target: "name-field" }, { tool: "answer" }];
    const records = [record(0, { step: 0 }), record(1, { step: 1, tool: "answer" })];
    const missed =
      "click sent at (1080, 60) CSS px onto mark tray; it missed its mark name-field; input sent (the next screenshot shows its effect, if any)";
    const judged = judgeExercise({
      trajectory: TRAJECTORY,
      steps,
      records,
      actions: [action(0, "success", missed)],
      stopReason: "answered",
      stopDetail: "",
    });
    expect(judged.exercised).toBe(false);
    expect(judged.problems).toEqual([
      `step 1 of 2 (click name-field): the click missed its mark name-field: click sent at (1080, 60) CSS px onto mark tray; input sent (the next screenshot shows its effect, if any)`,
    ]);
    // Landed on the mark, or inside it: played.
    for (const message of [
      "click sent at (1, 2) CSS px onto mark name-field; input sent",
      "click sent at (1, 2) CSS px onto mark label (inside form, name-field); input sent",
    ]) {
      const hit = judgeExercise({
        trajectory: TRAJECTORY,
        steps,
        records,
        actions: [action(0, "success", message)],
        stopReason: "answered",
        stopDetail: "",
      });
      expect(hit.exercised, message).toBe(true);
    }
  });
});
