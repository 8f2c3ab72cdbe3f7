/**
 * A stateful app on a pool of instances: the TiddlyWiki example's tasks (examples/tiddlywiki, a real
 * wiki server from npm keeping its tiddlers in a folder and in memory, reset by restoring the folder
 * from a seed copy and restarting the server) run through the real CLI as a user runs them, on one
 * copy of the app (concurrency 1: `instances: auto` starts one, one trial at a time) and on N copies
 * (concurrency N: auto starts N, N trials at once), each model turn taking 2 s (the reference model's
 * `latency` profile). Reports the speed-up of the suite's wall time, each trial's reset time, the
 * resident memory of one copy (the CLI's own target notes and trial metrics, read from its --json
 * output) and how busy the machine was meanwhile: on a shared machine the CPU, not the pool, bounds it.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { PoolReport } from "../../src/targets/instance-pool.js";
import { machineUsageSince, snapshotMachine, type MachineUsage } from "./machine-load.js";

const exec = promisify(execFile);

/** The example the bench runs, and the target its config declares. */
export const POOL_EXAMPLE = { tasks: "examples/tiddlywiki/tasks", target: "tiddlywiki" } as const;

export interface PoolSide {
  /** Copies of the app `instances: auto` started for this concurrency. */
  instances: number;
  wallMs: number;
  passed: number;
  trials: number;
  /** Why each trial that did not pass ended so ("environment_error: page.goto: Timeout 15000ms exceeded." x6). */
  notPassed: Record<string, number>;
  /** Mean reset (restore the wiki folder + restart the server) per trial, from the target notes. */
  resetMsPerTrial: number;
  /** Each trial's reset, in trial order (metrics.target.resetMs). */
  resetMsByTrial: number[];
  waitedMsPerTrial: number;
  peak: number;
  memoryMbPerInstance: number | null;
  /** How sized: `auto: concurrency N; half of ... free at ... per instance holds ...`. */
  sizedBy: string | null;
  /** Cores the whole machine kept busy while this side ran (every process, not only ours). */
  machine: MachineUsage;
}

export interface PoolBench {
  app: string;
  turnLatencyMs: number;
  one: PoolSide;
  many: PoolSide;
  /** Wall time on one instance / on N. */
  speedup: number;
  /** Whether the speed-up compares like with like: every trial passed on both sides (errors end trials early). */
  comparable: boolean;
}

interface RunJson {
  trials: {
    verdict: string;
    stopReason: string | null;
    error: string | null;
    stopDetail: string | null;
    metrics?: { target?: { resetMs?: number } };
  }[];
  targets?: PoolReport[];
}

async function side(root: string, concurrency: number, repeat: number, turnLatencyMs: number): Promise<PoolSide> {
  const dir = mkdtempSync(join(tmpdir(), "umpire-bench-pool-"));
  try {
    const args = [
      join(root, "bin/umpire.js"),
      "run",
      POOL_EXAMPLE.tasks,
      "--model",
      "reference:latency",
      "--mode",
      "structured",
      "--repeat",
      String(repeat),
      "--concurrency",
      String(concurrency),
      "--json",
      "--db",
      join(dir, "u.db"),
      "--out",
      join(dir, "out"),
    ];
    const env = { ...process.env, UMPIRE_REFERENCE_LATENCY_MS: String(turnLatencyMs) };
    const since = snapshotMachine();
    const started = performance.now();
    const { stdout } = await exec("node", args, { cwd: root, env, maxBuffer: 100_000_000 }).catch(
      (e: { stdout: string; stderr: string }) => {
        if (!e.stdout) throw new Error(`the pool run failed: ${e.stderr}`);
        return e;
      },
    );
    const wallMs = performance.now() - started;
    const machine = machineUsageSince(since);
    const body = JSON.parse(stdout) as RunJson;
    const pool = body.targets?.find((t) => t.target === POOL_EXAMPLE.target);
    if (!pool) throw new Error(`the run's JSON has no target notes for ${POOL_EXAMPLE.target}`);
    return {
      instances: pool.instances,
      wallMs: Math.round(wallMs),
      passed: body.trials.filter((t) => t.verdict === "passed").length,
      trials: body.trials.length,
      notPassed: tally(
        body.trials
          .filter((t) => t.verdict !== "passed")
          .map((t) => `${t.stopReason}: ${t.error ?? t.stopDetail ?? ""}`.slice(0, 160)),
      ),
      resetMsPerTrial: Math.round((pool.resetMs / Math.max(1, pool.resets)) * 10) / 10,
      resetMsByTrial: body.trials
        .map((t) => t.metrics?.target?.resetMs)
        .filter((ms): ms is number => typeof ms === "number"),
      waitedMsPerTrial: Math.round(pool.waitedMs / Math.max(1, pool.trials)),
      peak: pool.peak,
      memoryMbPerInstance: pool.memoryBytes ? Math.round(pool.memoryBytes / (1024 * 1024)) : null,
      sizedBy: pool.sizedBy ?? null,
      machine,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const tally = (items: string[]): Record<string, number> => {
  const counts: Record<string, number> = {};
  for (const item of items) counts[item] = (counts[item] ?? 0) + 1;
  return counts;
};

/** The example's tasks `repeat` times each, on one instance and then on `instances`. */
export async function benchPool(
  root: string,
  options: { instances: number; repeat: number; turnLatencyMs: number },
): Promise<PoolBench> {
  const one = await side(root, 1, options.repeat, options.turnLatencyMs);
  const many = await side(root, options.instances, options.repeat, options.turnLatencyMs);
  const speedup = Math.round((one.wallMs / many.wallMs) * 100) / 100;
  const comparable = one.passed === one.trials && many.passed === many.trials;
  return {
    app: "TiddlyWiki 5.4.1 (examples/tiddlywiki)",
    turnLatencyMs: options.turnLatencyMs,
    one,
    many,
    speedup,
    comparable,
  };
}
