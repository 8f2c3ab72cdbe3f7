/**
 * The gold benchmark's summary (scripts/bench/gold.ts): each self-test result of a cell counted as
 * passed, failed (a gold trial the checks failed: the aim is none) or an error by its cause; the lines
 * name every failed gold trial with its reasons and every error cause with its count, and the
 * headline row judges the aim.
 */
import { describe, expect, it } from "vitest";
import { GOLD_PROJECT_NAMES } from "../../scripts/bench/args.js";
import { GOLD_PROJECTS, goldCell, goldLines, type GoldBench } from "../../scripts/bench/gold.js";
import { goldRow, headlineTable } from "../../scripts/bench/summary.js";
import type { ProbeResult } from "../../src/authoring/probes.js";

function result(verdict: string, over: Partial<ProbeResult> = {}): ProbeResult {
  return {
    task: "add-todo",
    protocol: "structured",
    probe: {
      name: "gold/structured",
      model: "reference",
      mode: "structured",
      expect: "passed",
      trajectory: "reference",
    },
    trialId: `t-${verdict}`,
    verdict,
    stopReason: verdict === "error" ? "environment_error" : "answered",
    stopLine: "",
    reflections: 0,
    exercised: true,
    failedChecks: [],
    reasons: [],
    clockWait: null,
    ok: verdict === "passed",
    ...over,
  };
}

const where = { project: "todomvc", concurrency: 2, load: "loaded" as const, wallMs: 41_000, coresBusy: 2 };

describe("the gold benchmark", () => {
  it("--gold-projects knows exactly the projects it plays, the settling example among them", () => {
    expect(GOLD_PROJECTS.map((p) => p.name)).toEqual([...GOLD_PROJECT_NAMES]);
    expect(GOLD_PROJECTS).toContainEqual({ name: "settling", dir: "examples/settling", tasks: "tasks" });
  });

  it("counts a cell's trials as passed, failed and errors by cause", () => {
    const cell = goldCell(where, [
      result("passed"),
      result("failed", { reasons: ["check 'the todo is listed' failed: no item"] }),
      result("error", { reasons: ["error: page.goto: Timeout 15000ms exceeded."] }),
      result("error", { trialId: "t-e2", reasons: ["error: page.goto: Timeout 15000ms exceeded."] }),
    ]);
    expect(cell).toMatchObject({ trials: 4, passed: 1, errors: { "error: page.goto: Timeout 15000ms exceeded.": 2 } });
    expect(cell.failed).toEqual([
      { task: "add-todo", trialId: "t-failed", reasons: ["check 'the todo is listed' failed: no item"] },
    ]);
  });

  it("names every failed gold trial and error cause, and judges the aim of none failed", () => {
    const bad: GoldBench = {
      repeats: 1,
      cells: [
        goldCell(where, [result("passed"), result("failed", { reasons: ["stopped timeout"] })]),
        goldCell({ ...where, load: "quiet" }, [result("error", { reasons: ["error: capture hung"] })]),
      ],
    };
    expect(goldLines(bad)).toEqual([
      "gold (1 repeat of every gold trajectory per cell): 3 trials, 1 failed (aim 0: NOT met), 1 error",
      "  todomvc c2 loaded: 1/2 passed, 1 failed, 0 error (41.0 s, 2.0 cores busy)",
      "  todomvc c2 quiet: 0/1 passed, 0 failed, 1 error (41.0 s, 2.0 cores busy)",
      "  FAILED add-todo (todomvc c2 loaded, t-failed): stopped timeout",
      "  error x1: error: capture hung",
    ]);
    expect(goldRow(bad)).toEqual([
      "Gold trials that failed (c1/2/4, quiet + loaded)",
      "1 of 3",
      "",
      "",
      "0",
      "NO",
      "1 error trials",
    ]);
    const good: GoldBench = { repeats: 2, cells: [goldCell(where, [result("passed"), result("passed")])] };
    expect(goldLines(good)[0]).toBe(
      "gold (2 repeats of every gold trajectory per cell): 2 trials, 0 failed (aim 0: met), 0 error",
    );
    expect(headlineTable({ gold: { status: "ok", ms: 1, machine: {} as never, result: good } })).toContain("0 of 2");
  });
});
