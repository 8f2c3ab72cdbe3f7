import { describe, expect, it } from "vitest";
import { readsFixtureLayout } from "../../../src/runtime/suite-runtime.js";

describe("readsFixtureLayout: which models make the observation wait for the page's layout report", () => {
  it("the reference model, with or without a profile, grounds on the layout report", () => {
    expect(readsFixtureLayout("reference")).toBe(true);
    expect(readsFixtureLayout("reference:latency")).toBe(true);
    expect(readsFixtureLayout("reference:negative-loop")).toBe(true);
  });

  it("any other model never reads it, so the capture does not wait for it", () => {
    expect(readsFixtureLayout("Hcompany/Holo3-35B-A3B")).toBe(false);
    expect(readsFixtureLayout("gpt-4.1")).toBe(false);
    expect(readsFixtureLayout("referenced-model")).toBe(false);
  });
});
