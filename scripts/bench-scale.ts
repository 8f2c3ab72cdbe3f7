/**
 * Benchmark: the suite's wall time through one local browser vs two Playwright browser servers in
 * other processes (what `--browser-endpoint` does), on a fixed subset of tasks in both output modes
 * with the embedded reference model. Same trials, same concurrency; the local browser is launched
 * and the servers connected before the clock starts, so the figures compare running, not starting.
 *
 * On one machine the servers share its cores with everything else, so this measures the overhead
 * of the remote protocol more than any speed-up; the speed-up comes from endpoints on other machines.
 *
 * Run: `npx tsx scripts/bench-scale.ts` (prints JSON), or import `benchRemoteBrowsers()`.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { startRuntime } from "../src/runtime/suite-runtime.js";
import {
  createLocalBrowserProvider,
  createRemoteBrowserProvider,
  type BrowserProvider,
} from "../src/runner/schedule/browser-pool.js";
import { openStore } from "../src/store/open.js";
import { loadTasksOrThrow } from "../src/task/loader.js";
import {
  agentsFor,
  ROOT,
  runThrough,
  startBrowserServer,
  type BrowserProcess,
} from "../test/integration/scale/support.js";

/** A fixed subset: short and long tasks, reading and writing. */
export const BENCH_TASKS = ["answer-only-bb042", "compare-bb007-bb031", "scorecard-note-bb042", "long-scroll-bb017"];

export interface ModeFigures {
  wallMs: number;
  trials: number;
  passed: number;
  /** Mean wall time of one trial as the trials themselves measured it. */
  meanTrialMs: number;
}

export interface ScaleBenchResult {
  tasks: string[];
  concurrency: number;
  local: ModeFigures;
  /** Two browser servers, capacity concurrency/2 each. */
  twoServers: ModeFigures;
  /** twoServers.wallMs / local.wallMs. */
  ratio: number;
  cores: number;
  loadAverage: number;
}

async function timeSuite(name: string, browsers: BrowserProvider, concurrency: number): Promise<ModeFigures> {
  const tasks = loadTasksOrThrow(BENCH_TASKS, { cwd: ROOT });
  const agents = agentsFor("both");
  const dir = mkdtempSync(join(tmpdir(), "umpire-bench-scale-"));
  const runtime = await startRuntime({ tasks, agents, browsers });
  const store = openStore(join(dir, "umpire.db"));
  try {
    (await browsers.acquire()).release(); // launch or connect before the clock starts
    const started = performance.now();
    const { result } = await runThrough({ runtime, store, dir, runId: name, tasks, agents, concurrency });
    const wallMs = performance.now() - started;
    return {
      wallMs: Math.round(wallMs),
      trials: result.ends.length,
      passed: result.ends.filter((e) => e.verdict === "passed").length,
      meanTrialMs: Math.round(result.ends.reduce((s, e) => s + e.wallMs, 0) / result.ends.length),
    };
  } finally {
    store.close();
    await runtime.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs the subset locally, then through two browser servers; returns both wall times. */
export async function benchRemoteBrowsers(options: { concurrency?: number } = {}): Promise<ScaleBenchResult> {
  const concurrency = options.concurrency ?? 4;
  const local = await timeSuite("bench-local", createLocalBrowserProvider(), concurrency);
  const servers: BrowserProcess[] = [];
  try {
    servers.push(await startBrowserServer(), await startBrowserServer());
    const perServer = Math.max(1, Math.ceil(concurrency / 2));
    const remote = createRemoteBrowserProvider({
      endpoints: servers.map((s) => `${s.endpoint}?capacity=${perServer}`),
    });
    const twoServers = await timeSuite("bench-two-servers", remote, concurrency);
    return {
      tasks: BENCH_TASKS,
      concurrency,
      local,
      twoServers,
      ratio: Number((twoServers.wallMs / local.wallMs).toFixed(3)),
      cores: availableParallelism(),
      loadAverage: Number(loadavg()[0].toFixed(2)),
    };
  } finally {
    for (const s of servers) await s.stop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) {
  benchRemoteBrowsers().then(
    (result) => process.stdout.write(`${JSON.stringify(result, null, 2)}\n`),
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
