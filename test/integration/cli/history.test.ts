/**
 * `umpire history` and the report's history page over a store built the way users build one: real
 * runs on two "machines" (their own databases and result folders), then `umpire merge`.
 *
 * One series (task scores-bb042, agent reference/structured at one fixed endpoint) over three runs:
 *   H1  gold model, 6 repeats, cheap prices                      -> 6/6
 *   H2  gold model, 2 repeats, prices x3 (cost per success +200%) -> 2/2   (+ result-bb042 2/2)
 *   H3  the same endpoint now answers "Done." at once, 6 repeats  -> 0/6 (paired drop: p 0.03125)
 * The endpoint is `umpire serve-model` on one port, restarted with another profile: the agent's
 * definition (model, endpoint, mode) does not change, its behaviour does, as when a served model
 * is swapped behind a URL. The model server and the runs are child processes of the real CLI; the
 * reading commands (merge, history, report) run in-process (test/support/cli-in-process.ts): what
 * they print and return is the same, without a node start per call.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { Browser } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../../src/browser/chromium.js";
import { runCli, startCli, waitFor, type CliChild } from "../../support/cli-child.js";
import { runInProcess } from "../../support/cli-in-process.js";
import { fileURLToPath } from "node:url";

/** The fixture suite's cricket checks (a custom check module), by absolute path: tasks are written to a temp folder. */
const FIXTURE_CHECKS = fileURLToPath(new URL("../../../tasks/checks/cricket.ts", import.meta.url));

/** A one-turn task whose gold needs no grounding (the standalone model runs without the fixture site's layouts). */
const task = (id: string, ask: string) => `id: ${id}
title: Scores of BB-042 from its open scorecard
instruction: >-
  The scorecard of cricket match BB-042 is open. ${ask}
givens: [BB-042]
start: { path: /match/BB-042, scenario: plain }
tools: [answer]
checks:
  - kind: custom
    name: the answer states both scores and the result
    module: ${FIXTURE_CHECKS}
    export: answer
    options:
      scores: [168/6, 169/4]
      result: Jaipur Kites won by 6 wickets
reference:
  - tool: answer
    args: { content: "BB-042: Pune Pioneers 168/6 (20 ov), Jaipur Kites 169/4 (18.3 ov). Jaipur Kites won by 6 wickets." }
tags: [answer]
`;

let dir: string;
let taskFile: string;
let otherTaskFile: string;
let changedTaskFile: string;
let port: number;
let server: CliChild | undefined;
let browser: Browser | undefined;
const machine = (i: number) => join(dir, `m${i}`, "results");
const merged = () => join(dir, "all", "umpire.db");

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const s = createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => resolvePort(p));
    });
  });
}

async function startModel(profile: string): Promise<void> {
  server = startCli([
    "serve-model",
    "--port",
    String(port),
    "--profile",
    profile,
    "--tasks",
    taskFile,
    "--tasks",
    otherTaskFile,
    "--quiet",
  ]);
  await waitFor(() => (server!.stdout().includes("http://") ? true : undefined), "serve-model's URL", 60_000);
}

async function stopModel(): Promise<void> {
  server?.child.kill("SIGINT");
  await server?.done;
  server = undefined;
}

async function run(m: number, runId: string, extra: string[]): Promise<number | null> {
  const result = await runCli([
    "run",
    ...extra,
    "--mode",
    "structured",
    "--model",
    "reference",
    "--base-url",
    `http://127.0.0.1:${port}/v1`,
    "--run-id",
    runId,
    "--db",
    join(machine(m), "umpire.db"),
    "--out",
    join(machine(m), "runs"),
    "--json",
  ]);
  if (result.code !== 0 && result.code !== 1) throw new Error(`run ${runId} exited ${result.code}: ${result.stderr}`);
  return result.code;
}

async function history(...args: string[]) {
  return runInProcess(["history", "--db", merged(), ...args]);
}

