import { describe, expect, it } from "vitest";
import {
  detectableDrop,
  minimumDetectableDrop,
  noiseDiscordance,
  normalCdf,
  normalQuantile,
  pairsNeeded,
} from "../../../src/report/power.js";
import { howSure } from "../../../src/report/how-sure.js";
import { mcnemarExact, seededRandom } from "../../../src/report/stats.js";

// Reference values were computed independently in Python 3 with statistics.NormalDist from Connor's
// formula (Biometrics 43:207-211, 1987), N = (z_{1-a/2} sqrt(psi) + z_{1-b} sqrt(psi - d^2))^2 / d^2,
// with psi = noise + d; the inverse by bisection on that N.
describe("normal distribution", () => {
  it("matches the standard table", () => {
    expect(normalQuantile(0.975)).toBeCloseTo(1.959963985, 8);
    expect(normalQuantile(0.8)).toBeCloseTo(0.841621234, 8);
    expect(normalQuantile(0.005)).toBeCloseTo(-2.575829304, 7);
    expect(normalCdf(1)).toBeCloseTo(0.8413447461, 6);
    expect(normalCdf(-2.5)).toBeCloseTo(0.0062096653, 6);
  });
});

describe("Connor's paired sample size", () => {
  it("gives the pairs a drop needs at 80% power, alpha 0.05", () => {
    expect(pairsNeeded(0.1, { noise: 0.2 })).toBeCloseTo(233.0945382, 4);
    expect(pairsNeeded(0.1, { noise: 0 })).toBeCloseTo(76.0874845, 4);
    expect(pairsNeeded(0.2, { noise: 0.3 })).toBeCloseTo(95.7187426, 4);
    expect(pairsNeeded(0.05, { noise: 0.1 })).toBeCloseTo(468.5679795, 3);
  });
  it("inverts to the minimum detectable drop", () => {
    expect(minimumDetectableDrop(100, { noise: 0.2 })).toBeCloseTo(0.1679439133, 6);
    expect(minimumDetectableDrop(30, { noise: 0.25 })).toBeCloseTo(0.3947817182, 6);
    expect(minimumDetectableDrop(400, { noise: 0.1 })).toBeCloseTo(0.0549840466, 6);
    expect(minimumDetectableDrop(3, { noise: 0.5 })).toBeNull();
  });
  it("detects the drop it names with about 80% power (simulated exact McNemar, seeded)", () => {
    const pairs = 400;
    const noise = 0.1;
    const drop = minimumDetectableDrop(pairs, { noise })!;
    const random = seededRandom(29);
    let rejected = 0;
    const runs = 2000;
    for (let r = 0; r < runs; r++) {
      let b = 0;
      let c = 0;
      for (let i = 0; i < pairs; i++) {
        const u = random();
        if (u < noise / 2 + drop)
          b += 1; // passed only in the base
        else if (u < noise + drop) c += 1; // passed only in the candidate
      }
      if (b > c && mcnemarExact(b, c) < 0.05) rejected += 1;
    }
    // The exact test is slightly conservative against the normal approximation: 0.74..0.84.
    expect(rejected / runs).toBeGreaterThan(0.74);
    expect(rejected / runs).toBeLessThan(0.84);
  });
});

describe("noise from stored repeats", () => {
  it("pools the unbiased within-task variance, doubled", () => {
    // 2/4: 2*2/(4*3) = 1/3; 3/3: 0; weighted by n: (4/3 + 0) / 7, doubled.
    expect(
      noiseDiscordance([
        { passes: 2, n: 4 },
        { passes: 3, n: 3 },
      ]),
    ).toBeCloseTo((2 * (4 / 3)) / 7, 12);
    expect(noiseDiscordance([{ passes: 1, n: 1 }])).toBeNull();
  });
  it("falls back on the two-way discordant pairs with one repeat per task", () => {
    const d = detectableDrop(100, [{ passes: 1, n: 1 }], { b: 15, c: 5 })!;
    expect(d.noise).toBeCloseTo(0.1, 12);
    expect(d.noiseFrom).toBe("discordant pairs");
  });
});

describe("how sure", () => {
  it("never says not significant without what could have been detected", () => {
    const detectable = detectableDrop(100, [{ passes: 8, n: 10 }], { b: 3, c: 2 });
    const line = howSure({ detectable, pValue: 1 })!;
    expect(line).toMatch(/^not significant: this comparison could only have detected drops of \d+\.\d points or more/);
    expect(line).toContain("80% power, alpha 0.05, 100 paired repeats");
    expect(howSure({ detectable, pValue: 0.01 })).toMatch(/^this design detects drops of/);
    expect(howSure({ detectable: detectableDrop(2, [], { b: 0, c: 0 }), pValue: 1 })).toMatch(
      /too few paired repeats to detect any drop/,
    );
  });
});
