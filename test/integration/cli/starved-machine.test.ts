/**
 * A starved machine is nobody's failure: gold trials of the fixture suite, run through the real CLI
 * (default adaptive concurrency) beside more CPU-bound processes than the machine has cores, end
 * passed or error (infrastructure, retried), never failed. An error names its cause in its stop
 * detail ("machine starved: the settle wait ran out ...").
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";

const ROOT = join(__dirname, "../../..");
const TASKS = ["scorecard-note-bb042", "slow-save-note-bb042", "lazy-note-bb042"];
let dir: string;
const hogs: ChildProcess[] = [];

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-starved-"));
  // Every core busy and then some: the trials compete for what is left.
  for (let i = 0; i < availableParallelism() + 2; i++)
    hogs.push(spawn(process.execPath, ["-e", "for(;;){}"], { stdio: "ignore" }));
});
afterAll(() => {
  for (const hog of hogs) hog.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

it("gold trials beside CPU-bound processes end passed or error, never failed", async () => {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = "";
  let err = "";
  stdout.on("data", (c) => (out += c));
  stderr.on("data", (c) => (err += c));
  const io = { stdout, stderr, env: {}, cwd: ROOT, signal: new AbortController().signal };
  const args = [
    "run",
    ...TASKS,
    "--mode",
    "structured",
    "--repeat",
    "2",
    "--json",
    "--db",
    join(dir, "umpire.db"),
    "--out",
    join(dir, "runs"),
  ];
  await main(args, io);
  const body = JSON.parse(out) as {
    trials: { task: string; verdict: string; stopDetail?: string; error?: string | null }[];
  };
  expect(body.trials.length, err).toBeGreaterThanOrEqual(TASKS.length * 2);
  const failed = body.trials.filter((t) => t.verdict === "failed");
  expect(failed, JSON.stringify(failed, null, 2)).toEqual([]);
  for (const trial of body.trials) expect(["passed", "error"]).toContain(trial.verdict);
}, 1_500_000);
