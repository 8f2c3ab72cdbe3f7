/**
 * A real run environment for integration tests: the fixture site, the reference model in strict
 * mode, one real Chromium, and a real SQLite file in a temp folder. Trials go through the same
 * `executeTrials` the CLI uses.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { resolveAgentConfigs, type AgentConfig } from "../../../src/agent/config.js";
import { executeTrials, startRuntime, type Runtime } from "../../../src/runtime/suite-runtime.js";
import { createPriceBook } from "../../../src/pricing.js";
import { planTrials, storedPlan, type PlannedTrial } from "../../../src/runner/schedule/trial-plan.js";
import type { RunHooks } from "../../../src/runner/schedule/run-hooks.js";
import type { AgentSessionLike } from "../../../src/runner/trial/loop.js";
import type { SuiteResult } from "../../../src/runner/schedule/run-suite.js";
import { openStore } from "../../../src/store/open.js";
import type { Store } from "../../../src/store/store.js";
import { loadTasksOrThrow } from "../../../src/task/loader.js";
import type { Task } from "../../../src/task/schema.js";

export const ROOT = resolve(__dirname, "../../..");

export interface Harness {
  runtime: Runtime;
  store: Store;
  dir: string;
  tasks: Task[];
  task(id: string, patch?: (t: Task) => void): Task;
  run(options: RunOptions): Promise<{ result: SuiteResult; runId: string; trials: PlannedTrial[] }>;
  close(): Promise<void>;
}

export interface RunOptions {
  tasks: Task[];
  model?: string;
  mode?: "structured" | "tools" | "both";
  repeat?: number;
  signal?: AbortSignal;
  reporters?: RunHooks[];
  runId?: string;
  /** Only these planned trials (by seq) are executed; all are stored as planned. */
  only?: (trial: PlannedTrial) => boolean;
  previousAttempts?: Map<string, number>;
  agents?: AgentConfig[];
  concurrency?: number;
  wrapSession?: (session: AgentSessionLike, trial: PlannedTrial) => AgentSessionLike;
}

let counter = 0;

export async function startHarness(): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), "umpire-run-"));
  const tasks = loadTasksOrThrow([], { cwd: ROOT });
  const runtime = await startRuntime({
    tasks,
    agents: resolveAgentConfigs({ model: "reference", mode: "structured" }),
  });
  const store = openStore(join(dir, "umpire.db"));
  return {
    runtime,
    store,
    dir,
    tasks,
    task(id, patch) {
      const found = tasks.find((t) => t.id === id);
      if (!found) throw new Error(`no task ${id}`);
      const copy = structuredClone(found);
      patch?.(copy);
      return copy;
    },
    async run(options) {
      const agents =
        options.agents ??
        resolveAgentConfigs({ model: options.model ?? "reference", mode: options.mode ?? "structured" });
      const runId = options.runId ?? `test-${process.pid}-${++counter}`;
      const trials = planTrials(runId, options.tasks, agents, options.repeat ?? 1);
      if (!options.runId || !safeGetRun(store, runId)) {
        store.createRun({ id: runId, umpireVersion: "test", folder: join(dir, runId) });
        // As `umpire run` stores them: with the task's title, tags and content hash (the report reads those).
        store.addTrials(
          runId,
          trials.map((t) => storedPlan(t)),
        );
      }
      const selected = options.only ? trials.filter(options.only) : trials;
      const result = await executeTrials({
        runtime,
        store,
        runId,
        runDir: join(dir, runId),
        trials: selected,
        env: {},
        prices: createPriceBook(),
        concurrency: { mode: "pinned", trials: options.concurrency ?? 2 },
        modelConcurrency: 2,
        wrapSession: options.wrapSession,
        repetition: { window: 3, recoveryLimit: 1 },
        reporters: options.reporters ?? [],
        signal: options.signal ?? new AbortController().signal,
        previousAttempts: options.previousAttempts,
      });
      return { result, runId, trials };
    },
    async close() {
      store.close();
      await runtime.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function safeGetRun(store: Store, id: string) {
  try {
    return store.getRun(id);
  } catch {
    return undefined;
  }
}
