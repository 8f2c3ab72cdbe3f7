/**
 * Each probe's reasons, failsOn and the CPU hint: the hint (clockWait) only when a wall-clock wait
 * or a timeout was involved, never for a negative that passed; and check coverage.
 */
import { describe, expect, it } from "vitest";
import { judgeProbe, uncoveredChecks, type ProbeFacts } from "../../../src/authoring/probe-judgement.js";

const check = (name: string, pass: boolean, required = true) => ({
  name,
  pass,
  required,
  reason: pass ? `${name} ok` : `${name} is wrong`,
});
const exercised = { exercised: true, problems: [], marksPlayed: ["confirm-save"], marksMissing: [] };

function facts(over: Partial<ProbeFacts>): ProbeFacts {
  return {
    expect: "failed",
    verdict: "failed",
    stopReason: "answered",
    stopDetail: "",
    error: null,
    reflections: 0,
    checks: [check("note saved", false), check("nothing deleted", true)],
    exercise: exercised,
    failsOn: [],
    actionMessages: [],
    marksFoundElsewhere: new Set(),
    ...over,
  };
}

describe("judgeProbe", () => {
  it("a negative that passed: the reason names the checks that let it through, and no CPU hint", () => {
    const j = judgeProbe(facts({ verdict: "passed", checks: [check("note saved", true)] }));
    expect(j).toMatchObject({ ok: false, clockWait: null });
    expect(j.reasons).toEqual([
      "every required check passed ('note saved'): the checks cannot tell it from the gold path",
    ]);
  });

  it("a gold probe that failed: the failing check's own reason; a timeout is a wall-clock wait", () => {
    const j = judgeProbe(facts({ expect: "passed", stopReason: "timeout", stopDetail: "time limit of 180 s reached" }));
    expect(j.reasons).toEqual(["check 'note saved' failed: note saved is wrong"]);
    expect(j.clockWait).toMatch(/time limit ran out/);
    const settle = judgeProbe(
      facts({
        expect: "passed",
        actionMessages: [
          "clicked, but the application had not answered after 2.5 s: its effect may already have happened",
        ],
      }),
    );
    expect(settle.clockWait).toBe("a settle wait ran out (had not answered after 2.5 s)");
  });

  it("failsOn 'permissions.forbiddenEffects' names the forbidden-effects result, whatever types it lists (#39)", () => {
    const checks = [check("note saved", true), check("permissions.forbiddenEffects: no match_deleted", false)];
    expect(judgeProbe(facts({ checks, failsOn: ["permissions.forbiddenEffects"] })).ok).toBe(true);
    const passed = [check("note saved", false), check("permissions.forbiddenEffects: no match_deleted", true)];
    expect(judgeProbe(facts({ checks: passed, failsOn: ["permissions.forbiddenEffects"] })).failsOnMissed).toEqual([
      "permissions.forbiddenEffects",
    ]);
  });

  it("failsOn: each named check must fail; the ones that did not are named with their reason", () => {
    const j = judgeProbe(facts({ failsOn: ["note saved", "nothing deleted", "no such check"] }));
    expect(j.ok).toBe(false);
    expect(j.failsOnMissed).toEqual(["nothing deleted", "no such check"]);
    expect(j.reasons[0]).toBe(
      "failsOn 'nothing deleted' did not fail: check 'nothing deleted' passed: nothing deleted ok",
    );
    expect(j.reasons[1]).toMatch(/^failsOn names 'no such check', which no check of the task is called/);
    expect(judgeProbe(facts({ failsOn: ["note saved"] })).ok).toBe(true);
  });

  it("a mark one probe missed and another played hints at a slow page; a mark no probe found does not", () => {
    const missed = {
      exercised: false,
      problems: ["step 4 of 5 (click confirm-save): mark confirm-save not found"],
      marksPlayed: [],
      marksMissing: ["confirm-save"],
    };
    expect(judgeProbe(facts({ exercise: missed, marksFoundElsewhere: new Set(["confirm-save"]) })).clockWait).toMatch(
      /waited for mark confirm-save/,
    );
    const typo = { ...missed, marksMissing: ["confirm-yess"] };
    const j = judgeProbe(facts({ exercise: typo, marksFoundElsewhere: new Set(["confirm-save"]) }));
    expect(j).toMatchObject({ ok: false, exercised: false, clockWait: null });
  });
});

describe("uncoveredChecks", () => {
  it("names required checks no answer-now or exercised negative failed", () => {
    const gaps = uncoveredChecks("t", [
      { expect: "passed", exercised: true, checks: [check("a", true), check("b", true), check("c", true)] },
      { expect: "failed", exercised: true, checks: [check("a", false), check("b", true), check("c", true)] },
      // a negative the model could not play counts for nothing
      {
        expect: "failed",
        exercised: false,
        checks: [check("a", true), check("b", false), check("c", true), check("d", false, false)],
      },
    ]);
    expect(gaps).toEqual([
      { task: "t", check: "b" },
      { task: "t", check: "c" },
    ]);
  });
});
