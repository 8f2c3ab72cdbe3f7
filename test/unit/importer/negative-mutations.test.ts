/** The gold's mutations `umpire negatives` plays: each changes one thing and says what, none repeats another or answer-now. */
import { describe, expect, it } from "vitest";
import { deriveMutations, siblingOf } from "../../../src/authoring/negative-mutations.js";
import type { Task } from "../../../src/task/schema.js";

const step = (tool: string, target?: string, args: Record<string, unknown> = {}) =>
  ({ tool, ...(target ? { target } : {}), args }) as Task["reference"][number];

describe("mutations of the gold", () => {
  it("drops the last change, stops before the save, aims at a sibling, clicks both and types a near miss", () => {
    const gold = [
      step("click", "first-toggle"),
      step("click", "name"),
      step("write", undefined, { content: "Ada", press_enter: false }),
      step("click", "save"),
      step("click", "about"),
      step("answer", undefined, { content: "Done" }),
    ];
    const mutations = deriveMutations({ reference: gold } as Task, [
      "first-toggle",
      "second-toggle",
      "save",
      "save-draft",
      "name",
    ]);
    expect(mutations.map((m) => [m.name, m.what])).toEqual([
      ["mutation-drop-step-5", "dropping step 5 (click about)"],
      ["mutation-stop-before-4", "stopping before step 4 (click save)"],
      ["mutation-sibling-4", "aiming step 4 (click save) at save-draft"],
      ["mutation-both-4", "clicking save-draft as well as save at step 4 (click save)"],
      ["mutation-near-miss-3", 'typing "Ad" instead of "Ada" at step 3'],
    ]);
    expect(mutations[1]!.steps.map((s) => s.tool)).toEqual(["click", "click", "write", "answer"]);
    expect(mutations[2]!.steps[3]).toEqual({ tool: "click", target: "save-draft", args: {} });
    // Both: the gold's click, then the sibling's, then the rest of the gold.
    expect(mutations[3]!.steps.slice(3, 6).map((s) => s.target)).toEqual(["save", "save-draft", "about"]);
    expect(mutations.every((m) => m.steps[m.steps.length - 1]!.tool === "answer")).toBe(true);
  });

  it("leaves out a mutation that only answers (answer-now) or repeats another", () => {
    const gold = [step("click", "go"), step("answer", undefined, { content: "Done" })];
    // Dropping the only click leaves an answer alone: the self-test's answer-now probe already.
    expect(deriveMutations({ reference: gold } as Task, []).map((m) => m.name)).toEqual([]);
  });

  it("finds a sibling by the shared last word, else the shared first word, else none", () => {
    expect(siblingOf("first-toggle", ["second-toggle", "first-name"])).toBe("second-toggle");
    expect(siblingOf("save", ["cancel"])).toBeNull();
  });
});
