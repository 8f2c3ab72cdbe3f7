import { describe, expect, it } from "vitest";
import {
  clopperPearson,
  DEFAULT_DECISION,
  decideTask,
  logEvidence,
  logOneSided,
  noChangeTests,
} from "../../../src/report/sequential.js";
import {
  parseSimulationArgs,
  QUICK,
  simulateSequential,
  simulationText,
} from "../../../scripts/simulate-sequential.js";

const rule = (tasks: number) => ({ ...DEFAULT_DECISION, tasks });
const c = (passes: number, n: number) => ({ passes, n });

describe("the always-valid e-values (values worked by hand)", () => {
  it("'differs' is the mixture (1/4 never, 1/4 always, 1/2 uniform) over the best common rate", () => {
    // 3/3 vs 0/3: each side 1/4 + (1/2)(1/4) = 3/8; common rate 1/2: (1/2)^6 -> E = (9/64) 64 = 9.
    expect(Math.exp(logEvidence(c(3, 3), c(0, 3)))).toBeCloseTo(9, 6);
    // 1/2 vs 1/2: each side (1/2) B(2, 2) = 1/12; common rate 1/2: 1/16 -> E = 16/144.
    expect(Math.exp(logEvidence(c(1, 2), c(1, 2)))).toBeCloseTo(16 / 144, 6);
  });

  it("a one-sided composite null takes its supremum over the whole region, not its edge", () => {
    // 0/8 against "rate <= 0.7": the best rate in the region is the MLE 0, so E = mixture / 1 < 1.
    expect(logOneSided(c(0, 8), "below", 0.7)).toBeLessThan(0);
    // 8/8 against "rate <= 0.7": the region's best is its edge 0.7: E = (1/4 + 1/18) / 0.7^8.
    expect(Math.exp(logOneSided(c(8, 8), "below", 0.7))).toBeCloseTo((1 / 4 + 1 / 18) / 0.7 ** 8, 6);
    // An empty region is rejected outright.
    expect(logOneSided(c(0, 1), "above", 1.01)).toBe(Number.POSITIVE_INFINITY);
  });

  it("bounds the fixed baseline with exact one-sided Clopper-Pearson bounds (checked against scipy)", () => {
    // scipy.stats.beta.ppf(0.9, 4, 3) and beta.ppf(0.1, 3, 4).
    expect(clopperPearson(c(3, 6), "upper", 0.1)).toBeCloseTo(0.7990911211430956, 9);
    expect(clopperPearson(c(3, 6), "lower", 0.1)).toBeCloseTo(0.2009088788569045, 9);
    expect(clopperPearson(c(6, 6), "lower", 0.1)).toBeCloseTo(0.1 ** (1 / 6), 9);
    expect(clopperPearson(c(6, 6), "upper", 0.1)).toBe(1);
  });
});

