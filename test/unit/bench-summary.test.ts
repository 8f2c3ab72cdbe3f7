import { describe, expect, it } from "vitest";
import { headlineTable } from "../../scripts/bench/summary.js";

describe("bench summary: a section that did not run", () => {
  it("prints skipped with its reason, and an error with its message", () => {
    const table = headlineTable({
      remote: { status: "skipped", reason: "not in --quick (ask for it: --only remote)" },
      report: { status: "error", ms: 1, error: "boom" },
    });
    expect(table).toMatch(/Suite: local browser vs 2.*skipped.*not in --quick/s);
    expect(table).toMatch(/HTML report generation.*error: boom/s);
    expect(table).not.toMatch(/not available/);
  });
});
