/**
 * `umpire rejudge`'s summary of the checks that needed a live app: one line per kind and reason
 * for the whole run, not one per check and trial (issue 36).
 */
import { describe, expect, it } from "vitest";
import { liveCheckLines, type TrialRejudged } from "../../../src/cli/commands/rejudge.js";

const WHY = "a custom check's code may read the live app";
const custom = (name: string) =>
  ({ name, kind: "custom", why: WHY, kept: true }) as TrialRejudged["liveChecks"][number];
const trial = (id: string, ...names: string[]): TrialRejudged => ({
  trial: id,
  task: "api-note-bb042",
  before: "passed",
  after: "passed",
  liveChecks: names.map(custom),
});

describe("liveCheckLines", () => {
  it("says three custom checks in each of four trials in one line, naming three and counting the rest", () => {
    const names = ["note names BB-042", "note states the scores", "the claim states the result", "a fourth"];
    const lines = liveCheckLines([trial("t0", ...names), trial("t1", ...names), trial("t2", "a fourth"), trial("t3")]);
    expect(lines).toEqual([
      `needs a live app: 9 custom checks in 3 trials ("note names BB-042", "note states the scores", "the claim states the result", and 1 more): ${WHY}; kept their earlier results`,
    ]);
  });

  it("keeps kinds and reasons apart, and says a check with no earlier result was not judged", () => {
    const page = { name: "the other scorecard", kind: "page", why: "no stored page for open /x", kept: false } as const;
    const lines = liveCheckLines([{ ...trial("t0", "one"), liveChecks: [custom("one"), page] }]);
    expect(lines).toEqual([
      `needs a live app: 1 custom check in 1 trial ("one"): ${WHY}; kept its earlier result`,
      'needs a live app: 1 page check in 1 trial ("the other scorecard"): no stored page for open /x; not judged',
    ]);
  });
});
