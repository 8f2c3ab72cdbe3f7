/**
 * Causes of a probe's outcome that lie in another probe (issue 37, item 6): carried state on a target
 * with no per-trial reset is named as such (probe X started on the state probe Y left), not as checks
 * that cannot tell; two gold trials at once are blamed on each other's state only when they were
 * played cleanly.
 */
import { describe, expect, it } from "vitest";
import {
  blameCarriedState,
  blameInterference,
  INTERFERENCE,
  type ProbeRun,
} from "../../../src/authoring/probe-causes.js";
import type { ProbeResult } from "../../../src/authoring/probes.js";
import type { ProjectTargets } from "../../../src/config/project.js";
import { TargetDecl } from "../../../src/task/target-decl.js";

type Result = ProbeResult & ProbeRun;

const config = (decl: Record<string, unknown>): ProjectTargets => ({
  file: "umpire.config.yaml",
  dir: ".",
  targets: { reading: TargetDecl.parse({ baseUrl: "http://127.0.0.1:3000", ...decl }) },
});

function result(name: string, over: Partial<Result> = {}): Result {
  const gold = name.startsWith("gold/");
  return {
    task: "clear-list",
    protocol: "structured",
    probe: { name, model: "reference", mode: "structured", expect: gold ? "passed" : "failed", trajectory: null },
    trialId: `t-${name}`,
    verdict: gold ? "passed" : "failed",
    stopReason: "answered",
    stopLine: "",
    reflections: 0,
    exercised: true,
    failedChecks: [],
    reasons: [],
    clockWait: null,
    ok: true,
    target: "reading",
    startedAt: null,
    endedAt: null,
    playedClean: true,
    ...over,
  };
}

const gold = result("gold/tools", { startedAt: "2026-01-01T00:00:01Z", endedAt: "2026-01-01T00:00:05Z" });
const answerNow = result("answer-now", {
  verdict: "passed",
  ok: false,
  startedAt: "2026-01-01T00:00:06Z",
  endedAt: "2026-01-01T00:00:07Z",
  reasons: ["every required check passed ('the list is empty'): the checks cannot tell it from the gold path"],
  clockWait: "a settle wait ran out (had not answered after 3.0 s)",
});

describe("carried state", () => {
  it("on a target with no reset: names the probe whose state it started on, instead of the checks", () => {
    const [, judged] = blameCarriedState([gold, answerNow], config({}));
    expect(judged!.reasons).toEqual([
      expect.stringMatching(
        /^the target reading has no per-trial reset: probe answer-now of clear-list started on the state probe gold\/tools of clear-list left; declare reset: on target reading/,
      ),
    ]);
    expect(judged!.clockWait).toBeNull();
  });

  it("says nothing of carried state with a reset, a per-trial namespace, or no probe before it", () => {
    expect(blameCarriedState([gold, answerNow], config({ reset: { kind: "http", url: "/reset" } }))[1]).toBe(answerNow);
    const namespaced = config({ context: { headers: { "x-namespace": "${TRIAL_ID}" } } });
    expect(blameCarriedState([gold, answerNow], namespaced)[1]).toBe(answerNow);
    expect(blameCarriedState([answerNow], config({}))[0]).toBe(answerNow);
    expect(blameCarriedState([gold, answerNow], undefined)[1]).toBe(answerNow);
  });
});

describe("two gold trials at once", () => {
  const alone = result("gold/structured");
  const atOnce = (over: Partial<Result>) =>
    result("gold/at-once-1", {
      verdict: "failed",
      ok: false,
      reasons: ["check 'count' failed: 2, expected 1"],
      ...over,
    });

  it("is interference when played cleanly on a target that shares state", () => {
    const [, judged] = blameInterference([alone, atOnce({})]);
    expect(judged!.reasons).toEqual([INTERFERENCE]);
  });

  it("is not, after a missed step, a failed action or a wait that ran out", () => {
    const cases: [Partial<Result>, RegExp][] = [
      [{ exercised: false }, /not played as written/],
      [{ playedClean: false }, /one of its actions did not succeed/],
      [{ clockWait: "a settle wait ran out" }, /a wall-clock wait was involved/],
    ];
    for (const [over, why] of cases) {
      const [, judged] = blameInterference([alone, atOnce(over)]);
      expect(judged!.reasons).not.toContain(INTERFERENCE);
      expect(judged!.reasons.at(-1)).toMatch(/^it failed beside another gold trial, but not from its state: /);
      expect(judged!.reasons.at(-1)).toMatch(why);
    }
  });
});
