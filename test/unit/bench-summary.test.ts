import { describe, expect, it } from "vitest";
import {
  BENCH_AIMS,
  detailLines,
  fixedSpeedup,
  headlineTable,
  latencyRows,
  noLayoutWaitRow,
  startupRows,
} from "../../scripts/bench/summary.js";
import type { StepBench } from "../../scripts/bench/step-overhead.js";
import type { LatencyBench } from "../../scripts/bench/latency-throughput.js";

describe("bench summary: a section that did not run", () => {
  it("prints skipped with its reason, and an error with its message", () => {
    const table = headlineTable({
      remote: { status: "skipped", reason: "not in --quick (ask for it: --only remote)" },
      report: { status: "error", ms: 1, error: "boom" },
    });
    expect(table).toMatch(/Suite: local browser vs 2.*skipped.*not in --quick/s);
    expect(table).toMatch(/HTML report generation.*error: boom/s);
    expect(table).not.toMatch(/not available/);
  });
});

describe("bench summary: the latency speed-up over the levels that ran", () => {
  function latency(levels: [number | "adaptive", number][]) {
    const runs = levels.map(([concurrency, trialsPerMinute]) => ({
      concurrency,
      trialsPerMinute,
      rateLimited: 0,
      trials: 32,
      passed: 32,
      wallMs: 60_000,
      effectiveParallelism: 1,
      medianTrialWallMs: 1,
      turns: 1,
      cpuSeconds: 1,
      coresBusy: 1,
      cpuPerTrial: { node: 1, browser: 1 },
      cpuPerTrialByKind: {},
      cpuBoundTrialsPerMinute: 1,
      machine: { cores: 2, loadAverage1m: 1 },
      samplerMs: 0,
      samplerCpuSeconds: 0,
      memory: null,
    }));
    const fixed = runs.filter((r) => typeof r.concurrency === "number") as ((typeof runs)[number] & {
      concurrency: number;
    })[];
    const best = fixed.reduce<(typeof fixed)[number] | null>(
      (b, r) => (!b || r.trialsPerMinute > b.trialsPerMinute ? r : b),
      null,
    );
    const perMinute = (c: number | "adaptive") => runs.find((r) => r.concurrency === c)?.trialsPerMinute ?? Number.NaN;
    const result = {
      model: "reference:latency",
      latencyMs: 2000,
      mode: "both",
      tasks: ["answer-only-bb042"],
      repeat: 4,
      cores: 2,
      runs,
      speedup1to4: Number.NaN,
      speedup1to2: Number.NaN,
      speedup1to16: perMinute(16) / perMinute(1),
      bestFixed: best ? { concurrency: best.concurrency, trialsPerMinute: best.trialsPerMinute } : null,
      adaptiveVsBest: best ? perMinute("adaptive") / best.trialsPerMinute : Number.NaN,
    };
    return result as LatencyBench;
  }
  const table = (r: LatencyBench) =>
    headlineTable({ latency: { status: "ok", ms: 1, machine: { cores: 2, loadAverage1m: 1 } as never, result: r } });
  // Columns: benchmark, umpire, baseline, ratio, aim, met, samples.

  it("--levels 4,8,adaptive: the speed-up from the lowest to the highest fixed level, unjudged against the 1->16 aim", () => {
    const r = latency([
      [4, 3],
      [8, 11.7],
      ["adaptive", 11],
    ]);
    const [speedup, vsBest] = latencyRows(r);
    expect(speedup.slice(2)).toEqual(["concurrency 4", "3.90x (4->8)", ">= 10x (1->16)", "", "32 trials per level"]);
    expect(vsBest.slice(1)).toEqual(["11.0 trials/min", "11.7, concurrency 8", "0.94x", ">= 0.9x", "yes", "same run"]);
    expect(table(r)).not.toContain("?x");
  });

  it("the full levels: 1->16, judged against the aim", () => {
    expect(
      latencyRows(
        latency([
          [1, 1],
          [4, 4],
          [8, 7],
          [16, 12],
          ["adaptive", 11.5],
        ]),
      )[0].slice(2),
    ).toEqual(["concurrency 1", "12.00x (1->16)", ">= 10x (1->16)", "yes", "32 trials per level"]);
    expect(
      latencyRows(
        latency([
          [16, 5],
          [1, 1],
        ]),
      )[0].slice(3, 6),
    ).toEqual(["5.00x (1->16)", ">= 10x (1->16)", "NO"]);
  });

  it("--levels 8,adaptive: not measured (one fixed level), and adaptive vs best fixed still compared", () => {
    const r = latency([
      [8, 10],
      ["adaptive", 9.5],
    ]);
    const [speedup, vsBest] = latencyRows(r);
    expect(speedup.slice(1)).toEqual([
      "c8: 10.0, adaptive: 9.5 trials/min",
      "",
      "not measured (needs two fixed levels)",
      ">= 10x (1->16)",
      "",
      "32 trials per level",
    ]);
    expect(vsBest.slice(1)).toEqual(["9.5 trials/min", "10.0, concurrency 8", "0.95x", ">= 0.9x", "yes", "same run"]);
    const printed = table(r);
    expect(printed).not.toContain("?x");
    // The cell wraps in its column: "not" / "measured" / "(needs two" / "fixed" / "levels)".
    expect(printed.replace(/[\s│]+/g, " ")).toMatch(
      /Throughput, 2 s model c8: 10\.0, adaptive: 9\.5 not >= 10x 32 trials per level .*measured.*\(needs two fixed levels\)/,
    );
  });

  it("--levels adaptive: neither line judges what did not run", () => {
    const [speedup, vsBest] = latencyRows(latency([["adaptive", 9.5]]));
    expect(speedup[3]).toBe("not measured (needs two fixed levels)");
    expect(vsBest.slice(1)).toEqual([
      "9.5 trials/min",
      "no fixed level run",
      "not measured",
      ">= 0.9x",
      "",
      "same run",
    ]);
  });
});

