/**
 * Throughput at concurrency 1, 2 and 4 with a fixed simulated model latency (the reference
 * model's `slow` profile, started with `latencyMs`), on a fixed set of trials run through
 * executeTrials; and, sampled during the same runs, the peak memory of this process plus its
 * Chromium, per concurrent trial, and the CPU the whole tree used (on a 2-core machine the CPU
 * is what caps the speed-up once the model's latency is hidden).
 */
import { availableParallelism } from "node:os";
import type { Task } from "../../src/task/schema.js";
import { machineUsageSince, snapshotMachine, type MachineUsage } from "./machine-load.js";
import { readTreeCpu, readTreeMemory, sampleTree, supported } from "./process-tree.js";
import { median, ratio, round } from "./stats.js";
import type { BenchWorld } from "./world.js";
import { describeConcurrency } from "../../src/runner/schedule/concurrency-gate.js";

export interface ConcurrencyResult {
  /** Trials allowed in flight: pinned, or "adaptive" (the run's gate decided; see `adaptive`). */
  concurrency: number | "adaptive";
  /** Adaptive runs: per endpoint, the concurrency used and why it stopped rising. */
  adaptive?: { endpoint: string; used: string }[];
  /** 429 answers the reference model's rate limit gave during the run (0 without a limit). */
  rateLimited: number;
  trials: number;
  passed: number;
  wallMs: number;
  trialsPerMinute: number;
  /** Sum of the trials' own wall times / the run's wall time: how many ran at once on average. */
  effectiveParallelism: number;
  medianTrialWallMs: number;
  turns: number;
  /** CPU seconds used by this process and its Chromium during the run, and as cores kept busy. */
  cpuSeconds: number;
  coresBusy: number;
  /** CPU seconds per trial: Node (harness + in-process fixture site and model) and Chromium. */
  cpuPerTrial: { node: number; browser: number };
  /** CPU seconds per trial by kind of process (node, browser, renderer, gpu-process, utility:...). */
  cpuPerTrialByKind: Record<string, number>;
  /** cores / CPU seconds per trial: the trials per minute this machine could reach if CPU were the only limit. */
  cpuBoundTrialsPerMinute: number;
  /** Every process on the machine during the run: how much of the CPU others took. */
  machine: MachineUsage;
  /** Time the /proc sampler itself took, and its CPU (taken out of the node CPU figures above: it is the bench's cost). */
  samplerMs: number;
  samplerCpuSeconds: number;
  memory: {
    idleRssMb: number;
    peakRssMb: number;
    idlePssMb: number;
    peakPssMb: number;
    perTrialRssMb: number;
    perTrialPssMb: number;
    maxProcesses: number;
  } | null;
}

export interface ThroughputBench {
  model: string;
  latencyMs: number;
  mode: string;
  tasks: string[];
  repeat: number;
  cores: number;
  runs: ConcurrencyResult[];
  /** wall(1) / wall(4). */
  speedup1to4: number;
  speedup1to2: number;
}

/** Both modes of each task: 8 trials in full mode, and 2 repeats x 2 modes of a short task in quick mode. */
export const THROUGHPUT_SETS = {
  full: { tasks: ["answer-only-bb042", "compare-bb007-bb031", "scorecard-note-bb042", "trap-date-bb042"], repeat: 1 },
  quick: { tasks: ["answer-only-bb042"], repeat: 2 },
};

async function idleMemory(ms: number): Promise<{ rss: number; pss: number }> {
  const rss: number[] = [];
  const pss: number[] = [];
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const r = readTreeMemory();
    rss.push(r.rssMb);
    pss.push(r.pssMb);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { rss: median(rss), pss: median(pss) };
}

/** The adaptive ceiling the benchmark gives the gate (as --max-concurrency would). */
export const BENCH_ADAPTIVE_MAX = 16;

