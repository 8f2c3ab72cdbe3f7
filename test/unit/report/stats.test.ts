import { describe, expect, it } from "vitest";
import {
  bootstrapPassRateDiff,
  mcnemarExact,
  mean,
  pairRepeats,
  passAtK,
  passHatK,
  percentile,
  seededRandom,
  wilson,
} from "../../../src/report/stats.js";

describe("wilson", () => {
  it("matches the published 95% intervals", () => {
    const i = wilson(8, 10);
    expect(i.low).toBeCloseTo(0.4902, 4);
    expect(i.high).toBeCloseTo(0.9433, 4);
    expect(wilson(0, 10).low).toBe(0);
    expect(wilson(0, 10).high).toBeCloseTo(0.2775, 4);
    expect(wilson(10, 10).low).toBeCloseTo(0.7225, 4);
    expect(wilson(10, 10).high).toBe(1);
    const big = wilson(45, 50);
    expect(big.low).toBeCloseTo(0.7864, 4);
    expect(big.high).toBeCloseTo(0.9565, 4);
  });
  it("knows nothing without trials", () => {
    expect(wilson(0, 0)).toEqual({ low: 0, high: 1 });
  });
});

describe("pass@k and pass^k", () => {
  it("pass@k is the unbiased estimator 1 - C(n-c,k)/C(n,k)", () => {
    expect(passAtK(10, 3, 1)).toBeCloseTo(0.3, 12);
    expect(passAtK(5, 2, 2)).toBeCloseTo(0.7, 12); // 1 - C(3,2)/C(5,2) = 1 - 3/10
    expect(passAtK(5, 0, 3)).toBe(0);
    expect(passAtK(5, 3, 3)).toBe(1); // only 2 failures: any 3 draws include a pass
    expect(passAtK(200, 10, 10)).toBeCloseTo(0.40854786608141713, 12);
    expect(passAtK(3, 1, 4)).toBeNull();
  });
  it("pass^k is C(c,k)/C(n,k)", () => {
    expect(passHatK(5, 2, 2)).toBeCloseTo(0.1, 12);
    expect(passHatK(10, 7, 3)).toBeCloseTo(35 / 120, 12);
    expect(passHatK(5, 5, 5)).toBe(1);
    expect(passHatK(5, 2, 3)).toBe(0);
    expect(passHatK(2, 2, 3)).toBeNull();
  });
  it("k = 1 gives the pass rate for both", () => {
    expect(passAtK(7, 4, 1)).toBeCloseTo(4 / 7, 12);
    expect(passHatK(7, 4, 1)).toBeCloseTo(4 / 7, 12);
  });
  it("rejects impossible counts", () => {
    expect(() => passAtK(3, 4, 1)).toThrow(RangeError);
    expect(() => passHatK(3, 1, 0)).toThrow(RangeError);
  });
});

describe("exact McNemar", () => {
  it("is the two-sided sign test on discordant pairs", () => {
    expect(mcnemarExact(0, 6)).toBeCloseTo(0.03125, 15);
    expect(mcnemarExact(6, 0)).toBeCloseTo(0.03125, 15);
    expect(mcnemarExact(1, 9)).toBeCloseTo(0.021484375, 15);
    expect(mcnemarExact(2, 5)).toBeCloseTo(0.453125, 15);
    expect(mcnemarExact(3, 3)).toBe(1);
    expect(mcnemarExact(0, 0)).toBe(1);
    expect(mcnemarExact(0, 5)).toBeCloseTo(0.0625, 15);
  });
  it("stays accurate for many pairs (computed in logs)", () => {
    expect(mcnemarExact(100, 150)).toBeCloseTo(0.001883300935076157, 12);
    expect(mcnemarExact(40, 60)).toBeCloseTo(0.05688793364098079, 12);
  });
});

describe("pairing repeats for McNemar", () => {
  const T = true;
  const F = false;
  it("counts a task whose repeats all gave one result on each side once (a deterministic agent's copies)", () => {
    // Six copies of one flip are one discordant pair: p 1, not the 0.03 six independent flips give.
    expect(pairRepeats([T, T, T, T, T, T], [F, F, F, F, F, F])).toEqual({ pairs: 1, b: 1, c: 0, once: true });
    expect(pairRepeats([T, T], [T, T])).toEqual({ pairs: 1, b: 0, c: 0, once: true });
    expect(pairRepeats([T], [F])).toEqual({ pairs: 1, b: 1, c: 0, once: false });
  });
  it("pairs repeats in order when either side varies", () => {
    expect(pairRepeats([T, T, F], [F, T, T, T])).toEqual({ pairs: 3, b: 1, c: 1, once: false });
    expect(pairRepeats([T, T, T], [F, T, F])).toEqual({ pairs: 3, b: 2, c: 0, once: false });
  });
});

describe("percentile and mean", () => {
  it("interpolates between closest ranks like NumPy", () => {
    expect(percentile([4, 1, 3, 2], 50)).toBe(2.5);
    expect(
      percentile(
        Array.from({ length: 20 }, (_, i) => i + 1),
        95,
      ),
    ).toBeCloseTo(19.05, 10);
    expect(percentile([7], 95)).toBe(7);
    expect(percentile([], 50)).toBeNull();
    expect(mean([1, 2, 6])).toBe(3);
    expect(mean([])).toBeNull();
  });
});

describe("seeded bootstrap", () => {
  it("the PRNG repeats per seed and stays in [0, 1)", () => {
    const a = seededRandom(42);
    const b = seededRandom(42);
    const xs = Array.from({ length: 1000 }, () => a());
    expect(xs).toEqual(Array.from({ length: 1000 }, () => b()));
    expect(xs.every((x) => x >= 0 && x < 1)).toBe(true);
    expect(seededRandom(43)()).not.toBe(xs[0]);
    expect(mean(xs)!).toBeGreaterThan(0.45);
    expect(mean(xs)!).toBeLessThan(0.55);
  });
  it("gives the same interval for the same seed, containing the observed difference", () => {
    const tasks = [
      { basePasses: 3, baseN: 3, candidatePasses: 1, candidateN: 3 },
      { basePasses: 2, baseN: 3, candidatePasses: 2, candidateN: 3 },
      { basePasses: 3, baseN: 3, candidatePasses: 0, candidateN: 3 },
      { basePasses: 1, baseN: 3, candidatePasses: 2, candidateN: 3 },
      { basePasses: 3, baseN: 3, candidatePasses: 3, candidateN: 3 },
    ];
    const one = bootstrapPassRateDiff(tasks, { seed: 7 })!;
    expect(bootstrapPassRateDiff(tasks, { seed: 7 })).toEqual(one);
    expect(one.diff).toBeCloseTo(8 / 15 - 12 / 15, 12);
    expect(one.low).toBeLessThanOrEqual(one.diff);
    expect(one.high).toBeGreaterThanOrEqual(one.diff);
    expect(one.high).toBeLessThan(0.2);
    expect(one.low).toBeGreaterThan(-0.8);
  });
  it("collapses to the difference when every task agrees, and is null without tasks", () => {
    const same = Array.from({ length: 4 }, () => ({ basePasses: 1, baseN: 1, candidatePasses: 0, candidateN: 1 }));
    expect(bootstrapPassRateDiff(same)).toEqual({ diff: -1, low: -1, high: -1 });
    expect(bootstrapPassRateDiff([])).toBeNull();
  });
});