describe("deciding a task", () => {
  it("6/6 -> 0/8 is decided worse and is never called no change, at any number of repeats", () => {
    expect(decideTask(c(6, 6), c(0, 8), rule(1))).toBe("worse");
    expect(decideTask(c(6, 6), c(0, 8), rule(17))).toBe("worse");
    expect(noChangeTests(c(6, 6), c(0, 8), rule(1)).noDrop).toBe(false);
    for (const tasks of [1, 2, 17, 50])
      for (let n = 1; n <= 40; n++) expect(decideTask(c(6, 6), c(0, n), rule(tasks))).not.toBe("no change");
  });

  it("the mirror, 0/6 -> 8/8, is decided better and is never called no change", () => {
    expect(decideTask(c(0, 6), c(8, 8), rule(1))).toBe("better");
    expect(decideTask(c(0, 6), c(8, 8), rule(17))).toBe("better");
    expect(noChangeTests(c(0, 6), c(8, 8), rule(1)).noRise).toBe(false);
    for (const tasks of [1, 2, 17, 50])
      for (let n = 1; n <= 40; n++) expect(decideTask(c(0, 6), c(n, n), rule(tasks))).not.toBe("no change");
  });

  it("an unchanged task of a 6-repeat baseline becomes decidable; a 2-repeat one is said to be undecidable", () => {
    // 6/6: the baseline's share of beta (0.7^6) rules out a 30-point rise alone; 11 passing
    // repeats rule out a 30-point fall at 1 / (0.2 - 0.118).
    expect(decideTask(c(6, 6), c(10, 10), rule(1))).toBe("undecided");
    expect(decideTask(c(6, 6), c(11, 11), rule(1))).toBe("no change");
    expect(decideTask(c(0, 6), c(0, 11), rule(1))).toBe("no change");
    // 2/2 can come from a 70% task with chance 0.49: no run of passing repeats can decide it.
    expect(decideTask(c(2, 2), c(2, 2), rule(1))).toBe("undecided");
    expect(decideTask(c(2, 2), c(3, 3), rule(1))).toBe("undecidable");
    // Flipped every repeat: not "undecidable", it will be decided worse.
    expect(decideTask(c(2, 2), c(0, 3), rule(1))).toBe("undecided");
  });

  it("the decisions exclude each other: 'no change' only where the rates seen differ by less than d", () => {
    for (const nb of [2, 6, 20])
      for (let sb = 0; sb <= nb; sb++)
        for (const nc of [1, 5, 12, 40])
          for (let sc = 0; sc <= nc; sc++) {
            const d = decideTask(c(sb, nb), c(sc, nc), rule(5));
            if (d === "no change") {
              expect(Math.abs(sc / nc - sb / nb)).toBeLessThan(DEFAULT_DECISION.detect);
              expect(logEvidence(c(sb, nb), c(sc, nc))).toBeLessThan(Math.log(5 / DEFAULT_DECISION.alpha));
            }
            if (d === "worse") expect(sc / nc).toBeLessThan(sb / nb);
            if (d === "better") expect(sc / nc).toBeGreaterThan(sb / nb);
          }
  });
});

describe("npm run simulate (scripts/simulate-sequential.ts), seeded", () => {
  it("holds alpha and beta on a small count of the grid, through the CLI's decision code", () => {
    const result = simulateSequential({ ...QUICK, perCell: 2, seed: 3 });
    expect(result.comparisons).toBe(2 * 216); // 5 truths x 6 baselines x 4 sizes x 2 agents, less noisy at 100 points
    expect(result.falseAlarms / result.comparisons).toBeLessThanOrEqual(DEFAULT_DECISION.alpha);
    for (const [move, tally] of result.byMove) {
      expect(tally.wrongWay).toBe(0);
      if (move >= DEFAULT_DECISION.detect)
        expect(tally.decided["no change"] / tally.tasks).toBeLessThanOrEqual(DEFAULT_DECISION.beta);
    }
    // A 100-point move is found; an unchanged deterministic task with a 6+ repeat baseline is decided.
    const flip = result.byMove.get(1)!;
    expect((flip.decided.worse + flip.decided.better) / flip.tasks).toBeGreaterThan(0.9);
    const det = result.unchanged.get("deterministic, 6")!;
    expect(det.decided["no change"] / det.tasks).toBeGreaterThan(0.9);
    expect(result.unchanged.get("deterministic, 2")!.decided.undecidable).toBe(
      result.unchanged.get("deterministic, 2")!.tasks,
    );
    const { text, ok } = simulationText(result);
    expect(ok).toBe(true);
    expect(text).toMatch(/family-wise false alarm rate: \d+\.\d% .* PASS/);
    expect(text).toMatch(/moved 30 points, called "no change": .* PASS/);
    // Same seed, same figures.
    expect(simulationText(simulateSequential({ ...QUICK, perCell: 2, seed: 3 })).text).toBe(text);
  }, 120_000);

  it("reads its arguments", () => {
    expect(parseSimulationArgs(["--quick", "--seed", "9"])).toEqual({ ...QUICK, seed: 9 });
    expect(parseSimulationArgs(["--per-cell", "10", "--max-repeats", "20"])).toMatchObject({
      perCell: 10,
      maxRepeats: 20,
    });
    expect(() => parseSimulationArgs(["--per-cell", "0"])).toThrow(/usage: npm run simulate/);
    expect(() => parseSimulationArgs(["--bogus"])).toThrow(/usage/);
  });
});
