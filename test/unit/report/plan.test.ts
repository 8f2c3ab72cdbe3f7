import { describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import type { Store } from "../../../src/store/store.js";
import { withTempStore } from "../store/fixtures.js";
import { fakeIO, seedRun } from "./seed.js";

let dir: string;
let db: string;
let store: Store;
withTempStore((t) => ({ dir, db, store } = t));

async function cli(argv: string[]) {
  const f = fakeIO(dir);
  const code = await main([...argv, "--db", db], f.io);
  return { code, out: f.out(), err: f.err() };
}

const TASKS = ["a", "b", "c", "d", "e", "f"];

// Reference values: Connor's formula (Biometrics 1987) computed independently in Python 3
// (statistics.NormalDist), N = (1.95996 sqrt(psi) + 0.84162 sqrt(psi - d^2))^2 / d^2, psi = noise + d.
describe("umpire plan", () => {
  it("estimates repeats per task from the baseline's variance, and the cost from its trials", async () => {
    // Every task passes 2 of 4: unbiased p(1-p) = 2*2/(4*3) = 1/3, noise 2/3. Detect 10 points:
    // N = 599.38 -> 600 pairs over 6 tasks = 100 repeats per task, 600 trials at $0.01.
    const trials = TASKS.flatMap((task) =>
      [0, 1, 2, 3].map((r) => ({ task, verdict: r < 2 ? ("passed" as const) : ("failed" as const), costUsd: 0.01 })),
    );
    const base = seedRun(store, { model: "reference", startedAt: "2025-06-01T00:00:00.000Z", trials });
    const json = JSON.parse((await cli(["plan", "--detect", "10", "--baseline", base, "--json"])).out);
    expect(json.plan).toMatchObject({
      tasks: 6,
      pairsNeeded: 600,
      repeatsPerTask: 100,
      trials: 600,
      noiseFrom: "baseline repeats",
    });
    expect(json.plan.noise).toBeCloseTo(2 / 3, 12);
    expect(json.plan.estimatedCostUsd).toBeCloseTo(6, 9);
    const text = await cli(["plan", "--detect", "10", "--baseline", base]);
    expect(text.code).toBe(0);
    expect(text.out).toContain("repeats per task  100 (--repeat 100)");
    expect(text.out).toContain("estimated cost    $6.00");
  });

  it("a steadier baseline needs fewer repeats; without one it assumes the worst case", async () => {
    // Each task passes 3 of 4 (p(1-p) unbiased 3*1/(4*3) = 1/4, noise 1/2): the worst case's figure.
    const trials = TASKS.flatMap((task) =>
      [0, 1, 2, 3].map((r) => ({ task, verdict: r < 3 ? ("passed" as const) : ("failed" as const) })),
    );
    const base = seedRun(store, { model: "reference", startedAt: "2025-06-01T00:00:00.000Z", trials });
    const steady = JSON.parse((await cli(["plan", "--detect", "10", "--baseline", base, "--json"])).out).plan;
    expect(steady.pairsNeeded).toBe(469); // N = 468.568
    expect(steady.repeatsPerTask).toBe(79);
    const blind = JSON.parse((await cli(["plan", "--detect", "10", "--tasks", "20", "--json"])).out).plan;
    expect(blind).toMatchObject({
      noise: 0.5,
      noiseFrom: "worst case",
      pairsNeeded: 469,
      repeatsPerTask: 24,
      estimatedCostUsd: null,
    });
    // Half the tasks 2/2, half 1/2 (unbiased p(1-p) of 1 in 2 is 1*1/(2*1) = 1/2): noise 2 * 0.25 = 0.5;
    // a 20-point drop needs N = 134.97 -> 135 pairs.
    const half = TASKS.flatMap((task, i) =>
      [0, 1].map((r) => ({ task, verdict: i % 2 === 0 || r === 0 ? ("passed" as const) : ("failed" as const) })),
    );
    const mixed = seedRun(store, { model: "reference", startedAt: "2025-06-02T00:00:00.000Z", trials: half });
    expect(
      JSON.parse((await cli(["plan", "--detect", "20", "--baseline", mixed, "--json"])).out).plan.pairsNeeded,
    ).toBe(135);
  });

  it("says that a baseline the same every repeat is no case for more repeats", async () => {
    // Every task 3/3 or 0/3: noise 0, so Connor's formula asks for few pairs; but if the agent is
    // deterministic those repeats are copies, and compare counts each task once.
    const trials = TASKS.flatMap((task, i) =>
      [0, 1, 2].map(() => ({ task, verdict: i < 4 ? ("passed" as const) : ("failed" as const) })),
    );
    const base = seedRun(store, { model: "reference", startedAt: "2025-06-01T00:00:00.000Z", trials });
    expect(JSON.parse((await cli(["plan", "--detect", "30", "--baseline", base, "--json"])).out).plan).toMatchObject({
      noise: 0,
      sameEveryRepeat: true,
    });
    const text = (await cli(["plan", "--detect", "30", "--baseline", base])).out;
    expect(text).toMatch(/note\s+every task of run \S+ gave one result in every repeat: if the agent is deterministic/);
    expect(text).toContain("only more tasks, not repeats, make it surer");
    // A baseline whose tasks vary gets no such note.
    const varied = TASKS.flatMap((task) =>
      [0, 1].map((r) => ({ task, verdict: r === 0 ? ("passed" as const) : ("failed" as const) })),
    );
    const noisy = seedRun(store, { model: "reference", startedAt: "2025-06-02T00:00:00.000Z", trials: varied });
    expect((await cli(["plan", "--detect", "30", "--baseline", noisy])).out).not.toContain(
      "one result in every repeat",
    );
  });

  it("says what is missing", async () => {
    const none = await cli(["plan", "--detect", "10"]);
    expect(none.code).toBe(2);
    expect(none.err).toContain("give --tasks N");
    expect((await cli(["plan"])).err).toContain("plan needs --detect POINTS");
  });
});
