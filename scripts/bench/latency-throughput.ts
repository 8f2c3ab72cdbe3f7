/**
 * Throughput against a realistic model: the reference model's `latency` profile (2 s a turn with
 * deterministic jitter), through the real runner, at fixed concurrency 1, 4, 8, 16 and adaptive.
 * Each level reports suite wall time, trials/min, the cores umpire + Chromium kept busy (process
 * CPU time / wall), PSS per trial in flight and the 429 count; the figures are ratios against
 * concurrency 1 and against the best fixed level, all measured in the same run.
 */
import { ratio, round } from "./stats.js";
import { benchThroughput, type ThroughputBench } from "./throughput.js";
import type { BenchWorld } from "./world.js";

export const LATENCY_MODEL = "reference:latency";
export const TURN_LATENCY_MS = 2_000;

/** Full: 4 tasks x 2 modes x 4 repeats = 32 trials a level (enough to keep 16 busy); quick: 4 short trials. */
export const LATENCY_SETS = {
  full: {
    tasks: ["answer-only-bb042", "compare-bb007-bb031", "scorecard-note-bb042", "trap-date-bb042"],
    repeat: 4,
    concurrencies: [1, 4, 8, 16, "adaptive"] as (number | "adaptive")[],
  },
  quick: { tasks: ["answer-only-bb042"], repeat: 2, concurrencies: [1, 4, "adaptive"] as (number | "adaptive")[] },
};

export interface LatencyBench extends ThroughputBench {
  /** trials/min at 16 over trials/min at 1 (aim >= 10x); NaN when 16 was not run (quick). */
  speedup1to16: number;
  /** The fixed level with the most trials/min. */
  bestFixed: { concurrency: number; trialsPerMinute: number } | null;
  /** adaptive trials/min over the best fixed level's (aim >= 0.9). */
  adaptiveVsBest: number;
}

export async function benchLatencyThroughput(
  world: BenchWorld,
  set: (typeof LATENCY_SETS)["full"],
): Promise<LatencyBench> {
  const result = await benchThroughput(world, {
    tasks: set.tasks,
    repeat: set.repeat,
    latencyMs: TURN_LATENCY_MS,
    concurrencies: set.concurrencies,
    model: LATENCY_MODEL,
  });
  const perMinute = (c: number | "adaptive") =>
    result.runs.find((r) => r.concurrency === c)?.trialsPerMinute ?? Number.NaN;
  const fixed = result.runs.filter((r): r is typeof r & { concurrency: number } => typeof r.concurrency === "number");
  const best = fixed.reduce<(typeof fixed)[number] | null>(
    (b, r) => (!b || r.trialsPerMinute > b.trialsPerMinute ? r : b),
    null,
  );
  return {
    ...result,
    speedup1to16: ratio(perMinute(16), perMinute(1)),
    bestFixed: best ? { concurrency: best.concurrency, trialsPerMinute: round(best.trialsPerMinute, 2) } : null,
    adaptiveVsBest: best ? ratio(perMinute("adaptive"), best.trialsPerMinute) : Number.NaN,
  };
}
