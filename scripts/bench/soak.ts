/**
 * `npm run bench -- --soak`: many trials (500 at concurrency 8) on the reference model's
 * `latency` profile, sampling memory and open handles as trials end, to show nothing grows
 * without bound. After a warm-up (the first fifth of the trials) and before the drain (the last
 * `concurrency` trials, when fewer run at once), each series gets a least-
 * squares slope per 100 trials and, as the ratio the bench reports, that growth over the
 * series' own level after warm-up (measured in the same run). Never part of the test suite.
 *
 * Handles sampled: the browser's open contexts; the listeners on `process`; Node's active
 * resources (timers, sockets, handles: process.getActiveResourcesInfo); sockets and all file
 * descriptors of this process (/proc/self/fd).
 */
import { readdirSync, readlinkSync } from "node:fs";
import type { Task } from "../../src/task/schema.js";
import { machineUsageSince, snapshotMachine, type MachineUsage } from "./machine-load.js";
import { readTreeMemory, supported } from "./process-tree.js";
import { round } from "./stats.js";
import { LATENCY_MODEL } from "./latency-throughput.js";
import type { BenchWorld } from "./world.js";

export interface SoakSample {
  trialsDone: number;
  pssMb: number;
  rssMb: number;
  contexts: number;
  processListeners: number;
  activeResources: number;
  sockets: number;
  fds: number;
}

export type SoakSeries = Exclude<keyof SoakSample, "trialsDone">;
export const SOAK_SERIES: SoakSeries[] = [
  "pssMb",
  "rssMb",
  "contexts",
  "processListeners",
  "activeResources",
  "sockets",
  "fds",
];

export interface SoakBench {
  model: string;
  trials: number;
  concurrency: number;
  passed: number;
  wallMs: number;
  warmupTrials: number;
  samples: SoakSample[];
  /** Per series, after warm-up: growth per 100 trials, the level at the end of warm-up, and growth / level. */
  slopes: Record<SoakSeries, { per100Trials: number; level: number; relativePer100: number }>;
  machine: MachineUsage;
}

export const SOAK_SIZES = { full: { trials: 500, concurrency: 8 }, quick: { trials: 24, concurrency: 8 } };
const SOAK_TASKS = ["answer-only-bb042", "compare-bb007-bb031", "scorecard-note-bb042", "trap-date-bb042"];

/** Least-squares slope of y over x. */
export function slope(points: readonly { x: number; y: number }[]): number {
  if (points.length < 2) return Number.NaN;
  const mx = points.reduce((a, p) => a + p.x, 0) / points.length;
  const my = points.reduce((a, p) => a + p.y, 0) / points.length;
  const sxx = points.reduce((a, p) => a + (p.x - mx) ** 2, 0);
  const sxy = points.reduce((a, p) => a + (p.x - mx) * (p.y - my), 0);
  return sxx === 0 ? Number.NaN : sxy / sxx;
}

function fdCounts(): { fds: number; sockets: number } {
  try {
    const fds = readdirSync("/proc/self/fd");
    let sockets = 0;
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/self/fd/${fd}`).startsWith("socket:")) sockets++;
      } catch {
        // closed between listing and reading
      }
    }
    return { fds: fds.length, sockets };
  } catch {
    return { fds: Number.NaN, sockets: Number.NaN };
  }
}

function sample(world: BenchWorld, trialsDone: number): SoakSample {
  const memory = supported() ? readTreeMemory() : { pssMb: Number.NaN, rssMb: Number.NaN };
  const { fds, sockets } = fdCounts();
  return {
    trialsDone,
    pssMb: round(memory.pssMb),
    rssMb: round(memory.rssMb),
    contexts: world.browser.contexts().length,
    processListeners: process.eventNames().reduce((a, name) => a + process.listenerCount(name), 0),
    activeResources: process.getActiveResourcesInfo().length,
    sockets,
    fds,
  };
}

export async function benchSoak(
  world: BenchWorld,
  size: { trials: number; concurrency: number },
  log: (line: string) => void = () => undefined,
): Promise<SoakBench> {
  const tasks: Task[] = SOAK_TASKS.map((id) => world.task(id));
  // Both modes of each task: 8 trials per repeat.
  const repeat = Math.max(1, Math.ceil(size.trials / (tasks.length * 2)));
  const every = Math.max(1, Math.floor(size.trials / 50));
  const samples: SoakSample[] = [sample(world, 0)];
  let done = 0;
  const machine = snapshotMachine();
  const started = performance.now();
  const run = await world.run({
    tasks,
    model: LATENCY_MODEL,
    mode: "both",
    repeat,
    concurrency: size.concurrency,
    reporters: [
      {
        onTrialEnd() {
          done += 1;
          if (done % every === 0) samples.push(sample(world, done));
          if (done % 50 === 0) log(`bench: soak ${done} trials done`);
        },
      },
    ],
  });
  const wallMs = performance.now() - started;
  // Let the last contexts close before the final reading.
  await new Promise((r) => setTimeout(r, 1_000));
  samples.push(sample(world, done));
  const warmupTrials = Math.max(every, Math.round(done / 5));
  // Only while the pool is full: once fewer trials remain than the concurrency, contexts, sockets
  // and memory drain on purpose, and the final reading (after the run) is kept for the record only.
  const steadyEnd = done - size.concurrency;
  const after = samples.slice(0, -1).filter((s) => s.trialsDone >= warmupTrials && s.trialsDone <= steadyEnd);
  const slopes = Object.fromEntries(
    SOAK_SERIES.map((key) => {
      const perTrial = slope(after.map((s) => ({ x: s.trialsDone, y: s[key] })));
      const level = after[0]?.[key] ?? Number.NaN;
      const per100 = perTrial * 100;
      return [
        key,
        { per100Trials: round(per100, 2), level, relativePer100: level ? round(per100 / level, 4) : Number.NaN },
      ];
    }),
  ) as SoakBench["slopes"];
  return {
    model: LATENCY_MODEL,
    trials: run.result.ends.length,
    concurrency: size.concurrency,
    passed: run.result.ends.filter((e) => e.verdict === "passed").length,
    wallMs: round(wallMs),
    warmupTrials,
    samples,
    slopes,
    machine: machineUsageSince(machine),
  };
}
