import { describe, expect, it } from "vitest";
import { explainDuration, minimumDuration } from "../../../src/report/latency.js";

describe("latency", () => {
  it("four 2 s model turns plus 4 s of operations take at least 12 s", () => {
    expect(minimumDuration([2000, 2000, 2000, 2000], [4000])).toBe(12_000);
  });
  it("explains a trial's wall time as its sequential parts plus the rest", () => {
    const e = explainDuration(14_000, { modelMs: 8000, executorMs: 3000, captureMs: 800, checkMs: 200 });
    expect(e.sequentialMs).toBe(12_000);
    expect(e.otherMs).toBe(2000);
    expect(e.consistent).toBe(true);
  });
  it("flags timings whose parts exceed the wall time (recorded wrongly)", () => {
    const e = explainDuration(10_000, { modelMs: 8000, executorMs: 4000, captureMs: 0, checkMs: 0 });
    expect(e.consistent).toBe(false);
    expect(e.otherMs).toBe(-2000);
  });
});
