import { describe, expect, it } from "vitest";
import {
  FLAKY_CYCLE,
  MALFORMED_KINDS,
  MISCLICK_MAX,
  MISCLICK_MIN,
  PROFILE_NAMES,
  flakyFault,
  malformedKind,
  misclickOffset,
  profileForModel,
  referenceModelIds,
} from "../../../src/sim/profiles.js";

describe("model ids", () => {
  it("maps reference to the server default and reference:<p> to p", () => {
    expect(profileForModel("reference", "loop")).toBe("loop");
    expect(profileForModel("reference:misclick", "gold")).toBe("misclick");
  });

  it("rejects unknown ids and unknown profiles", () => {
    expect(profileForModel("holo3-1-35b-a3b", "gold")).toBeNull();
    expect(profileForModel("reference:nonsense", "gold")).toBeNull();
    expect(profileForModel(undefined, "gold")).toBeNull();
  });

  it("lists reference and one id per profile", () => {
    expect(referenceModelIds()).toEqual(["reference", ...PROFILE_NAMES.map((p) => `reference:${p}`)]);
    expect(PROFILE_NAMES).toEqual(
      expect.arrayContaining([
        "gold",
        "misclick",
        "loop",
        "recover",
        "wrong-record",
        "forget-save",
        "premature-answer",
        "answer-now",
        "refuse",
        "truncate",
        "malformed",
        "flaky-http",
        "slow",
      ]),
    );
  });
});

describe("seeded determinism", () => {
  it("gives the same misclick offset for the same seed and turn, and other offsets for other seeds", () => {
    const a = Array.from({ length: 20 }, (_, turn) => misclickOffset(7, turn));
    const b = Array.from({ length: 20 }, (_, turn) => misclickOffset(7, turn));
    const c = Array.from({ length: 20 }, (_, turn) => misclickOffset(8, turn));
    expect(a).toEqual(b);
    expect(a).not.toEqual(c);
  });

  it("offsets every click far enough to miss a small target, in both directions over a run", () => {
    const offsets = Array.from({ length: 200 }, (_, turn) => misclickOffset(3, turn));
    for (const { dx, dy } of offsets) {
      expect(Math.abs(dx)).toBeGreaterThanOrEqual(MISCLICK_MIN);
      expect(Math.abs(dx)).toBeLessThanOrEqual(MISCLICK_MAX);
      expect(Math.abs(dy)).toBeGreaterThanOrEqual(MISCLICK_MIN);
    }
    expect(offsets.some((o) => o.dx < 0)).toBe(true);
    expect(offsets.some((o) => o.dx > 0)).toBe(true);
  });

  it("walks every malformed kind in as many consecutive turns, starting where the seed says", () => {
    const kinds = Array.from({ length: MALFORMED_KINDS.length }, (_, turn) => malformedKind(0, turn));
    expect(new Set(kinds).size).toBe(MALFORMED_KINDS.length);
    expect(kinds[0]).toBe("invalid-json");
    expect(malformedKind(2, 0)).toBe(MALFORMED_KINDS[2]);
    expect(malformedKind(5, 3)).toBe(malformedKind(5, 3));
  });

  it("fails each flaky turn a bounded number of attempts, then lets the retry through", () => {
    const seen = new Set<string>();
    for (let turn = 0; turn < FLAKY_CYCLE.length; turn++) {
      const attempts = Array.from({ length: 4 }, (_, attempt) => flakyFault(0, turn, attempt));
      expect(attempts[3]).toBe("none");
      attempts.forEach((fault) => seen.add(fault));
    }
    expect(seen).toEqual(new Set(["server-error", "rate-limited", "dropped-connection", "none"]));
    expect([0, 1, 2].map((a) => flakyFault(0, 0, a))).toEqual(["server-error", "server-error", "none"]);
    expect(flakyFault(1, 0, 0)).toBe("rate-limited");
  });
});