describe("fixedSpeedup", () => {
  it("spans the lowest and the highest fixed level, whatever the order, ignoring adaptive", () => {
    expect(
      fixedSpeedup([
        { concurrency: "adaptive", trialsPerMinute: 50 },
        { concurrency: 8, trialsPerMinute: 8 },
        { concurrency: 2, trialsPerMinute: 2 },
      ]),
    ).toEqual({ from: 2, to: 8, ratio: 4 });
    expect(
      fixedSpeedup([
        { concurrency: 8, trialsPerMinute: 8 },
        { concurrency: "adaptive", trialsPerMinute: 9 },
      ]),
    ).toBeNull();
    expect(
      fixedSpeedup([
        { concurrency: 1, trialsPerMinute: 0 },
        { concurrency: 4, trialsPerMinute: 3 },
      ])?.ratio,
    ).toBeNaN();
  });
});

describe("bench summary: the step aim on the path of every model but the reference", () => {
  const step = (noLayoutWait: StepBench["noLayoutWait"]) =>
    ({
      umpirePerStepMs: 280,
      barePerStepMs: 300,
      ratio: 0.93,
      repeats: 6,
      stepsPerTrial: 8,
      noLayoutWait,
    }) as StepBench;
  // Columns: benchmark, umpire, baseline, ratio, aim, met, samples.

  it("is one of the aims, judged like the reference model's path, and a row of the table", () => {
    expect(BENCH_AIMS.noLayoutWaitStepRatio).toBe(0.8);
    const over = noLayoutWaitRow(
      step({
        perStepMs: 600,
        ratio: 2,
        verdicts: ["passed"],
        capturePerStepMs: 500,
        documentWaits: { waited: 12, timedOut: 3 },
      }),
    );
    expect(over.slice(3, 6)).toEqual(["2.00x", "<= 0.8x", "NO"]);
    expect(over[6]).toContain("document waits 12, ran out 3");
    const under = noLayoutWaitRow(
      step({
        perStepMs: 220,
        ratio: 0.73,
        verdicts: ["passed"],
        capturePerStepMs: 60,
        documentWaits: { waited: 12, timedOut: 0 },
      }),
    );
    expect(under.slice(3, 6)).toEqual(["0.73x", "<= 0.8x", "yes"]);
    const table = headlineTable({
      step: { status: "ok", ms: 1, machine: { cores: 2, loadAverage1m: 1 } as never, result: step(null) },
    });
    expect(table).toMatch(/any model but the .*not measured.*<= 0\.8x.*NO/);
  });

  it("is judged not met when it could not be measured, rather than left out", () => {
    expect(
      noLayoutWaitRow(step(null))
        .slice(1, 2)
        .concat(noLayoutWaitRow(step(null)).slice(4, 6)),
    ).toEqual(["not measured", "<= 0.8x", "NO"]);
  });
});

