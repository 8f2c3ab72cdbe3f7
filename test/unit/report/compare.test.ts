import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import { compareGroups, groupTrialsBy } from "../../../src/report/compare.js";
import { judgeRegression } from "../../../src/report/regression.js";
import type { Store } from "../../../src/store/store.js";
import { withTempStore } from "../store/fixtures.js";
import { fakeIO, seedRun, type SeedTrial } from "./seed.js";
import { parseXml, type XmlElement } from "./xml-check.js";

let dir: string;
let db: string;
let store: Store;
withTempStore((t) => ({ dir, db, store } = t));

const TASKS = ["save-bb042", "cookie-reject", "lazy-scorecard", "compare-two", "long-scroll", "canvas-read"];

/** Every task x repeats; `outcome(task, repeat)` says whether that trial passes. */
function trialsFor(
  repeats: number,
  outcome: (task: string, repeat: number) => boolean,
  extra: Partial<SeedTrial> = {},
): SeedTrial[] {
  return TASKS.flatMap((task) =>
    Array.from({ length: repeats }, (_, r) => ({
      task,
      verdict: outcome(task, r) ? ("passed" as const) : ("failed" as const),
      ...extra,
    })),
  );
}

async function cli(argv: string[]) {
  const f = fakeIO(dir);
  const code = await main([...argv, "--db", db], f.io);
  return { code, out: f.out(), err: f.err() };
}

