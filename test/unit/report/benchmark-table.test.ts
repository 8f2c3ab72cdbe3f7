/**
 * The benchmark table of a pack run: success per environment and agent, and overall per agent,
 * each with its 95% Wilson interval; trials not judged (error, cancelled) are said, not failed.
 */
import { describe, expect, it } from "vitest";
import { benchmarkTable } from "../../../src/report/benchmark-table.js";

const t = (taskId: string, agentLabel: string, verdict: string | null) => ({ taskId, agentLabel, verdict }) as never;

describe("benchmarkTable", () => {
  it("rates each environment and all of them per agent, leaving unjudged trials out of the rate", () => {
    const lines = benchmarkTable(
      [
        t("miniwob-click-button", "a", "passed"),
        t("miniwob-click-button", "a", "failed"),
        t("miniwob-enter-text", "a", "passed"),
        t("miniwob-enter-text", "a", "error"),
      ],
      "miniwob-",
    );
    expect(lines[0]).toMatch(/^environment\s+agent\s+success \(95% CI\)$/);
    expect(lines[1]).toMatch(/^click-button\s+a\s+1\/2 50% \(9–91%\)$/);
    expect(lines[2]).toMatch(/^enter-text\s+a\s+1\/1 100% \(21–100%\) \+1 not judged$/);
    expect(lines[3]).toMatch(/^all environments\s+a\s+2\/3 67% \(21–94%\) \+1 not judged$/);
  });
});
