/**
 * `umpire run --until-decided` through the real CLI on the reference model: the wrong-record profile
 * fails scorecard-note-bb042 every time and passes answer-only-bb042, so against a baseline of the
 * gold policy the first task is decided "worse" after a few repeats and gets no more, while the
 * other, unchanged, is decided "no change" once its repeats rule out a 30-point fall (the 6-repeat
 * baseline rules out a 30-point rise on its own); then the run stops, every task decided.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import { capture as captureIO } from "../../support/cli-in-process.js";
import { openStore } from "../../../src/store/open.js";

const ROOT = join(__dirname, "../../..");
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-decided-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function capture() {
  const { io, text } = captureIO({}, ROOT);
  return { io, out: () => text.out, err: () => text.err };
}

const common = () => [
  "--db",
  join(dir, "umpire.db"),
  "--out",
  join(dir, "runs"),
  "--mode",
  "structured",
  "--reporter",
  "dot",
];
const TASKS = ["scorecard-note-bb042", "answer-only-bb042"];

describe("umpire run --until-decided", () => {
  it("adds repeats only to undecided tasks and stops when every task is decided", async () => {
    const base = capture();
    expect(await main(["run", ...TASKS, "--repeat", "6", "--tag", "gold", ...common()], base.io)).toBe(0);

    const c = capture();
    const code = await main(
      [
        "run",
        ...TASKS,
        "--model",
        "reference:wrong-record",
        "--until-decided",
        "--baseline",
        "gold",
        "--max-trials",
        "20",
        ...common(),
      ],
      c.io,
    );
    expect(code).toBe(1); // the candidate failed trials: the agent's doing
    const out = c.out();
    // Base 6/6 vs candidate 0/n: the e-value (mixtures over the best common rate) passes K / alpha =
    // 2 / 0.05 = 40 at n = 4 (94; 37 at n = 3). 6/6 vs n/n: "no change" at n = 11
    // (src/report/sequential.ts; test/unit/report/sequential.test.ts). One first repeat each, then
    // three rounds of two and seven of one.
    expect(out).toMatch(
      /until decided against \S+: 13 trials added in 10 rounds, \$0\.0000 spent by the run; stopped: all decided/,
    );
    expect(out).toMatch(/worse\s+scorecard-note-bb042 \[reference:wrong-record\/structured\] 6\/6 -> 0\/4\n/);
    expect(out).toMatch(
      /no change\s+answer-only-bb042 \[reference:wrong-record\/structured\] 6\/6 -> 11\/11 \(same every repeat\)/,
    );
    // The deterministic reference model repeats itself: the output says what its repeats are worth.
    expect(out).toContain("If the agent is deterministic, its\n  repeats are copies");

    const store = openStore(join(dir, "umpire.db"), { readonly: true });
    try {
      const run = store.listRuns()[0]!;
      const trials = store.trials(run.id);
      const of = (task: string) => trials.filter((t) => t.taskId === task);
      expect(of("scorecard-note-bb042").map((t) => t.repeat)).toEqual([0, 1, 2, 3]);
      expect(of("answer-only-bb042").map((t) => t.repeat)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(trials.every((t) => t.status === "done")).toBe(true);
      expect(run.status).toBe("finished");
    } finally {
      store.close();
    }
  }, 1_800_000);

  it("refuses --baseline without --until-decided, and --until-decided without a baseline", async () => {
    const stray = capture();
    expect(await main(["run", "answer-only-bb042", "--baseline", "gold", ...common()], stray.io)).toBe(2);
    expect(stray.err()).toContain("--baseline is for --until-decided");
    const none = capture();
    expect(await main(["run", "answer-only-bb042", "--until-decided", ...common()], none.io)).toBe(2);
    expect(none.err()).toContain("--until-decided needs --baseline");
  });
});
