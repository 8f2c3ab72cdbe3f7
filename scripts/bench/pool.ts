/**
 * A stateful app on a pool of instances: the same trials through the real CLI on one copy of the
 * app (one trial at a time, as `isolated: false` must) and on N copies (N at once), each turn of the
 * reference model taking 2 s. The app is test/integration/targets/pool-app/app.mjs: one server
 * process holding its items in memory, reset over HTTP per trial. Reports the speed-up of the suite's
 * wall time, the reset time per trial and the resident memory of one copy (the CLI's own target
 * notes, read from its --json output).
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { PoolReport } from "../../src/target/instance-pool.js";

const exec = promisify(execFile);

export interface PoolSide {
  instances: number;
  wallMs: number;
  passed: number;
  trials: number;
  resetMsPerTrial: number;
  waitedMsPerTrial: number;
  peak: number;
  memoryMbPerInstance: number | null;
}

export interface PoolBench {
  turnLatencyMs: number;
  one: PoolSide;
  many: PoolSide;
  /** Wall time on one instance / on N. */
  speedup: number;
}

const TASK = `
id: add-one
title: Add one item
target: pool
instruction: Add one item.
tools: [click, answer]
checks:
  - { kind: http, name: exactly one item, url: /api/items, json: [{ path: "", length: 1 }] }
reference:
  - { tool: click, target: add }
  - { tool: answer, args: { content: Added } }
`;

async function side(root: string, instances: number, trials: number, turnLatencyMs: number): Promise<PoolSide> {
  const dir = mkdtempSync(join(tmpdir(), "umpire-bench-pool-"));
  try {
    mkdirSync(join(dir, "tasks"));
    writeFileSync(join(dir, "tasks", "add-one.yaml"), TASK);
    const app = join(root, "test/integration/targets/pool-app/app.mjs");
    writeFileSync(
      join(dir, "umpire.config.yaml"),
      `targets:\n  pool:\n    baseUrl: http://127.0.0.1:\${PORT}\n    start: { command: [node, ${JSON.stringify(app)}] }\n    reset: { kind: http, url: /reset }\n    instances: ${instances}\n`,
    );
    const args = ["run", "tasks", "--mode", "structured", "--repeat", String(trials), "--concurrency", String(instances), "--json", "--db", join(dir, "u.db"), "--out", join(dir, "out")];
    const env = { ...process.env, UMPIRE_REFERENCE_LATENCY_MS: String(turnLatencyMs) };
    const started = performance.now();
    const { stdout } = await exec("node", [join(root, "bin/umpire.js"), ...args], { cwd: dir, env, maxBuffer: 100_000_000 }).catch((e: { stdout: string; stderr: string }) => {
      if (!e.stdout) throw new Error(`the pool run failed: ${e.stderr}`);
      return e;
    });
    const wallMs = performance.now() - started;
    const body = JSON.parse(stdout) as { trials: { verdict: string }[]; targets?: PoolReport[] };
    const pool = body.targets?.find((t) => t.target === "pool");
    if (!pool) throw new Error("the run's JSON has no target notes for the pool");
    return {
      instances,
      wallMs: Math.round(wallMs),
      passed: body.trials.filter((t) => t.verdict === "passed").length,
      trials: body.trials.length,
      resetMsPerTrial: Math.round((pool.resetMs / Math.max(1, pool.resets)) * 10) / 10,
      waitedMsPerTrial: Math.round(pool.waitedMs / Math.max(1, pool.trials)),
      peak: pool.peak,
      memoryMbPerInstance: pool.memoryBytes ? Math.round(pool.memoryBytes / (1024 * 1024)) : null,
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchPool(root: string, options: { instances: number; trials: number; turnLatencyMs: number }): Promise<PoolBench> {
  const one = await side(root, 1, options.trials, options.turnLatencyMs);
  const many = await side(root, options.instances, options.trials, options.turnLatencyMs);
  return { turnLatencyMs: options.turnLatencyMs, one, many, speedup: Math.round((one.wallMs / many.wallMs) * 100) / 100 };
}
