/**
 * A run of many short trials of umpire's own loop through the real CLI (the reference model on umpire's
 * test pack, examples/miniwob-mini/html; never MiniWoB's files), issue 42 §3:
 * - it records the CPU its trials spent, umpire and every process it started: in the store, `run --json`,
 *   `show` (beside time per step and cost per success), `show --json` and the HTML report's header; the
 *   figure is above zero, counts the browser's processes, and stays under what the machine's cores could
 *   have run in the trials' wall time;
 * - each trial stops listening on the run's signal when it ends: more trials than Node's listener limit
 *   (10) print no MaxListenersExceededWarning (each trial's deadline used to leave its listener behind).
 */
import { availableParallelism } from "node:os";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli, type CliResult } from "../../support/cli.js";
import { scratch } from "../security/support.js";

const s = scratch("miniwob-cpu");
afterAll(() => s.cleanup());
const PACK_DIR = join(REPO_ROOT, "examples/miniwob-mini/html");
const db = join(s.dir, "umpire.db");

interface CpuJson {
  seconds: number | null;
  perTrialMeanSeconds: number | null;
  trials: number;
  wallSeconds: number | null;
  processes: number | null;
  notMeasured: string | null;
}

let run: CliResult;
let json: { runId: string; cpu: CpuJson; trials: unknown[] };

beforeAll(async () => {
  run = await runCli(
    [
      "run",
      "--pack",
      "miniwob",
      "--pack-dir",
      PACK_DIR,
      "--model",
      "reference",
      "--mode",
      "structured",
      "--repeat",
      "3",
      "--concurrency",
      "2",
      "--no-sandbox",
      "--db",
      db,
      "--out",
      join(s.dir, "runs"),
      "--reporter",
      `html:${join(s.dir, "report")}`,
      "--json",
    ],
    { env: { MINIWOB_DIR: "" } },
  );
  json = JSON.parse(run.stdout);
}, 300_000);

describe("a run of many short trials", () => {
  it("prints no MaxListenersExceededWarning: no trial leaves a listener on the run's signal", () => {
    expect(json.trials.length).toBeGreaterThan(10);
    expect(run.stderr).not.toContain("MaxListenersExceededWarning");
    expect(run.stderr).not.toContain("memory leak");
  });

  it("stores its trials' CPU, plausibly, and shows it in run --json, show, show --json and the HTML report", async () => {
    const cpu = json.cpu;
    expect(cpu.notMeasured).toBeNull();
    expect(cpu.trials).toBe(json.trials.length);
    expect(cpu.seconds).toBeGreaterThan(0);
    // umpire's node, the browser and its renderers: more than umpire alone.
    expect(cpu.processes).toBeGreaterThan(2);
    // No more than every core busy for the whole span (plus a tick per process of rounding).
    expect(cpu.seconds!).toBeLessThanOrEqual(cpu.wallSeconds! * availableParallelism() + cpu.processes! * 0.01);
    expect(cpu.perTrialMeanSeconds).toBeCloseTo(cpu.seconds! / cpu.trials, 2);

    const shown = await runCli(["show", json.runId, "--db", db, "--json"]);
    expect(JSON.parse(shown.stdout).cpu).toEqual(cpu);
    const text = await runCli(["show", json.runId, "--db", db]);
    expect(text.stdout).toMatch(/^reference · structured: \d+\/\d+ passed, cost per success .*, time per step /m);
    expect(text.stdout).toMatch(new RegExp(`^CPU per episode .* \\(a mean: .* CPU over ${cpu.trials} trials in `, "m"));
    const html = readFileSync(join(s.dir, "report", "index.html"), "utf8");
    expect(html).toMatch(/<p class="run-meta" id="run-cpu">CPU per episode [\d.]+ m?s \(a mean:/);
  });
});