describe("bench summary: CLI start-up as a ratio to node -e 0", () => {
  const startup = (versionRatio: number) => ({
    samples: 5,
    nodeMedianMs: 80,
    version: { medianMs: 80 * versionRatio, ratio: versionRatio },
    help: { medianMs: 90, ratio: 1.13 },
    runsHelp: { medianMs: 400, ratio: 5 },
    npxVersion: { medianMs: 600, ratio: 7.5 },
  });
  const rows = (ratio: number) =>
    startupRows({ status: "ok", ms: 1, machine: { cores: 2, loadAverage1m: 1 } as never, result: startup(ratio) });

  it("judges --version and --help against the aim, and shows runs --help and npx beside them unjudged", () => {
    const [version, help, runsHelp, npx] = rows(1.2);
    expect(version).toEqual([
      "CLI start-up, --version",
      "96 ms median",
      "node -e 0: 80 ms",
      "1.20x",
      "<= 3x",
      "yes",
      "n=5",
    ]);
    expect(help!.slice(3, 6)).toEqual(["1.13x", "<= 3x", "yes"]);
    expect(rows(4)[0]!.slice(1, 6)).toEqual(["320 ms median", "node -e 0: 80 ms", "4.00x", "<= 3x", "NO"]);
    expect(runsHelp!.slice(3, 6)).toEqual(["5.00x", "", ""]);
    expect(npx!.slice(0, 4)).toEqual(["... npx umpire --version", "600 ms median", "node -e 0: 80 ms", "7.50x"]);
  });

  it("an error in the start-up bench is one row with its message", () => {
    expect(startupRows({ status: "error", ms: 1, error: "the CLI is not built" })[0]!.slice(0, 2)).toEqual([
      "CLI start-up, --version",
      "error: the CLI is not built",
    ]);
  });
});