describe("compare two runs", () => {
  it("lists the flipped tasks and --fail-on-regression exits 1 for the wrong-record profile", async () => {
    const base = seedRun(store, {
      model: "reference",
      tags: ["main"],
      startedAt: "2025-06-01T00:00:00.000Z",
      trials: trialsFor(2, () => true),
    });
    // wrong-record: the note names the wrong match on the first two tasks, every repeat.
    const cand = seedRun(store, {
      model: "reference:wrong-record",
      startedAt: "2025-06-02T00:00:00.000Z",
      trials: trialsFor(2, (task) => task !== "save-bb042" && task !== "cookie-reject"),
    });
    const gated = await cli(["compare", base, cand, "--fail-on-regression"]);
    expect(gated.code).toBe(1);
    expect(gated.out).toContain("pass -> fail: save-bb042, cookie-reject");
    expect(gated.out).toContain("REGRESSION");
    expect(gated.out).toMatch(/stable task save-bb042 now fails: 2\/2 passed in \S+, 0\/2 in/);

    const json = JSON.parse((await cli(["compare", base, cand, "--json", "--fail-on-regression"])).out);
    const paired = json.comparison.paired[0];
    expect(paired.flippedToFail).toEqual(["save-bb042", "cookie-reject"]);
    expect(paired.flippedToPass).toEqual([]);
    // Every repeat identical on each side (a deterministic agent): each task's repeats count once,
    // so the two flips are 2 discordant pairs, not 4, and 6 paired repeats, not 12.
    expect([paired.onlyBasePassed, paired.onlyCandidatePassed]).toEqual([2, 0]);
    expect([paired.trialPairs, paired.countedOnce]).toEqual([6, 6]);
    expect(paired.pValue).toBe(0.5); // 2 discordant pairs, all one way: 2 x 1/4
    expect(gated.out).toMatch(
      /McNemar\s+these tasks, repeated: 2 passed only in \S+, 0 only in \S+ \(6 tasks the same every repeat, counted once\): exact p = 0\.5/,
    );
    expect(gated.out).toMatch(
      /pass rate\s+100\.0% -> 66\.7% \(-33\.3 pts; tasks like these: 95% bootstrap CI over tasks/,
    );
    // The gate says what it judges and why.
    expect(gated.out).toMatch(/basis: the gate judges these tasks, repeated: exact McNemar on paired repeats/);
    expect(json.regression.basis).toMatch(
      /^the gate judges these tasks, repeated: .* The bootstrap interval \(tasks like these\) is shown, not gated$/,
    );
    expect(json.regression.regressed).toBe(true);
    // The pass-rate drop alone (p = 0.5) is not significant: the stable tasks flipping is what fails it.
    expect(json.regression.reasons.some((r: string) => r.startsWith("pass rate fell"))).toBe(false);
    // How sure: 6 paired repeats, every task stable on both sides (noise 0): Connor's formula (computed
    // in Python with scipy) gives a minimum detectable drop of 86.1 points; the gate and the text both say so.
    expect(paired.detectable.drop).toBeCloseTo(0.8613509343, 6);
    expect(gated.out).toContain(
      "not significant: this comparison could only have detected drops of 86.1 points or more",
    );
    // ... and that more repeats of a deterministic agent would not help.
    expect(gated.out).toContain(
      "every task was the same every repeat: if the agent is deterministic, more repeats add nothing there, more tasks do",
    );
    expect(json.regression.notes.some((n: string) => n.includes("could only have detected drops of 86.1 points"))).toBe(
      true,
    );

    // The Markdown says the same: what each statistic speaks about, and the gate's basis.
    const md = (await cli(["compare", base, cand, "--markdown", "--fail-on-regression"])).out;
    expect(md).toContain("- exact McNemar, these tasks, repeated: 2 passed only in");
    expect(md).toContain("(6 tasks the same every repeat, counted once), p = 0.5");
    expect(md).toMatch(/tasks like these: 95% bootstrap CI over tasks/);
    expect(md).toContain("- basis: the gate judges these tasks, repeated");

    // Without the flag the same comparison reports but exits 0.
    expect((await cli(["compare", base, cand])).code).toBe(0);
  });

  it("a significant drop in pass rate alone fails the gate", async () => {
    // Base: every task flaky-but-mostly-passing (no stable task); candidate: mostly failing.
    const base = seedRun(store, {
      model: "reference",
      startedAt: "2025-06-01T00:00:00.000Z",
      trials: trialsFor(3, (_t, r) => r !== 2),
    });
    const cand = seedRun(store, {
      model: "reference",
      startedAt: "2025-06-02T00:00:00.000Z",
      trials: trialsFor(3, () => false),
    });
    const json = JSON.parse((await cli(["compare", base, cand, "--json", "--fail-on-regression"])).out);
    expect(json.comparison.paired[0].stableRegressions).toEqual([]);
    expect(json.comparison.paired[0].onlyBasePassed).toBe(12);
    expect(json.comparison.paired[0].pValue).toBeCloseTo(2 / 4096, 12);
    expect(json.regression.reasons).toHaveLength(1);
    expect(json.regression.reasons[0]).toMatch(/^pass rate fell from 66\.7% to 0\.0%/);
    expect((await cli(["compare", base, cand, "--fail-on-regression"])).code).toBe(1);
  });

  it("passes the gate when nothing changed, and finds the baseline by tag against the latest run", async () => {
    seedRun(store, {
      model: "reference",
      tags: ["main"],
      startedAt: "2025-06-01T00:00:00.000Z",
      trials: trialsFor(2, () => true),
    });
    seedRun(store, { model: "reference", startedAt: "2025-06-02T00:00:00.000Z", trials: trialsFor(2, () => true) });
    const same = await cli(["compare", "--baseline", "main", "--fail-on-regression"]);
    expect(same.code).toBe(0);
    expect(same.out).toContain("no regression");
  });

  it("gates cost per success with --max-cost-increase", async () => {
    const base = seedRun(store, {
      model: "reference",
      startedAt: "2025-06-01T00:00:00.000Z",
      trials: trialsFor(1, () => true, { costUsd: 0.01 }),
    });
    const cand = seedRun(store, {
      model: "reference",
      startedAt: "2025-06-02T00:00:00.000Z",
      trials: trialsFor(1, () => true, { costUsd: 0.025 }),
    });
    const over = await cli(["compare", base, cand, "--fail-on-regression", "--max-cost-increase", "50"]);
    expect(over.code).toBe(1);
    expect(over.out).toContain("cost per success rose 150.0% (limit 50%)");
    expect((await cli(["compare", base, cand, "--fail-on-regression", "--max-cost-increase", "200"])).code).toBe(0);
    expect((await cli(["compare", base, cand, "--fail-on-regression"])).code).toBe(0);
  });

  it("writes JUnit for the candidate: one testcase per trial, failures carry the check reasons, escaped", async () => {
    const base = seedRun(store, {
      model: "reference",
      startedAt: "2025-06-01T00:00:00.000Z",
      trials: trialsFor(1, () => true),
    });
    const nasty = 'note says <BB-024> & "Pune" won\'t \u0001match ]]> here';
    const cand = seedRun(store, {
      model: "reference:wrong-record",
      startedAt: "2025-06-02T00:00:00.000Z",
      trials: [
        {
          task: "save-bb042",
          verdict: "failed",
          checks: [
            { pass: false, reason: nasty, name: "note <names> the match" },
            { pass: true, reason: "file exists" },
          ],
        },
        { task: "cookie-reject", verdict: "error" },
        { task: "lazy-scorecard", verdict: "passed" },
      ],
    });
    const file = join(dir, "out", "..", "junit.xml");
    expect((await cli(["compare", cand, "--baseline", base, "--junit", file])).code).toBe(0);
    const root = parseXml(readFileSync(file, "utf8"));
    expect(root.name).toBe("testsuites");
    expect(root.attributes).toMatchObject({ tests: "3", failures: "1", errors: "1" });
    const suites = root.children;
    expect(suites.map((s) => s.attributes.name)).toEqual([cand]);
    const cases = suites[0].children;
    expect(cases.map((c) => c.attributes.name)).toEqual([
      "save-bb042 [structured] #0",
      "cookie-reject [structured] #0",
      "lazy-scorecard [structured] #0",
    ]);
    const failure = cases[0].children.find((c: XmlElement) => c.name === "failure")!;
    expect(failure.attributes.message).toBe(
      'note <names> the match: note says <BB-024> & "Pune" won\'t \uFFFDmatch ]]> here',
    );
    expect(failure.text).toContain('file "note <names> the match" (required, verified): note says <BB-024>');
    expect(cases[1].children.map((c: XmlElement) => c.name)).toContain("error");
    expect(cases[2].children.map((c: XmlElement) => c.name)).toEqual(["system-out"]);
  });

  it("refuses what cannot be compared, with a usage error", async () => {
    const one = seedRun(store, {
      model: "reference",
      startedAt: "2025-06-01T00:00:00.000Z",
      trials: trialsFor(1, () => true),
    });
    const r = await cli(["compare", one]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("compare needs two runs, a --baseline, or --by");
    expect((await cli(["compare", one, one])).err).toContain("the same run appears twice");
    expect((await cli(["compare", one, "--by", "mode"])).err).toContain("every trial falls in one group (structured)");
    expect((await cli(["compare", one, "--by", "colour"])).err).toContain("--by colour: unknown");
    expect((await cli(["compare", one, "--baseline", "nothing-like-it"])).err).toContain(
      "no run tagged 'nothing-like-it'",
    );
  });
});

describe("compare --by", () => {
  it("--by mode shows structured and tools side by side with cost and latency", async () => {
    const run = seedRun(store, {
      model: "holo3-1-35b-a3b",
      startedAt: "2025-06-01T00:00:00.000Z",
      trials: [
        ...trialsFor(2, () => true, { mode: "structured", wallMs: 10_000 }),
        ...trialsFor(2, (task, r) => !(task === "compare-two" && r === 1), { mode: "tools", wallMs: 8_000 }),
      ],
    });
    const json = JSON.parse((await cli(["compare", run, "--by", "mode", "--json"])).out).comparison;
    expect(json.groups.map((g: { label: string }) => g.label)).toEqual(["structured", "tools"]);
    expect(json.tasks.map((t: { key: string }) => t.key)).toEqual(TASKS);
    expect(json.groups[0].summary).toMatchObject({ passes: 12, n: 12, wallP50Ms: 10_000 });
    expect(json.groups[1].summary).toMatchObject({ passes: 11, n: 12, wallP50Ms: 8_000 });
    // 10k input + 500 output tokens at 0.25/1.80 per million = $0.0034 per trial.
    expect(json.groups[0].summary.meanCostUsd).toBeCloseTo(0.0034, 12);
    expect(json.groups[1].summary.costPerSuccess).toBeCloseTo((12 * 0.0034) / 11, 12);
    expect(json.paired[0].deltas.wallP50Pct).toBeCloseTo(-20, 9);
    expect(json.paired[0].flaky).toEqual([
      {
        key: "compare-two",
        base: { key: "compare-two", passes: 2, n: 2 },
        candidate: { key: "compare-two", passes: 1, n: 2 },
      },
    ]);

    const text = (await cli(["compare", run, "--by", "mode"])).out;
    expect(text).toMatch(/save-bb042\s+│ structured │ 2\/2/);
    expect(text).toMatch(/│\s+│ tools\s+│ 2\/2/);
    expect(text).toContain("$0.0034");
    expect(text).toContain("tools vs structured");
    expect(text).toContain("p50 wall -20.0%");
  });

  it("--by tag groups runs by their tags", async () => {
    const a = seedRun(store, {
      model: "reference",
      tags: ["old-prompt"],
      startedAt: "2025-06-01T00:00:00.000Z",
      trials: trialsFor(1, () => true),
    });
    const b = seedRun(store, {
      model: "reference",
      tags: ["new-prompt"],
      startedAt: "2025-06-02T00:00:00.000Z",
      trials: trialsFor(1, (t) => t !== "canvas-read"),
    });
    const json = JSON.parse((await cli(["compare", a, b, "--by", "tag", "--json"])).out).comparison;
    expect(json.groups.map((g: { label: string }) => g.label)).toEqual(["old-prompt", "new-prompt"]);
    expect(json.paired[0].flippedToFail).toEqual(["canvas-read"]);
  });
});

describe("compareGroups (pure)", () => {
  it("leaves infrastructure errors and unfinished trials out of pass rates but counts their cost", () => {
    const run = seedRun(store, {
      model: "reference",
      startedAt: "2025-06-01T00:00:00.000Z",
      trials: [
        { task: "a", verdict: "passed", costUsd: 0.01, wallMs: 1000 },
        { task: "a", verdict: "error", costUsd: 0.02, wallMs: 99_000 },
        { task: "a", verdict: "failed", costUsd: 0.01, wallMs: 3000, claimed: true },
      ],
    });
    const trials = store.trials(run);
    const c = compareGroups(
      [
        { label: "x", runIds: [run], trials },
        { label: "y", runIds: [run], trials },
      ],
      "run",
    );
    const s = c.groups[0].summary;
    expect(s).toMatchObject({
      trials: 3,
      n: 2,
      passes: 1,
      errors: 1,
      falseSuccesses: 1,
      wallP50Ms: 2000,
      costPerSuccess: 0.04,
    });
    expect(s.stopReasons).toEqual({ answered: 2, environment_error: 1 });
    expect(c.k).toBe(2);
    expect(c.tasks[0].cells[0]!.outcome).toBe("flaky");
    expect(c.paired[0]).toMatchObject({ onlyBasePassed: 0, onlyCandidatePassed: 0, pValue: 1, flippedToFail: [] });
  });

  it("keys rows by task and mode when modes vary, and groups by mode in a fixed order", () => {
    const run = seedRun(store, {
      model: "reference",
      startedAt: "2025-06-01T00:00:00.000Z",
      trials: [
        { task: "a", mode: "tools", verdict: "passed" },
        { task: "a", mode: "structured", verdict: "failed" },
      ],
    });
    const trials = store.trials(run);
    expect(groupTrialsBy(trials, "mode").map((g) => g.label)).toEqual(["structured", "tools"]);
    const byRun = compareGroups(
      [
        { label: "r1", runIds: [run], trials },
        { label: "r2", runIds: [run], trials },
      ],
      "run",
    );
    expect(byRun.tasks.map((t) => t.key)).toEqual(["a [tools]", "a [structured]"]);
  });

  it("judgeRegression notes an unknown cost instead of failing on it", () => {
    const run = seedRun(store, {
      model: "reference",
      startedAt: "2025-06-01T00:00:00.000Z",
      trials: [{ task: "a", verdict: "passed" }],
    });
    const trials = store.trials(run);
    const c = compareGroups(
      [
        { label: "x", runIds: [run], trials },
        { label: "y", runIds: [run], trials },
      ],
      "run",
    );
    const v = judgeRegression(c.paired[0], { base: 0.01, candidate: "unknown" }, { maxCostIncreasePct: 10 });
    expect(v.regressed).toBe(false);
    expect(v.notes[0]).toContain("unknown");
    expect(
      judgeRegression(c.paired[0], { base: 0.01, candidate: "no_success" }, { maxCostIncreasePct: 10 }).regressed,
    ).toBe(true);
  });
});
