/**
 * `npm run bench`: umpire's performance figures, each against a baseline measured in the same
 * run, printed as a table and written to results/bench.json. Not a test: figures depend on the
 * machine and on whatever else runs on it (the machine's load is printed beside them).
 *
 *   npm run bench                          all benchmarks (~10 min on 2 cores)
 *   npm run bench -- --quick               smaller samples (~2-3 min)
 *   npm run bench -- --only step,setup     just those
 *   npm run bench -- --soak                only the soak (500 trials at concurrency 8, ~45 min)
 *   npm run bench -- --only gold           every bundled gold trajectory at concurrency 1/2/4, quiet and loaded
 *
 * The benchmarks: CLI start-up vs `node -e 0` (startup), per-step harness time vs a bare Playwright
 * loop (step), trial set-up vs a bare newContext + newPage + goto (setup), throughput at concurrency 1/2/4 with 500 ms model latency
 * and peak memory per concurrent trial (throughput), the repetition detector's cost per step
 * (detector, scripts/bench-repetition.ts), the capture's old path vs CDP optimizeForSpeed (capture),
 * trials/min at 2 s model latency for concurrency 1/4/8/16 and adaptive with cores used, PSS per
 * trial and 429s (latency), fixture session creation (sessions), the reference
 * model's time per request (model), and, when their modules exist, the 1,000-trial HTML report
 * (report), the store's history/runs/compare queries on 100,000 trials (store) and local vs remote
 * browsers (remote).
 */
import { benchAnyAppStep } from "./bench/any-app-step.js";
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg, totalmem } from "node:os";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { measureSessionCreation } from "../fixtures-site/fixture-site.js";
import { measureReferenceModel } from "./bench/reference-model.js";
import { runReportBench } from "./bench/report.js";
import { benchRemoteBrowsers } from "./bench-scale.js";
import { benchRepetition } from "./bench-repetition.js";
import { BENCH_USAGE, parseBenchArgs, type BenchArgs, type BenchName } from "./bench/args.js";
import { machineUsageSince, snapshotMachine } from "./bench/machine-load.js";
import { benchSetup } from "./bench/setup-time.js";
import { benchStartup, STARTUP_AIM_RATIO } from "./bench/startup.js";
import { benchStepOverhead } from "./bench/step-overhead.js";
import { benchMiniwobStep } from "./bench/miniwob-step.js";
import {
  BENCH_AIMS,
  detailLines,
  headlineTable,
  soakLines,
  type BenchResults,
  type SectionOutcome,
} from "./bench/summary.js";
import { benchCapture } from "./bench/capture.js";
import { benchLatencyThroughput, LATENCY_SETS, TURN_LATENCY_MS } from "./bench/latency-throughput.js";
import { benchSoak, SOAK_SIZES } from "./bench/soak.js";
import { benchStoreScale } from "./bench/store-scale.js";
import { benchThroughput, THROUGHPUT_SETS } from "./bench/throughput.js";
import { startBenchWorld, type BenchWorld } from "./bench/world.js";
import { benchPool } from "./bench/pool.js";
import { benchCpuPerTrial, cgroupUnavailable } from "./bench/cpu-per-trial.js";
import { benchGold } from "./bench/gold.js";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const MODEL_LATENCY_MS = 500;

/** Sample sizes: full mode fits ~10 minutes on a 2-core machine, quick mode a smoke run. */
function sizes(quick: boolean) {
  return {
    startupSamples: quick ? 5 : 20,
    sessions: quick ? 200 : 1000,
    modelRequests: quick ? 30 : 200,
    detector: quick ? { steps: 40, shots: 10 } : { steps: 200, shots: 40 },
    setupSamples: quick ? 5 : 20,
    stepRepeats: quick ? 2 : 6,
    attributionSamples: quick ? 8 : 20,
    anyAppSamples: quick ? 5 : 20,
    miniwobRounds: quick ? 2 : 6,
    throughput: quick ? THROUGHPUT_SETS.quick : THROUGHPUT_SETS.full,
    captureSamples: quick ? 10 : 40,
    latency: quick ? LATENCY_SETS.quick : LATENCY_SETS.full,
    soak: quick ? SOAK_SIZES.quick : SOAK_SIZES.full,
    reportTrials: quick ? 200 : 1000,
    /** Runs of 100 trials each: 100,000 trials in full mode. */
    storeRuns: quick ? 100 : 1000,
    goldRepeats: quick ? 1 : 3,
  };
}