describe("bench summary: a stateful app on a pool of instances", () => {
  const machine = { cores: 2, coresBusy: 1, loadAverage1m: 1 };
  const side = (instances: number, wallMs: number, passed = 8) => ({
    instances,
    wallMs,
    passed,
    trials: 8,
    notPassed: passed === 8 ? {} : { "environment_error: page.goto: Timeout 15000ms exceeded.": 8 - passed },
    resetMsPerTrial: 3.2,
    resetMsByTrial: [3, 3],
    waitedMsPerTrial: 0,
    peak: instances,
    memoryMbPerInstance: 46,
    sizedBy: null,
    machine,
  });
  const result = {
    app: "TiddlyWiki",
    turnLatencyMs: 2000,
    one: side(1, 60_000),
    many: side(4, 20_000),
    speedup: 3,
    comparable: true,
  };
  const pool = { status: "ok" as const, ms: 1, machine, result };

  it("judges the speed-up of N instances over one against the aim, with reset time and memory per instance", () => {
    const table = headlineTable({ pool } as never);
    expect(table).toMatch(
      /Stateful app \(TiddlyWiki\),[\s\S]*4 instances: 20\.0 s[\s\S]*1 instance: 60\.0 s[\s\S]*3\.00x[\s\S]*>= 2x[\s\S]*yes[\s\S]*reset 3\.2 ms\/trial,[\s\S]*46 MB\/instance/,
    );
    const slow = headlineTable({ pool: { ...pool, result: { ...result, speedup: 1.5 } } } as never);
    expect(slow).toMatch(/1\.50x[\s\S]*NO/);
  });

  it("a speed-up where not every trial passed is not met, and the detail says why they did not pass", () => {
    const errored = { ...pool, result: { ...result, many: side(4, 10_000, 2), speedup: 6, comparable: false } };
    expect(headlineTable({ pool: errored } as never)).toMatch(/6\.00x \(not[\s\S]*NO/);
    const details = detailLines({ pool: errored } as never).join("\n");
    expect(details).toMatch(/not every trial passed on both sides/);
    expect(details).toMatch(
      /4 instances 2\/8 passed .*not passed: environment_error: page\.goto: Timeout 15000ms exceeded\. x6/,
    );
  });
});

describe("bench summary: CPU per trial", () => {
  const side = (label: string, cpuPerTrialS: number) => ({
    label,
    args: ["run"],
    trials: 28,
    passed: 28,
    wallS: 90,
    cpuS: cpuPerTrialS * 28,
    cpuPerTrialS,
    perTrialByKind: { gpu: 0.8, renderer: 0.9, unattributed: 0.01 },
    coresUsed: 0.98,
    runs: [
      { cpuPerTrialS: cpuPerTrialS - 0.2, passed: 28, trials: 28 },
      { cpuPerTrialS, passed: 27, trials: 28 },
      { cpuPerTrialS: cpuPerTrialS + 0.5, passed: 28, trials: 28 },
    ],
  });
  const table = (first: number, second: number) =>
    headlineTable({
      cpu: {
        status: "ok",
        ms: 1,
        machine: { cores: 2, loadAverage1m: 1 } as never,
        result: {
          method: "cgroup v1 cpuacct",
          sides: [side("the fixture suite", first), side("latency tasks", second)],
        },
      },
    });

  it("judges the fixture suite's figure against the aim and shows the 2 s a turn figure unjudged", () => {
    expect(table(3.17, 4.6)).toMatch(/CPU per trial.*3\.17 s.*<= 3 s.*NO.*at 2 s a turn.*4\.60 s/s);
    expect(table(2.9, 4.6)).toMatch(/CPU per trial.*2\.90 s.*<= 3 s.*yes/s);
    // the unjudged row carries no aim and no verdict
    expect(
      table(2.9, 4.6)
        .split("\n")
        .find((l) => l.includes("4.60 s")),
    ).not.toMatch(/yes|NO/);
  });

  it("says the figure is a median and how far the runs lay, and counts every run's trials", () => {
    // The table wraps a long cell over lines: read its last column's words in order.
    const notes = table(3.17, 4.6)
      .split("\n")
      .map((line) => line.split("│").at(-2)?.trim() ?? "")
      .join(" ")
      .replace(/\s+/g, " ");
    expect(notes).toMatch(/the fixture suite: median of 3 runs \(2\.97-3\.67 s\), 83\/84 passed/);
  });

  it("a machine without a writable cgroup skips the section with the reason", () => {
    expect(headlineTable({ cpu: { status: "skipped", reason: "cannot make a control group; run as root" } })).toMatch(
      /CPU per trial.*skipped.*run as root/s,
    );
  });

  it("the detail names how it was counted and the split by process kind", () => {
    const lines = detailLines({
      cpu: {
        status: "ok",
        ms: 1,
        machine: { cores: 2, loadAverage1m: 1 } as never,
        result: { method: "cgroup v1 cpuacct", sides: [side("the fixture suite", 3.17)] },
      },
    });
    expect(lines.join("\n")).toMatch(/cpu per trial \(cgroup v1 cpuacct\)[\s\S]*gpu 0\.80, renderer 0\.90/);
    expect(lines.join("\n")).toMatch(/every run: 2\.97, 3\.17, 3\.67 s\/trial/);
  });
});