export async function benchThroughput(
  world: BenchWorld,
  options: {
    tasks: string[];
    repeat: number;
    latencyMs: number;
    concurrencies: (number | "adaptive")[];
    model?: string;
  },
): Promise<ThroughputBench> {
  const tasks: Task[] = options.tasks.map((id) => world.task(id));
  const model = options.model ?? "reference:slow";
  const mode = "both";
  const runs: ConcurrencyResult[] = [];
  for (const concurrency of options.concurrencies) {
    // Let the previous run's contexts and renderers go before measuring the idle level.
    await new Promise((r) => setTimeout(r, 1_000));
    const idle = supported() ? await idleMemory(1_000) : null;
    // Once a second: at 200 ms the sampler's own /proc reading was 60% of the node CPU at concurrency 1.
    const sampler = supported() ? sampleTree(1_000) : null;
    const cpuBefore = supported() ? readTreeCpu() : null;
    const machineBefore = snapshotMachine();
    const limitedBefore = world.runtime.model.rateLimited();
    // Adaptive: the embedded endpoint starts where a pinned run would (the cores) and rises from there.
    const run = await world.run(
      concurrency === "adaptive"
        ? {
            tasks,
            model,
            mode,
            concurrency: availableParallelism(),
            adaptiveMax: BENCH_ADAPTIVE_MAX,
            repeat: options.repeat,
          }
        : { tasks, model, mode, concurrency, repeat: options.repeat },
    );
    const rateLimited = world.runtime.model.rateLimited() - limitedBefore;
    const machine = machineUsageSince(machineBefore);
    const cpuAfter = supported() ? readTreeCpu() : null;
    const peak = sampler?.stop();
    const samplerCpu = peak?.samplerCpuSeconds ?? 0;
    const cpu =
      cpuBefore && cpuAfter
        ? {
            node: Math.max(0, cpuAfter.nodeSeconds - cpuBefore.nodeSeconds - samplerCpu),
            browser: cpuAfter.browserSeconds - cpuBefore.browserSeconds,
          }
        : { node: Number.NaN, browser: Number.NaN };
    const cpuSeconds = cpu.node + cpu.browser;
    const ends = run.result.ends;
    const trialWall = ends.map((e) => e.wallMs);
    const inFlight =
      concurrency === "adaptive" ? Math.max(1, ...(run.result.concurrency ?? []).map((e) => e.peak)) : concurrency;
    runs.push({
      concurrency,
      ...(concurrency === "adaptive"
        ? {
            adaptive: (run.result.concurrency ?? []).map((e) => ({
              endpoint: e.endpoint,
              used: describeConcurrency([e]).join("; "),
            })),
          }
        : {}),
      rateLimited,
      trials: ends.length,
      passed: ends.filter((e) => e.verdict === "passed").length,
      wallMs: round(run.wallMs),
      trialsPerMinute: round((ends.length / run.wallMs) * 60_000, 2),
      effectiveParallelism: round(trialWall.reduce((a, b) => a + b, 0) / run.wallMs, 2),
      medianTrialWallMs: round(median(trialWall)),
      turns: ends.reduce((a, e) => a + e.turns, 0),
      cpuSeconds: round(cpuSeconds, 2),
      coresBusy: round(cpuSeconds / (run.wallMs / 1000), 2),
      cpuPerTrial: { node: round(cpu.node / ends.length, 2), browser: round(cpu.browser / ends.length, 2) },
      samplerMs: round(peak?.samplerMs ?? 0),
      samplerCpuSeconds: round(samplerCpu, 2),
      cpuPerTrialByKind: Object.fromEntries(
        Object.entries(peak?.cpuSecondsByKind ?? {}).map(([k, v]) => [k, round(v / ends.length, 2)]),
      ),
      cpuBoundTrialsPerMinute: round((availableParallelism() / (cpuSeconds / ends.length)) * 60, 1),
      machine,
      memory:
        idle && peak
          ? {
              idleRssMb: round(idle.rss),
              peakRssMb: round(peak.peakRssMb),
              idlePssMb: round(idle.pss),
              peakPssMb: round(peak.peakPssMb),
              perTrialRssMb: round((peak.peakRssMb - idle.rss) / inFlight),
              perTrialPssMb: round((peak.peakPssMb - idle.pss) / inFlight),
              maxProcesses: peak.maxProcesses,
            }
          : null,
    });
  }
  const wallAt = (c: number) => runs.find((r) => r.concurrency === c)?.wallMs ?? Number.NaN;
  return {
    model,
    latencyMs: options.latencyMs,
    mode,
    tasks: options.tasks,
    repeat: options.repeat,
    cores: availableParallelism(),
    runs,
    speedup1to4: ratio(wallAt(1), wallAt(4)),
    speedup1to2: ratio(wallAt(1), wallAt(2)),
  };
}
