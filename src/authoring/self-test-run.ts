/**
 * What the self-test of task files (`self-test.ts`) and the self-test of a benchmark pack
 * (`pack-self-test.ts`) do around their probes, written once: the run row tagged `self-test` with the
 * machine it ran on and its planned trials, the settings every batch of probes runs with, and the run's end.
 */
import { createPriceBook } from "../pricing.js";
import type { SuiteResult } from "../runner/schedule/run-suite.js";
import { storedPlan, type PlannedTrial } from "../runner/schedule/trial-plan.js";
import { collectRunEnvironment } from "../runtime/run-environment.js";
import { join } from "node:path";
import { startRuntime, type ExecuteOptions, type Runtime, type RuntimeOptions } from "../runtime/suite-runtime.js";
import { VERSION } from "../runtime/version.js";
import type { StoredRunOptionsInput } from "../store/run-options.js";
import type { Store } from "../store/store.js";
import type { Task } from "../task/schema.js";
import { SELF_TEST_TAG } from "../vocabulary.js";

/** A self-test's run: its runtime (started by the caller), store, id and folder. */
export interface SelfTestRun {
  runtime: Runtime;
  store: Store;
  runId: string;
  runDir: string;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
}

/** What both self-tests' callers hand in under the same names. */
export interface SelfTestBase {
  tasks: Task[];
  store: Store;
  outDir: string;
  concurrency: number;
  env: NodeJS.ProcessEnv;
  signal: AbortSignal;
  onNotice?: (message: string) => void;
}

/**
 * Starts the runtime of a self-test's run `runId` for its probes' agents (and the targets they play on),
 * sized for at least `atLeast` trials at once (the at-once pairs of the task self-test play two).
 */
export async function startSelfTestRun(
  runId: string,
  options: SelfTestBase,
  probes: Pick<RuntimeOptions, "agents" | "config" | "builtInTargets">,
  atLeast: number,
): Promise<SelfTestRun> {
  const { store, env, signal } = options;
  const runDir = join(options.outDir, runId);
  const runtime = await startRuntime({
    tasks: options.tasks,
    ...probes,
    logDir: runDir,
    concurrency: { mode: "pinned", trials: Math.max(atLeast, options.concurrency) },
    env,
    signal,
    ...(options.onNotice ? { onNotice: options.onNotice } : {}),
  });
  return { runtime, store, runId, runDir, env, signal };
}

/** Stores the run (tagged `self-test`), the machine it runs on and its planned trials. */
export async function openSelfTestRun(
  run: SelfTestRun,
  tasks: Task[],
  trials: readonly PlannedTrial[],
  options: StoredRunOptionsInput,
): Promise<void> {
  const { store, runId, runtime } = run;
  store.createRun({ id: runId, umpireVersion: VERSION, folder: run.runDir, tags: [SELF_TEST_TAG], options });
  // A self-test's verdicts depend on the browser and fonts as much as a run's: it stores them too.
  const environment = await collectRunEnvironment({
    browsers: runtime.browsers,
    targets: runtime.targets,
    tasks,
    env: run.env,
  });
  store.setRunEnvironment(runId, { ...environment });
  store.addTrials(
    runId,
    trials.map((t) => storedPlan(t)),
  );
}

/** One batch of probes, `concurrency` at once, with no reporter yet (the caller adds its own). */
export function probeBatch(run: SelfTestRun, trials: PlannedTrial[], concurrency: number): ExecuteOptions {
  const { runtime, store, runId, runDir, env, signal } = run;
  return {
    runtime,
    store,
    runId,
    runDir,
    trials,
    env,
    signal,
    prices: createPriceBook(),
    concurrency: { mode: "pinned", trials: concurrency },
    modelConcurrency: concurrency,
    repetition: { window: 3, recoveryLimit: 1 },
    reporters: [],
  };
}

/** Finished when the first batch was not interrupted and no trial is left unfinished. */
export function selfTestStatus(run: SelfTestRun, executed: SuiteResult): "finished" | "interrupted" {
  return executed.status === "interrupted" || run.store.unfinishedTrials(run.runId).length > 0
    ? "interrupted"
    : "finished";
}

/** Marks the run finished or interrupted, then closes the runtime. */
export async function closeSelfTestRun(run: SelfTestRun, status: "finished" | "interrupted"): Promise<void> {
  try {
    if (status === "finished") run.store.finishRun(run.runId, "finished");
    else run.store.markInterrupted(run.runId);
  } catch {
    /* a run that was never created (the runtime failed first) has nothing to mark */
  }
  await run.runtime.close();
}
