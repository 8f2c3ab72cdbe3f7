/**
 * What a comparison pairs, and that every number beside a pair reads the paired tasks only: named
 * agents nested in the compared groups are pooled (not keyed apart, which paired nothing), a task
 * one side ran alone is named and left out of the deltas and the cost gate, and a comparison with
 * nothing paired says so instead of printing a test's result.
 */
import { describe, expect, it } from "vitest";
import { endOfRunSplit } from "../../../src/cli/run/run-output.js";
import { compareGroups, groupTrialsBy } from "../../../src/report/compare.js";
import { judgeRegression } from "../../../src/report/regression.js";
import { compareText } from "../../../src/report/tables.js";
import { compareMarkdown } from "../../../src/report/markdown.js";
import type { Store } from "../../../src/store/store.js";
import { withTempStore } from "../store/fixtures.js";
import type { TrialMode } from "../../../src/vocabulary.js";
import { seedRun, type SeedTrial } from "./seed.js";

let store: Store;
withTempStore((t) => ({ store } = t));

const PLAIN = { color: false } as const;

describe("named agents sharing a mode", () => {
  function run() {
    const id = seedRun(store, {
      model: "reference",
      startedAt: "2025-06-01T00:00:00.000Z",
      trials: ["a", "b"].flatMap((task) => [
        { task, agent: "holo", verdict: "passed" as const },
        { task, mode: "tools" as const, agent: "claude-single", verdict: "passed" as const },
        {
          task,
          mode: "tools" as const,
          agent: "claude-toolset",
          verdict: task === "a" ? ("failed" as const) : ("passed" as const),
        },
      ]),
    });
    return store.trials(id);
  }

  it("--by mode pools them per task, so the modes pair", () => {
    const c = compareGroups(groupTrialsBy(run(), "mode"), "mode");
    expect(c.tasks.map((t) => t.key)).toEqual(["a", "b"]);
    expect(c.paired[0]!.tasks).toBe(2);
    expect(c.tasks[0]!.cells[1]).toMatchObject({ passes: 1, n: 2 });
  });

  it("the end of a run splits them by agent, each its own row", () => {
    const trials = run();
    expect(endOfRunSplit(trials)).toEqual({
      by: "agent",
      heading: "by agent (agents sharing a mode are rows of their own)",
    });
    const c = compareGroups(groupTrialsBy(trials, endOfRunSplit(trials)!.by), "agent");
    expect(c.groups.map((g) => g.label)).toEqual([
      "holo (structured)",
      "claude-single (tools)",
      "claude-toolset (tools)",
    ]);
    expect(c.paired.map((p) => [p.candidate, p.tasks, p.flippedToFail])).toEqual([
      ["claude-single (tools)", 2, []],
      ["claude-toolset (tools)", 2, ["a"]],
    ]);
  });
});

describe("the end of a run's heading", () => {
  const t = (mode: TrialMode, agentLabel = `m/${mode}`) => ({ mode, model: "m", agentLabel });
  it("names the modes it compares", () => {
    expect(endOfRunSplit([t("structured")])).toBeNull();
    expect(endOfRunSplit([t("structured"), t("tools")])?.heading).toBe("structured outputs vs function calling");
    expect(endOfRunSplit([t("external", "give-up"), t("structured")])?.heading).toBe(
      "by mode (structured outputs, external agents)",
    );
    expect(endOfRunSplit([t("ui-tars"), t("structured"), t("anthropic-computer")])?.heading).toBe(
      "by mode (structured outputs, anthropic-computer, ui-tars)",
    );
  });
  it("unnamed agents of several models stay by mode (the model keys their rows)", () => {
    expect(endOfRunSplit([t("structured"), t("tools"), { mode: "tools", model: "n", agentLabel: "n/tools" }])?.by).toBe(
      "mode",
    );
  });
});

/** Two runs of the reference model, a day apart, compared run against run. */
function twoRuns(base: SeedTrial[], candidate: SeedTrial[]) {
  const seeded = [base, candidate].map((trials, day) =>
    seedRun(store, { model: "reference", startedAt: `2025-06-0${day + 1}T00:00:00.000Z`, trials }),
  );
  return compareGroups(
    seeded.map((id, i) => ({ label: ["base", "cand"][i]!, runIds: [id], trials: store.trials(id) })),
    "run",
  );
}

describe("a task one side ran alone", () => {
  // The candidate ran one more task, a cheap one: over all its trials it would look cheaper.
  const comparison = () =>
    twoRuns(
      [
        { task: "a", verdict: "passed", costUsd: 0.1 },
        { task: "b", verdict: "passed", costUsd: 0.1 },
      ],
      [
        { task: "a", verdict: "passed", costUsd: 0.12 },
        { task: "b", verdict: "passed", costUsd: 0.12 },
        { task: "cheap", verdict: "passed", costUsd: 0.01 },
      ],
    );

  it("is named, and the deltas and the cost gate read the paired tasks only", () => {
    const c = comparison();
    const p = c.paired[0]!;
    expect(p.unpaired).toEqual([{ key: "cheap", side: "candidate" }]);
    expect(p.deltas.meanCostPct).toBeCloseTo(20, 6);
    expect(p.costPerSuccess).toEqual({ base: 0.1, candidate: 0.12 });
    // Over all trials the candidate's cost per success is lower (0.25 / 3): the gate would pass it.
    expect(c.groups[1]!.summary.costPerSuccess).toBeCloseTo(0.25 / 3, 6);
    const v = judgeRegression(p, p.costPerSuccess, { maxCostIncreasePct: 10 });
    expect(v.regressed).toBe(true);
    expect(v.reasons[0]).toMatch(/^cost per success rose 20\.0% \(limit 10%\)/);
    expect(v.notes).toContain(
      "not judged, run on one side only: cheap (cand only): not in the pass rate, test or deltas, which read the paired tasks",
    );
    expect(compareText(c, PLAIN)).toContain("unpaired    cheap (cand only)");
    expect(compareMarkdown(c)).toContain("- unpaired: cheap (cand only)");
  });

  it("with nothing paired, no test result is printed", () => {
    const c = twoRuns([{ task: "a", verdict: "passed" }], [{ task: "b", verdict: "failed" }]);
    const text = compareText(c, PLAIN);
    expect(text).toContain("paired      nothing to compare: no task has passed or failed trials on both sides");
    expect(text).not.toContain("McNemar");
    expect(c.paired[0]!.deltas.meanCostPct).toBeNull();
  });
});

describe("the comparison's two tables", () => {
  it("the Markdown table has the terminal table's columns, in its order", () => {
    const c = twoRuns(
      [{ task: "a", verdict: "passed" }],
      [{ task: "a", verdict: "failed", stopReason: "cancelled", claimed: true }],
    );
    const terminal = compareText(c, PLAIN)
      .split("\n")
      .find((l) => l.startsWith("│ task"))!
      .split("│")
      .map((cell) => cell.trim())
      .filter(Boolean);
    const markdown = compareMarkdown(c)
      .split("\n")
      .find((l) => l.startsWith("| task"))!
      .split("|")
      .map((cell) => cell.trim())
      .filter(Boolean);
    expect(markdown).toEqual(terminal);
  });
});