async function historyJson(...args: string[]) {
  const result = await history("--json", ...args);
  expect(result.code, result.stderr).toBe(0);
  return JSON.parse(result.stdout);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "umpire-history-"));
  mkdirSync(join(dir, "tasks"));
  taskFile = join(dir, "tasks", "scores-bb042.yaml");
  writeFileSync(
    taskFile,
    task(
      "scores-bb042",
      "Answer with both teams' scores exactly as the scorecard writes them (runs/wickets) and the result line.",
    ),
  );
  otherTaskFile = join(dir, "tasks", "result-bb042.yaml");
  writeFileSync(
    otherTaskFile,
    task("result-bb042", "Answer with the result line and both teams' scores (runs/wickets) as written there."),
  );
  port = await freePort();
  await startModel("gold");
  expect(
    await run(1, "H1", [taskFile, "--repeat", "6", "--price-in", "1", "--price-out", "2", "--tag", "nightly"]),
  ).toBe(0);
  expect(
    await run(2, "H2", [
      taskFile,
      otherTaskFile,
      "--repeat",
      "2",
      "--price-in",
      "3",
      "--price-out",
      "6",
      "--tag",
      "nightly",
    ]),
  ).toBe(0);
  await stopModel();
  await startModel("answer-now");
  expect(
    await run(2, "H3", [
      taskFile,
      "--repeat",
      "6",
      "--price-in",
      "3",
      "--price-out",
      "6",
      "--tag",
      "nightly",
      "--tag",
      "candidate",
    ]),
  ).toBe(1);
  // H4, on a third machine: the same task id, but its checks were edited (a new content hash).
  mkdirSync(join(dir, "changed"));
  changedTaskFile = join(dir, "changed", "scores-bb042.yaml");
  writeFileSync(
    changedTaskFile,
    readFileSync(taskFile, "utf8").replace(
      "      result: Jaipur Kites won by 6 wickets\n",
      "      result: Jaipur Kites won by 6 wickets\n      notContains: [BB-024]\n",
    ),
  );
  expect(await run(3, "H4", [changedTaskFile, "--repeat", "2", "--price-in", "3", "--price-out", "6"])).toBe(1);
  await stopModel();
  const merge = await runInProcess([
    "merge",
    join(machine(1), "umpire.db"),
    join(machine(2), "umpire.db"),
    "--into",
    merged(),
  ]);
  expect(merge.code, merge.stderr).toBe(0);
}, 600_000);

afterAll(async () => {
  await stopModel();
  await browser?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const seriesOf = (h: { series: { taskId: string }[] }, task: string) => h.series.find((s) => s.taskId === task) as any;

describe("umpire history over merged runs", () => {
  it("gives one point per run with pass rate, cost per success, tokens and wall time, oldest first", async () => {
    const h = await historyJson();
    const s = seriesOf(h, "scores-bb042");
    expect(s.agentLabel).toBe("reference/structured");
    expect(s.points.map((p: any) => p.runId)).toEqual(["H1", "H2", "H3"]);
    expect(s.points.map((p: any) => `${p.passes}/${p.n}`)).toEqual(["6/6", "2/2", "0/6"]);
    expect(s.points[2].costPerSuccess).toBe("no_success");
    expect(s.points[0].meanTokens).toBeGreaterThan(0);
    expect(s.points[0].p50WallMs).toBeGreaterThan(0);
    // Same tokens per trial at three times the price: cost per success triples.
    expect(s.points[1].costPerSuccess / s.points[0].costPerSuccess).toBeCloseTo(3, 5);
    expect(s.trend.passRate).toEqual({ first: 1, last: 0, change: -1 });
    expect(s.trend.costPerSuccess.change).toBeCloseTo(200, 5);
  });

  it("flags the cost rise over the threshold and the pass-rate drop that the paired test calls significant", async () => {
    const s = seriesOf(await historyJson(), "scores-bb042");
    expect(s.flags.costIncrease).toMatchObject({ thresholdPct: 20 });
    expect(s.flags.costIncrease.changePct).toBeCloseTo(200, 5);
    expect(s.flags.passRateDrop).toMatchObject({ from: 1, to: 0, onlyFirst: 6, onlyLast: 0 });
    expect(s.flags.passRateDrop.pValue).toBeCloseTo(0.03125, 10);
    // A higher threshold clears the cost flag but not the drop.
    const lenient = seriesOf(await historyJson("--cost-threshold", "250"), "scores-bb042");
    expect(lenient.flags.costIncrease).toBeNull();
    expect(lenient.flags.passRateDrop).not.toBeNull();
  });

  it("--last N keeps each series' last N runs; two paired repeats are no significant drop", async () => {
    const s = seriesOf(await historyJson("--last", "2"), "scores-bb042");
    expect(s.points.map((p: any) => p.runId)).toEqual(["H2", "H3"]);
    expect(s.flags.passRateDrop).toBeNull();
    expect(s.flags.costIncrease).toBeNull();
  });

  it("filters by --task, --agent and --tag", async () => {
    const onlyOther = await historyJson("--task", "result-bb042");
    expect(onlyOther.series.map((s: any) => s.taskId)).toEqual(["result-bb042"]);
    expect(onlyOther.series[0].points.map((p: any) => p.runId)).toEqual(["H2"]);
    expect((await historyJson("--agent", "reference/tools")).series).toEqual([]);
    expect((await historyJson("--agent", "reference/structured")).series).toHaveLength(2);
    const candidate = seriesOf(await historyJson("--tag", "candidate"), "scores-bb042");
    expect(candidate.points.map((p: any) => p.runId)).toEqual(["H3"]);
    const both = await historyJson("--tag", "nightly", "--tag", "candidate");
    expect(both.series.map((s: any) => s.taskId)).toEqual(["scores-bb042"]);
  });

  it("prints a table and Markdown with first → last and the flags", async () => {
    const text = await history();
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/scores-bb042/);
    expect(text.stdout).toContain("100% → 0% (-100.0 pts)");
    expect(text.stdout).toContain("cost/success +200.0% (over 20%)");
    expect(text.stdout).toContain("pass rate drop -100.0 pts (McNemar p = 0.0313)");
    const md = await history("--markdown");
    expect(md.code).toBe(0);
    expect(md.stdout).toMatch(/^\| task \| agent \| runs \|/);
    expect(md.stdout).toContain("| `scores-bb042` | `reference/structured` | 3 |");
    expect(md.stdout).toContain("**pass rate drop");
  });

  it("refuses bad usage with exit 2 and a fix", async () => {
    for (const args of [["extra"], ["--json", "--markdown"], ["--last", "1"], ["--cost-threshold", "x"]]) {
      const r = await history(...args);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.stderr).toMatch(/umpire: /);
    }
    const missing = await runInProcess(["history", "--db", join(dir, "nope", "none.db")]);
    expect(missing.code).toBe(2);
  });
});

