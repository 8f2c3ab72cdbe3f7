/**
 * The benchmark's runtime: the fixture site, the reference model (with the `slow` profile's
 * latency set to what the throughput benchmark needs), one launched Chromium shared by every
 * benchmark, and a real SQLite store in a temp folder. Trials run through the same
 * `executeTrials` the CLI uses; only the reference model is started here instead of by
 * `startRuntime`, because `startRuntime` does not let the latency be chosen.
 */
import { LayoutBoard } from "../../src/targets/layout-board.js";
import { startTargets, type TargetSet } from "../../src/targets/target-set.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright";
import { resolveAgentConfigs, type AgentConfig } from "../../src/agent/config.js";
import { launchChromium } from "../../src/browser/chromium.js";
import { executeTrials, type Runtime } from "../../src/runtime/suite-runtime.js";
import { createPriceBook } from "../../src/pricing.js";
import { createLocalBrowserProvider } from "../../src/runner/schedule/browser-pool.js";
import type { AgentSessionLike } from "../../src/runner/trial/loop.js";
import { planTrials, type PlannedTrial } from "../../src/runner/schedule/trial-plan.js";
import type { RunHooks } from "../../src/runner/schedule/run-hooks.js";
import type { SuiteResult } from "../../src/runner/schedule/run-suite.js";
import { startReferenceModel } from "../../src/sim/server.js";
import { openStore } from "../../src/store/open.js";
import type { Store } from "../../src/store/store.js";
import { loadTasksOrThrow } from "../../src/task/loader.js";
import type { Task } from "../../src/task/schema.js";
import { startFixtureSite } from "../../fixtures-site/fixture-site.js";

export interface BenchRunOptions {
  tasks: Task[];
  /** `reference` (gold, no added latency) or `reference:slow` (gold after `latencyMs`). */
  model: string;
  mode: "structured" | "tools" | "both";
  repeat?: number;
  concurrency: number;
  wrapSession?: (session: AgentSessionLike, trial: PlannedTrial) => AgentSessionLike;
  reporters?: RunHooks[];
  /** Adaptive concurrency (as when --concurrency is not given), at most this many trials; `concurrency` is where it starts. */
  adaptiveMax?: number;
  /** The run's targets instead of the world's (a benchmark pack's folder server). */
  targets?: TargetSet;
}

export interface BenchRun {
  result: SuiteResult;
  trials: PlannedTrial[];
  /** Wall time of executeTrials, planning and store set-up excluded. */
  wallMs: number;
}

export interface BenchWorld {
  browser: Browser;
  runtime: Runtime & { model: NonNullable<Runtime["model"]> };
  store: Store;
  /** A temp folder for run folders and workspaces; removed by close(). */
  dir: string;
  tasks: Task[];
  task(id: string): Task;
  run(options: BenchRunOptions): Promise<BenchRun>;
  close(): Promise<void>;
}

let runCounter = 0;

export async function startBenchWorld(options: {
  root: string;
  slowLatencyMs: number;
  turnLatencyMs?: number;
}): Promise<BenchWorld> {
  const tasks = loadTasksOrThrow([], { cwd: options.root });
  const dir = mkdtempSync(join(tmpdir(), "umpire-bench-"));
  const browser = await launchChromium();
  const fixtures = await startFixtureSite({ port: 0, controlPort: 0 });
  const model = await startReferenceModel({
    port: 0,
    fixtures: fixtures.client,
    tasks,
    strict: true,
    latencyMs: options.slowLatencyMs,
    ...(options.turnLatencyMs !== undefined ? { turnLatencyMs: options.turnLatencyMs } : {}),
  });
  // The provider hands out the one browser launched above (so its processes are this process's children).
  const browsers = createLocalBrowserProvider(async () => browser);
  const board = new LayoutBoard();
  const targets = await startTargets({ tasks, declared: {}, configDir: options.root, logDir: dir, env: {}, fixtures });
  const runtime = {
    fixtures,
    siteUrl: fixtures.siteUrl,
    model,
    browsers,
    targets,
    board,
    async close() {
      await browsers.close();
      await targets.close();
      await model.close();
      await fixtures.close();
    },
  };
  const store = openStore(join(dir, "umpire.db"));
  return {
    browser,
    runtime,
    store,
    dir,
    tasks,
    task(id) {
      const found = tasks.find((t) => t.id === id);
      if (!found) throw new Error(`bench: no task "${id}" in tasks/`);
      return found;
    },
    async run(run) {
      const agents: AgentConfig[] = resolveAgentConfigs({ model: run.model, mode: run.mode, env: {} });
      const runId = `bench-${process.pid}-${++runCounter}`;
      const trials = planTrials(runId, run.tasks, agents, run.repeat ?? 1);
      store.createRun({ id: runId, umpireVersion: "bench", folder: join(dir, runId) });
      store.addTrials(
        runId,
        trials.map((t) => ({
          id: t.id,
          seq: t.seq,
          taskId: t.task.id,
          taskFile: t.task.file,
          agentLabel: t.agent.label,
          model: t.agent.model,
          mode: t.agent.mode,
          repeat: t.repeat,
        })),
      );
      const started = performance.now();
      const result = await executeTrials({
        runtime: run.targets ? { ...runtime, targets: run.targets } : runtime,
        store,
        runId,
        runDir: join(dir, runId),
        trials,
        env: {},
        prices: createPriceBook(),
        concurrency: run.adaptiveMax
          ? { mode: "adaptive", start: run.concurrency, max: run.adaptiveMax }
          : { mode: "pinned", trials: run.concurrency },
        modelConcurrency: run.adaptiveMax ?? run.concurrency,
        repetition: { window: 3, recoveryLimit: 1 },
        reporters: run.reporters ?? [],
        signal: new AbortController().signal,
        ...(run.wrapSession ? { wrapSession: run.wrapSession } : {}),
      });
      const wallMs = performance.now() - started;
      store.finishRun(runId, result.status);
      return { result, trials, wallMs };
    },
    async close() {
      store.close();
      await runtime.close(); // closes the browser through the provider
      await browser.close().catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
