/** The report's pure derivations: where clicks land, which turns are highlighted, side-by-side partners. */
import { describe, expect, it } from "vitest";
import {
  clickMarks,
  landingPixel,
  markLabel,
  sideBySidePartners,
  turnHighlights,
} from "../../../src/report/html/view-model.js";
import type { ActionRecord, TrialRecord } from "../../../src/store/records.js";

const action = (tool: string, args: unknown, idx = 0): ActionRecord =>
  ({
    trialId: "t",
    attempt: 1,
    turnIdx: 1,
    idx,
    callId: `c${idx}`,
    tool,
    args,
    status: "success",
    message: "",
    executorMs: 1,
  }) as ActionRecord;

describe("click marks", () => {
  it("map [0,1000] onto the screenshot's pixels as the executor does (1000 onto the last pixel)", () => {
    expect(landingPixel(500, 1280)).toBe(640);
    expect(landingPixel(406, 800)).toBe(325);
    expect(landingPixel(1000, 1280)).toBe(1279);
    expect(landingPixel(0, 2560)).toBe(0);
  });

  it("are drawn for pointing tools with numeric coordinates only, numbered by position in the turn", () => {
    const marks = clickMarks(
      [
        action("write", { content: "x" }, 0),
        action("click", { x: 500, y: 406 }, 1),
        action("scroll", { direction: "down", amount: 3 }, 2),
        action("double_click", { x: 1000, y: "7" }, 3),
      ],
      1280,
      800,
    );
    expect(marks).toHaveLength(1);
    expect(marks[0]).toMatchObject({ n: 2, tool: "click", px: 640, py: 324.8, pixelX: 640, pixelY: 325 });
    expect(markLabel(marks[0]!)).toBe("(500, 406) → 640, 325 px");
  });
});

describe("turn highlights", () => {
  it("mark the paused turn, the reflection turn after it, and a stuck stop", () => {
    const flags = [
      {},
      { repetition: "pause", condition: "same screen", reflection: true },
      {},
      {},
      { repetition: "stuck", condition: "again" },
    ];
    expect(turnHighlights(flags.map((f) => ({ flags: f })))).toEqual([
      null,
      { kind: "pause", condition: "same screen" },
      { kind: "reflection" },
      null,
      { kind: "stuck", condition: "again" },
    ]);
  });
});

describe("side-by-side partners", () => {
  const trial = (seq: number, agentLabel: string, repeat: number) =>
    ({ id: `r-${seq}`, seq, agentLabel, repeat }) as TrialRecord;
  it("put the same repeat in other configs first, then the own config's repeats, and cap the list", () => {
    const all = [
      trial(0, "a", 0),
      trial(1, "b", 0),
      trial(2, "a", 1),
      trial(3, "b", 1),
      trial(4, "a", 2),
      trial(5, "b", 2),
    ];
    expect(sideBySidePartners(all[2]!, all, 3)).toEqual({ partners: [all[3], all[0], all[4]], more: 2 });
  });
});