describe("a changed task", () => {
  it("is a break in the series, not a trend: trends and flags restart at the changed run", async () => {
    const into = join(dir, "with-changed", "umpire.db");
    const merge = await runInProcess(["merge", merged(), join(machine(3), "umpire.db"), "--into", into]);
    expect(merge.code, merge.stderr).toBe(0);
    const r = await runInProcess(["history", "--db", into, "--json", "--task", "scores-bb042"]);
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout).series[0];
    expect(s.points.map((p: any) => [p.runId, p.breakBefore])).toEqual([
      ["H1", null],
      ["H2", null],
      ["H3", null],
      ["H4", "task"],
    ]);
    expect(s.points[0].taskHash).toMatch(/\S/);
    expect(s.points[3].taskHash).not.toBe(s.points[0].taskHash);
    expect(s.segmentStart).toBe(3);
    // One run since the change: no trend to speak of, and nothing flagged across the break.
    expect(s.trend.passRate).toEqual({ first: 0, last: 0, change: 0 });
    expect(s.flags).toEqual({ costIncrease: null, passRateDrop: null });
    const text = await runInProcess(["history", "--db", into, "--task", "scores-bb042"]);
    expect(text.stdout).toContain("scores-bb042 · reference/structured: task changed in run H4; trends start there");
    expect(text.stdout).toMatch(/│\s+1 of 4\s+│/);
  });
});

describe("the report's history page", () => {
  it("draws inline SVG charts per task whose points link to each run, under the strict CSP, in Chromium", async () => {
    const first = await runInProcess(["report", "H1", "--db", merged()]);
    expect(first.code, first.stderr).toBe(0);
    const last = await runInProcess(["report", "H3", "--db", merged()]);
    expect(last.code, last.stderr).toBe(0);
    const index = last.stdout.trim();
    const historyPath = join(index, "..", "history.html");
    const source = readFileSync(historyPath, "utf8");
    expect(source).not.toMatch(/<script|style=|https?:\/\/(?!www\.w3\.org)/);

    browser = await launchChromium();
    const context = await browser.newContext();
    const requests: string[] = [];
    const problems: string[] = [];
    context.on("request", (r) => requests.push(r.url()));
    const page = await context.newPage();
    page.on("console", (m) => {
      if (m.type() === "error") problems.push(m.text());
    });
    page.on("pageerror", (e) => problems.push(e.message));
    await page.goto(pathToFileURL(index).href);
    await page.click("#history-link");
    await page.waitForURL(/history\.html$/);

    const series = page.locator('section.history-series[data-task="scores-bb042"]');
    await expect.poll(() => series.count()).toBe(1);
    const costPoints = series.locator(".chart-cost a.chart-point");
    const passPoints = series.locator(".chart-pass a.chart-point");
    expect(await costPoints.evaluateAll((as) => as.map((a) => a.getAttribute("data-run")))).toEqual(["H1", "H2", "H3"]);
    expect(await passPoints.locator("circle").count()).toBe(3);
    // H3 had no success: no cost point is drawn, only a marker.
    expect(await costPoints.locator("circle").count()).toBe(2);
    expect(await series.locator(".history-flags").textContent()).toContain("pass rate drop");
    // The pass-rate points sit at 100% (top) then 0% (bottom).
    const ys = await passPoints.locator("circle").evaluateAll((cs) => cs.map((c) => Number(c.getAttribute("cy"))));
    expect(ys[0]).toBeLessThan(ys[2]);
    // H1's report exists: its point opens it.
    await passPoints.first().click();
    await page.waitForURL(/index\.html$/);
    expect(await page.locator("h1 .run-id").textContent()).toBe("H1");
    // H2 has no report yet: its point leads to its row in the runs table.
    await page.goBack();
    expect(await passPoints.nth(1).getAttribute("href")).toBe("#run-H2");
    expect(await page.locator("#run-H2").textContent()).toContain("umpire report H2");
    expect(requests.every((u) => u.startsWith("file:"))).toBe(true);
    expect(problems).toEqual([]);
  });
});
