import { describe, expect, it } from "vitest";
import { decideTask, logEvidence, type TaskDecision } from "../../../src/report/sequential.js";
import { seededRandom } from "../../../src/report/stats.js";

/**
 * Simulated comparisons, seeded: per comparison a baseline of `baseRepeats` per task, then candidate
 * repeats added one round at a time to every still-undecided task, up to `maxRepeats` per task:
 * exactly the optional stopping `umpire run --until-decided` does.
 */
function simulate(opts: {
  base: number[];
  cand: number[];
  baseRepeats: number;
  maxRepeats: number;
  comparisons: number;
  seed: number;
}) {
  const random = seededRandom(opts.seed);
  const tasks = opts.base.length;
  let falseAlarmOrDetection = 0;
  const decided: Record<TaskDecision, number> = { worse: 0, better: 0, "no change": 0, undecided: 0 };
  for (let r = 0; r < opts.comparisons; r++) {
    const base = opts.base.map((p) => {
      let passes = 0;
      for (let i = 0; i < opts.baseRepeats; i++) if (random() < p) passes += 1;
      return { passes, n: opts.baseRepeats };
    });
    const cand = opts.cand.map(() => ({ passes: 0, n: 0 }));
    const state: TaskDecision[] = opts.cand.map(() => "undecided");
    for (let round = 0; round < opts.maxRepeats; round++) {
      for (let k = 0; k < tasks; k++) {
        if (state[k] !== "undecided") continue;
        cand[k].n += 1;
        if (random() < opts.cand[k]) cand[k].passes += 1;
        state[k] = decideTask(base[k], cand[k], { alpha: 0.05, beta: 0.2, detect: 0.3, tasks });
      }
    }
    if (state.some((s) => s === "worse" || s === "better")) falseAlarmOrDetection += 1;
    for (const s of state) decided[s] += 1;
  }
  return { rate: falseAlarmOrDetection / opts.comparisons, decided };
}

describe("the always-valid e-value", () => {
  it("is the mixture over the best common rate (values worked by hand)", () => {
    // 3/3 vs 0/3: mixture (1/4)(1/4); common rate 1/2: (1/2)^6 -> E = 64/16 = 4.
    expect(Math.exp(logEvidence({ passes: 3, n: 3 }, { passes: 0, n: 3 }))).toBeCloseTo(4, 6);
    // 1/2 vs 1/2: mixture (1/6)(1/6); common rate 1/2: 1/16 -> E = 16/36.
    expect(Math.exp(logEvidence({ passes: 1, n: 2 }, { passes: 1, n: 2 }))).toBeCloseTo(16 / 36, 6);
  });
});

describe("repeats until decided, simulated (seeded, deterministic)", () => {
  it("A/A: the family's false alarm rate stays <= alpha under optional stopping", () => {
    const tasks = [0.1, 0.3, 0.5, 0.7, 0.9];
    const aa = simulate({ base: tasks, cand: tasks, baseRepeats: 5, maxRepeats: 20, comparisons: 1000, seed: 29 });
    expect(aa.rate).toBeLessThanOrEqual(0.05);
    // With a steady, well-measured baseline (40 repeats) most unchanged tasks are decided "no change".
    const steady = [0.95, 0.05, 0.9];
    const well = simulate({ base: steady, cand: steady, baseRepeats: 40, maxRepeats: 60, comparisons: 300, seed: 7 });
    expect(well.rate).toBeLessThanOrEqual(0.05);
    expect(well.decided["no change"] / (3 * 300)).toBeGreaterThan(0.7);
  }, 300_000);

  it("A/B: power as stated in docs/reporting.md", () => {
    // A task that passed 10/10-ish (95%) and now passes 20%: decided worse within 30 repeats >= 90%.
    const drop = simulate({ base: [0.95], cand: [0.2], baseRepeats: 10, maxRepeats: 30, comparisons: 1000, seed: 3 });
    expect(drop.rate).toBeGreaterThanOrEqual(0.9);
    expect(drop.decided.better).toBe(0);
    // A stable task that now always fails, among 10 tasks (Bonferroni over 10), 5 baseline repeats: always found.
    const flip = simulate({
      base: Array(10).fill(1),
      cand: [0, ...Array(9).fill(1)],
      baseRepeats: 5,
      maxRepeats: 30,
      comparisons: 300,
      seed: 5,
    });
    expect(flip.rate).toBe(1);
    expect(flip.decided.worse).toBe(300);
    // 90% -> 30% with 10 baseline repeats: decided worse in >= 60% within 30 repeats.
    const moderate = simulate({
      base: [0.9],
      cand: [0.3],
      baseRepeats: 10,
      maxRepeats: 30,
      comparisons: 1000,
      seed: 11,
    });
    expect(moderate.rate).toBeGreaterThanOrEqual(0.6);
  }, 300_000);
});
