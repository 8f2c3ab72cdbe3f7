/**
 * The run's CPU reading (issue 42): umpire's process and its descendants, from /proc. Real processes:
 * a child that burns CPU is in the tree while it lives and in this process's `cutime` once it has
 * ended and been waited for; a process outside the tree is never counted. Where /proc is missing the
 * reading says "not measured", and a store adds a resumed session's CPU to the run's.
 */
import { spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { parseStat, readTreeCpu, startCpuSpan, type TreeCpu } from "../../../src/runtime/process-cpu.js";
import { openStore } from "../../../src/store/open.js";
import { cpuJson, cpuLine } from "../../../src/report/run-cpu.js";
import { tempDir } from "../store/fixtures.js";

const seconds = (r: TreeCpu) => ("seconds" in r ? r.seconds : Number.NaN);
/** A child that burns about `ms` of CPU, prints what it used (its own count), then waits for stdin to close. */
const BURN = `while(process.cpuUsage().user<process.argv[1]*1000);const u=process.cpuUsage();
process.stdout.write(String((u.user+u.system)/1e6)+"\\n");process.stdin.resume();process.stdin.on("end",()=>process.exit(0));`;

function burn(ms: number) {
  const child = spawn(process.execPath, ["-e", BURN, String(ms)], { stdio: ["pipe", "pipe", "inherit"] });
  const used = new Promise<number>((resolve) => child.stdout.once("data", (d) => resolve(Number(String(d)))));
  const ended = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  return { child, used, end: () => (child.stdin.end(), ended) };
}

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

describe("the process tree's CPU", () => {
  it("reads a command name with spaces and parentheses, and refuses a truncated line", () => {
    const line = "4242 (Web Content (x) y) S 17 4242 4242 0 -1 4194560 1 0 0 0 250 50 30 20 20 0 1 0 9 0 0";
    expect(parseStat(line)).toEqual({ ppid: 17, ticks: 250 + 50 + 30 + 20 });
    expect(parseStat("4242 (x) S 17 4242")).toBeUndefined();
  });

  it("sums the root and its descendants only, from a /proc-shaped folder", () => {
    const proc = join(dir, "proc");
    const stat = (pid: number, ppid: number, u: number, s: number, cu: number, cs: number) => {
      mkdirSync(join(proc, String(pid)), { recursive: true });
      writeFileSync(
        join(proc, String(pid), "stat"),
        `${pid} (p ${pid}) S ${ppid} 0 0 0 -1 0 0 0 0 0 ${u} ${s} ${cu} ${cs} 20 0 1 0`,
      );
    };
    stat(10, 1, 100, 50, 0, 0); // root
    stat(11, 10, 200, 0, 40, 10); // its browser, with a reaped renderer in cutime/cstime
    stat(12, 11, 30, 20, 0, 0); // a live renderer
    stat(13, 1, 999, 999, 999, 999); // someone else's
    expect(readTreeCpu(10, proc)).toEqual({ seconds: 4.5, processes: 3 });
    expect(readTreeCpu(99, proc)).toMatchObject({ notMeasured: expect.stringContaining("99/stat cannot be read") });
  });

  it("says not measured, never 0, where /proc is missing", () => {
    const span = startCpuSpan(() => readTreeCpu(process.pid, join(dir, "no-proc")));
    expect(span.end(3)).toMatchObject({ seconds: null, trials: 3, notMeasured: expect.stringContaining("Linux only") });
  });

  it("counts a live child (Linux: /proc, as in CI) while it runs and keeps it once it has ended and been waited for", async () => {
    const before = seconds(readTreeCpu());
    const child = burn(400);
    const used = await child.used;
    expect(used).toBeGreaterThanOrEqual(0.4);
    const live = seconds(readTreeCpu());
    // One tick of rounding per process read.
    expect(live - before).toBeGreaterThanOrEqual(used - 0.03);
    await child.end();
    expect(seconds(readTreeCpu()) - before).toBeGreaterThanOrEqual(used - 0.03);
  });
});

describe("a run's stored CPU", () => {
  it("adds a resumed session's CPU, keeps not measured apart, and reports the mean per trial", () => {
    const store = openStore(join(dir, "umpire.db"));
    try {
      const run = store.createRun({ umpireVersion: "test" });
      expect(cpuJson(store.getRun(run.id))).toMatchObject({ seconds: null, notMeasured: "not recorded for this run" });
      store.addRunCpu(run.id, { seconds: 6, trials: 4, wallSeconds: 10, processes: 9, notMeasured: null });
      store.addRunCpu(run.id, { seconds: 3, trials: 2, wallSeconds: 5, processes: 7, notMeasured: null });
      expect(cpuJson(store.getRun(run.id))).toEqual({
        seconds: 9,
        perTrialMeanSeconds: 1.5,
        trials: 6,
        wallSeconds: 15,
        processes: 7,
        notMeasured: null,
      });
      expect(cpuLine(store.getRun(run.id))).toMatch(/^CPU per episode 1\.5 s \(a mean: 9\.0 s CPU over 6 trials/);
      store.addRunCpu(run.id, { seconds: null, trials: 1, wallSeconds: 1, processes: null, notMeasured: "no /proc" });
      expect(cpuLine(store.getRun(run.id))).toContain("a resumed session was not measured: no /proc");

      const never = store.createRun({ umpireVersion: "test" });
      store.addRunCpu(never.id, { seconds: null, trials: 2, wallSeconds: 3, processes: null, notMeasured: "no /proc" });
      expect(cpuJson(store.getRun(never.id))).toMatchObject({ seconds: null, perTrialMeanSeconds: null, trials: 2 });
      expect(cpuLine(store.getRun(never.id))).toBe("CPU per episode: not measured (no /proc)");
    } finally {
      store.close();
    }
  });
});
