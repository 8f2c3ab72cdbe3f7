/** The table `umpire run` prints at its end: each row's agent under an `agent` heading (a named agent's name, or model/mode). */
import { describe, expect, it } from "vitest";
import { runSummaryTable } from "../../../src/report/run-summary.js";
import type { Store } from "../../../src/store/store.js";
import { withTempStore } from "../store/fixtures.js";
import { seedRun } from "./seed.js";

let store: Store;
withTempStore((t) => ({ store } = t));

describe("the run's summary table", () => {
  it("heads its agent column `agent`: a named agent's name is not a mode", () => {
    const run = seedRun(store, {
      model: "reference",
      startedAt: "2025-06-01T00:00:00.000Z",
      trials: [
        { task: "a", verdict: "passed", agent: "claude-toolset", mode: "anthropic-computer" },
        { task: "a", verdict: "passed" },
      ],
    });
    const [head, , first, second] = runSummaryTable(store.trials(run), { color: false }).split("\n").slice(1);
    expect(head!.split("│").map((c) => c.trim())).toContain("agent");
    expect(head).not.toMatch(/│ mode /);
    expect(first).toContain("│ claude-toolset ");
    expect(second).toContain("│ reference/structured ");
  });
});