function log(line: string): void {
  process.stderr.write(`${line}\n`);
}

async function section<T>(name: BenchName | "soak", run: () => Promise<T>): Promise<SectionOutcome<T>> {
  log(`bench: ${name}...`);
  const started = performance.now();
  const machine = snapshotMachine();
  try {
    const result = await run();
    const ms = Math.round(performance.now() - started);
    log(`bench: ${name} done in ${(ms / 1000).toFixed(1)} s`);
    return { status: "ok", ms, machine: machineUsageSince(machine), result };
  } catch (error) {
    const ms = Math.round(performance.now() - started);
    const message = error instanceof Error ? error.message.split("\n")[0]! : String(error);
    log(`bench: ${name} failed after ${(ms / 1000).toFixed(1)} s: ${error instanceof Error ? error.stack : message}`);
    return { status: "error", ms, error: message };
  }
}

/** `--soak`: the soak alone, its own JSON file and lines (never in the test suite). */
async function soakMain(args: BenchArgs): Promise<number> {
  const startedAt = new Date().toISOString();
  const world = await startBenchWorld({ root: ROOT, slowLatencyMs: MODEL_LATENCY_MS, turnLatencyMs: TURN_LATENCY_MS });
  let outcome;
  try {
    outcome = await section("soak", () => benchSoak(world, sizes(args.quick).soak, log));
  } finally {
    await world.close();
  }
  const out = resolve(ROOT, args.out);
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify({ version: 1, startedAt, quick: args.quick, soak: outcome }, null, 2)}\n`);
  process.stdout.write(
    `\numpire bench --soak${args.quick ? " --quick" : ""}: ${startedAt}, ${availableParallelism()} cores, load ${loadavg()
      .map((v) => v.toFixed(2))
      .join(" ")}\n`,
  );
  if (outcome.status !== "ok") {
    process.stdout.write(`soak failed: ${outcome.status === "error" ? outcome.error : outcome.status}\n`);
    return 1;
  }
  const m = outcome.result.machine;
  process.stdout.write(
    `${soakLines(outcome.result, `machine: ${m.coresBusy ?? "?"} of ${m.cores} cores busy (all processes), load ${m.loadAverage1m}`).join("\n")}\n\nwrote ${args.out}\n`,
  );
  return 0;
}

async function main(args: BenchArgs): Promise<number> {
  if (args.soak) return soakMain(args);
  const size = sizes(args.quick);
  const wanted = new Set(args.only);
  const results: BenchResults = {};
  const startedAt = new Date().toISOString();
  const started = performance.now();
  let world: BenchWorld | undefined;
  const needWorld = async () =>
    (world ??= await startBenchWorld({ root: ROOT, slowLatencyMs: MODEL_LATENCY_MS, turnLatencyMs: TURN_LATENCY_MS }));
  let chromiumVersion: string | undefined;

  try {
    if (wanted.has("startup"))
      results.startup = await section("startup", async () => benchStartup(ROOT, size.startupSamples));
    if (wanted.has("sessions"))
      results.sessions = await section("sessions", async () => ({
        n: size.sessions,
        medianMs: Math.round((await measureSessionCreation(size.sessions)) * 100) / 100,
      }));
    if (wanted.has("model")) results.model = await section("model", () => measureReferenceModel(size.modelRequests));
    if (wanted.has("detector")) results.detector = await section("detector", () => benchRepetition(size.detector));
    if (wanted.has("setup"))
      results.setup = await section("setup", async () => benchSetup(await needWorld(), { samples: size.setupSamples }));
    if (wanted.has("step"))
      results.step = await section("step", async () =>
        benchStepOverhead(await needWorld(), {
          repeats: size.stepRepeats,
          attributionSamples: size.attributionSamples,
        }),
      );
    if (wanted.has("anyapp"))
      results.anyApp = await section("anyapp", async () =>
        benchAnyAppStep(await needWorld(), ROOT, size.anyAppSamples),
      );
    if (wanted.has("miniwob"))
      results.miniwob = await section("miniwob", async () =>
        benchMiniwobStep(await needWorld(), ROOT, { rounds: size.miniwobRounds }),
      );
    if (wanted.has("capture"))
      results.capture = await section("capture", async () =>
        benchCapture(await needWorld(), { samples: size.captureSamples }),
      );
    if (wanted.has("cpu")) {
      // Its own CLI runs, one at a time, on an otherwise idle bench: the world's browser stays idle meanwhile.
      const unavailable = cgroupUnavailable();
      results.cpu = unavailable
        ? { status: "skipped", reason: unavailable }
        : await section("cpu", () => benchCpuPerTrial(ROOT, args.quick));
    }
    if (wanted.has("throughput")) {
      results.throughput = await section("throughput", async () =>
        benchThroughput(await needWorld(), {
          ...size.throughput,
          latencyMs: MODEL_LATENCY_MS,
          concurrencies: [1, 2, 4],
        }),
      );
    }
    if (wanted.has("latency"))
      results.latency = await section("latency", async () =>
        benchLatencyThroughput(
          await needWorld(),
          args.levels ? { ...size.latency, concurrencies: args.levels } : size.latency,
        ),
      );
    chromiumVersion = world?.browser.version();
    // The report and remote benchmarks start their own runtimes: let ours go first.
    await world?.close();
    world = undefined;

    if (wanted.has("report")) results.report = await reportSection(size.reportTrials);
    if (wanted.has("store"))
      results.store = await section("store", () =>
        benchStoreScale({ runs: size.storeRuns, samples: args.quick ? 3 : 7 }),
      );
    if (wanted.has("pool")) {
      results.pool = await section("pool", () =>
        benchPool(ROOT, { instances: 4, repeat: args.quick ? 1 : 2, turnLatencyMs: TURN_LATENCY_MS }),
      );
    }
    if (wanted.has("remote")) {
      // It runs 2 x 8 trials with its own runtimes and has no smaller size: only on request in quick mode.
      results.remote =
        args.quick && !args.onlyGiven
          ? { status: "skipped", reason: "not in --quick (ask for it: --only remote)" }
          : await section("remote", () => benchRemoteBrowsers({ concurrency: 4 }));
    }
    if (wanted.has("gold")) {
      // Hundreds of trials (every bundled task, 3 concurrencies, 2 loads): only when asked for by name.
      results.gold = !args.onlyGiven
        ? { status: "skipped", reason: "plays every gold trajectory 6 ways: ask for it, --only gold" }
        : await section("gold", () =>
            benchGold(
              ROOT,
              {
                repeats: args.goldRepeats ?? size.goldRepeats,
                concurrencies: [1, 2, 4],
                loads: args.goldLoads ?? ["quiet", "loaded"],
                ...(args.goldProjects ? { projects: args.goldProjects } : {}),
              },
              log,
            ),
          );
    }
  } finally {
    await world?.close();
  }

  const totalMs = Math.round(performance.now() - started);
  const out = resolve(ROOT, args.out);
  mkdirSync(dirname(out), { recursive: true });
  const document = {
    version: 1,
    startedAt,
    totalMs,
    quick: args.quick,
    only: args.only,
    machine: {
      cores: availableParallelism(),
      cpu: cpus()[0]?.model ?? "unknown",
      memoryGb: Math.round(totalmem() / 2 ** 30),
      node: process.version,
      chromium: chromiumVersion ?? null,
      loadAverageAtEnd: loadavg().map((v) => Math.round(v * 100) / 100),
    },
    aims: { ...BENCH_AIMS, startupRatio: STARTUP_AIM_RATIO },
    results,
  };
  writeFileSync(out, `${JSON.stringify(document, null, 2)}\n`);

  process.stdout.write(
    `\numpire bench${args.quick ? " (--quick)" : ""}: ${startedAt}, ${availableParallelism()} cores, node ${process.version}${chromiumVersion ? `, Chromium ${chromiumVersion}` : ""}, load ${loadavg()
      .map((v) => v.toFixed(2))
      .join(" ")}\n`,
  );
  process.stdout.write(
    `${headlineTable(results)}\n\n${detailLines(results).join("\n")}\n\nwrote ${args.out} (${(totalMs / 1000).toFixed(0)} s in all)\n`,
  );
  return Object.values(results).some((r) => r.status === "error") ? 1 : 0;
}

async function reportSection(trials: number): Promise<SectionOutcome<{ trials: number; ms: number; detail: unknown }>> {
  return section("report", async () => {
    const detail = await runReportBench(trials);
    return { trials, ms: detail.ms, detail };
  });
}

let parsed: BenchArgs;
try {
  parsed = parseBenchArgs(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`bench: ${error instanceof Error ? error.message : String(error)}\n\n${BENCH_USAGE}`);
  process.exit(2);
}
if (parsed.help) {
  process.stdout.write(BENCH_USAGE);
} else {
  main(parsed).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
