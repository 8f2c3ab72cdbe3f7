/**
 * Issue #38 §4: an agent can forge a pass, never a failure. A check a command agent could forge
 * (storage; file and custom outside the sandbox) cannot decide a pass, but its failure fails the
 * trial: an agent that did nothing passed beside `FAIL storage ... (advisory)` before.
 */
import { describe, expect, it } from "vitest";
import { verdictOf } from "../../../src/checks/verdict.js";
import type { CheckResult } from "../../../src/checks/types.js";
import { withoutForgeable } from "../../../src/runner/trial/untrusted-checks.js";

function check(kind: string, pass: boolean, extra: Partial<CheckResult> = {}): CheckResult {
  return {
    kind,
    name: `${kind} check`,
    required: true,
    pass,
    reason: pass ? "ok" : "wrong",
    evidence: {},
    confidence: "verified",
    ms: 0,
    ...extra,
  };
}

const sandboxed = { external: true, sandboxed: true };
const bare = { external: true, sandboxed: false };

describe("withoutForgeable", () => {
  it("a failing storage check fails the trial beside a passing effects check (it was advisory and thrown away)", () => {
    const checks = withoutForgeable([check("effects", true), check("storage", false)], sandboxed, false);
    expect(verdictOf(checks)).toBe("failed");
    const storage = checks.find((c) => c.kind === "storage")!;
    expect(storage).toMatchObject({ required: true, pass: false, confidence: "observed" });
    expect(storage.reason).toContain("its failure still fails the trial");
  });

  it("a passing storage check does not decide: reported, observed, advisory", () => {
    const checks = withoutForgeable([check("effects", true), check("storage", true)], sandboxed, false);
    expect(verdictOf(checks)).toBe("passed");
    expect(checks.find((c) => c.kind === "storage")).toMatchObject({ required: false, confidence: "observed" });
    // ...and cannot carry a pass where the app's record fails.
    expect(verdictOf(withoutForgeable([check("effects", false), check("storage", true)], sandboxed, false))).toBe(
      "failed",
    );
  });

  it("only forgeable checks, all passing: a failing guard takes their place, so nothing the agent wrote passes", () => {
    const checks = withoutForgeable([check("file", true), check("storage", true)], bare, false);
    expect(verdictOf(checks)).toBe("failed");
    expect(checks.at(-1)).toMatchObject({ kind: "guard", required: true, pass: false });
  });

  it("only forgeable checks, one failing: failed, with the check's own reason and the guard", () => {
    const checks = withoutForgeable([check("file", false), check("storage", true)], bare, false);
    expect(verdictOf(checks)).toBe("failed");
    expect(checks.find((c) => c.kind === "file")).toMatchObject({ required: true, pass: false });
    expect(checks.filter((c) => c.kind === "guard")).toHaveLength(1);
  });

  it("in the sandbox a file check decides both ways; outside it only its failure does", () => {
    expect(verdictOf(withoutForgeable([check("file", true)], sandboxed, false))).toBe("passed");
    expect(verdictOf(withoutForgeable([check("file", false)], sandboxed, false))).toBe("failed");
    expect(verdictOf(withoutForgeable([check("effects", true), check("file", false)], bare, false))).toBe("failed");
    expect(verdictOf(withoutForgeable([check("effects", true), check("file", true)], bare, false))).toBe("passed");
  });

  it("a crashed forgeable check does not turn the trial into an error (the agent could make it crash)", () => {
    const crashed = check("storage", false, { crashed: true });
    expect(verdictOf(withoutForgeable([check("effects", true), crashed], sandboxed, false))).toBe("passed");
  });

  it("umpire's own loop keeps every check as declared; a crashed command agent never passes", () => {
    expect(withoutForgeable([check("storage", true)], { external: false, sandboxed: false }, false)).toEqual([
      check("storage", true),
    ]);
    expect(verdictOf(withoutForgeable([check("effects", true)], sandboxed, true))).toBe("failed");
  });
});
