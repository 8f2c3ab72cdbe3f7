/**
 * `umpire run`: the main job. Runs task files x agent configs x repeats in real Chromium
 * against the fixture site, judges every trial with independent checks, stores everything,
 * and ends with a summary per task and mode and the structured-vs-function-calling table.
 */
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { resolveAgentConfigs, redactConfig, type AgentConfig } from "../../agent/index.js";
import { UmpireError } from "../../errors.js";
import { newRunId, planTrials, type AgentPlan, type PlannedTrial } from "../../runner/plan.js";
import { createProgressReporter, type Reporter } from "../../runner/reporters.js";
import { totalCapacity } from "../../runner/browser-pool.js";
import { assignShards, parseShard, shardFromEnv, shardLabel, type ShardSource } from "../../runner/shards.js";
import { openStore } from "../../store/index.js";
import { loadTasksOrThrow } from "../../task/loader.js";
import { loadProjectConfig, type ProjectConfig } from "../../task/project-config.js";
import type { Task } from "../../task/schema.js";
import { pricesFromFlags } from "../args.js";
import { EXIT } from "../exit-codes.js";
import type { Command } from "../io.js";
import { renderRunOutcome } from "../run-output.js";
import { writeRunReport } from "../../report/html/index.js";
import { executeTrials, runFolder, startRuntime } from "../suite-runtime.js";
import { DEFAULT_DB } from "./runs.js";

export const DEFAULT_OUT = "results/runs";
const VERSION = "0.1.0";

const HELP = `usage: umpire run [paths or task ids...] [options]

Runs every task (default: tasks/) with each agent config, in parallel, in real Chromium against
the fixture site; judges each trial with independent checks and stores it in SQLite.
With no options: the whole suite, both output modes, on the embedded reference model.

model
  --model ID              reference (default), reference:<profile>, holo3-1-35b-a3b, holo3-122b-a10b,
                          or any id served at --base-url; repeatable
  --base-url URL          an OpenAI-compatible endpoint (a local vLLM, for instance)
  --mode M                structured | tools | both (default both; structured only for models without tools)
  --api-key-env NAME      environment variable holding the key (default HAI_API_KEY)
  --temperature T         default 0.8
  --reasoning-effort E    low | medium | high (default medium)
  --max-tokens N          response allowance, with headroom for reasoning (default 2048)
  --stream                stream responses (measures time to first token)
run
  --repeat N              repeats per task and config (default 1)
  --concurrency N         trials at once (default: the number of cores)
  --model-concurrency N   model requests at once (default: concurrency)
  --tag T                 label the run (repeatable), for compare --baseline / --by tag
  --resume RUN            run only the unfinished trials of an earlier run
  --run-id ID             use this run id (all shards of one run share it)
scale out (docs/scale-out.md)
  --shard i/n             run shard i of n (from 1), balanced by the durations stored in --db
                          (or --shard-history); default from UMPIRE_SHARD, CI_NODE_INDEX/TOTAL,
                          JOB_COMPLETION_INDEX + UMPIRE_SHARD_TOTAL, BUILDKITE_*, CIRCLE_NODE_*
  --shard-history FILE    read earlier durations from this database instead of --db
  --browser-endpoint URL  run trials in a remote browser: ws://... (Playwright server), http://...
                          or cdp+ws://... (CDP); add ?capacity=N (default 4); repeatable
  --fixtures-host HOST    serve the fixture site to remote browsers at http://HOST[:PORT]
repetition
  --repetition-window N   identical attempts before a pause (default 3)
  --recovery-limit N      reflections before a trial stops as stuck (default 1)
output
  --db FILE               results database (default ${DEFAULT_DB})
  --out DIR               trial folders (default ${DEFAULT_OUT})
  --config FILE           the project config: prices ("prices") and targets ("targets"); default the
                          umpire.config.yaml|json beside the tasks (or in the working folder)
  --price-in USD, --price-out USD   price per million tokens for every model
  --json                  print only JSON (run id and every trial)
  --report                also write the HTML report (see umpire report)
`;

const OPTIONS = {
  model: { type: "string", multiple: true },
  "base-url": { type: "string" },
  mode: { type: "string" },
  "api-key-env": { type: "string" },
  temperature: { type: "string" },
  "reasoning-effort": { type: "string" },
  "max-tokens": { type: "string" },
  stream: { type: "boolean" },
  repeat: { type: "string" },
  concurrency: { type: "string" },
  "model-concurrency": { type: "string" },
  tag: { type: "string", multiple: true },
  resume: { type: "string" },
  "run-id": { type: "string" },
  shard: { type: "string" },
  "shard-history": { type: "string" },
  "browser-endpoint": { type: "string", multiple: true },
  "fixtures-host": { type: "string" },
  "repetition-window": { type: "string" },
  "recovery-limit": { type: "string" },
  db: { type: "string" },
  out: { type: "string" },
  config: { type: "string" },
  "price-in": { type: "string" },
  "price-out": { type: "string" },
  json: { type: "boolean" },
  report: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const;

export function positiveInt(value: string | undefined, flag: string, fallback: number, min = 1, max = 10_000): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new UmpireError("usage", `${flag} ${value}: expected a whole number from ${min} to ${max}`, `e.g. ${flag} ${Math.max(min, Math.min(fallback, max))}`);
  }
  return n;
}

/** Agent configs for every --model; --mode both on a model without tools falls back to structured. */
export function resolveAgents(values: { model?: string[]; "base-url"?: string; mode?: string; "api-key-env"?: string; temperature?: string; "reasoning-effort"?: string; "max-tokens"?: string; stream?: boolean }, env: NodeJS.ProcessEnv): AgentConfig[] {
  const models = values.model?.length ? values.model : ["reference"];
  const configs: AgentConfig[] = [];
  for (const model of models) {
    const common = {
      model,
      baseUrl: values["base-url"],
      apiKeyEnv: values["api-key-env"],
      temperature: values.temperature,
      reasoningEffort: values["reasoning-effort"],
      maxTokens: values["max-tokens"],
      stream: values.stream ?? false,
      env,
    };
    const mode = values.mode ?? "both";
    try {
      configs.push(...resolveAgentConfigs({ ...common, mode }));
    } catch (error) {
      // The default "both" means "every mode this model has"; an explicit --mode tools stays an error.
      if (values.mode === undefined && error instanceof UmpireError && error.code === "config" && /function calling/.test(error.message)) {
        configs.push(...resolveAgentConfigs({ ...common, mode: "structured" }));
      } else throw error;
    }
  }
  const labels = new Set<string>();
  for (const c of configs) {
    if (labels.has(c.label)) throw new UmpireError("usage", `the agent config ${c.label} is given twice`, "name each --model once");
    labels.add(c.label);
  }
  return configs;
}

export const run: Command = async (argv, io) => {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UmpireError("usage", (error as Error).message, "umpire run --help lists the options");
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(HELP);
    return EXIT.ok;
  }
  const endpoints = values["browser-endpoint"] ?? [];
  // With remote browsers, as many trials at once as the endpoints take.
  const concurrency = positiveInt(values.concurrency, "--concurrency", endpoints.length ? totalCapacity(endpoints) : availableParallelism(), 1, 256);
  const modelConcurrency = positiveInt(values["model-concurrency"], "--model-concurrency", concurrency, 1, 256);
  const repeat = positiveInt(values.repeat, "--repeat", 1, 1, 1000);
  const repetition = {
    window: positiveInt(values["repetition-window"], "--repetition-window", 3, 2, 20),
    recoveryLimit: positiveInt(values["recovery-limit"], "--recovery-limit", 1, 0, 10),
  };
  const prices = pricesFromFlags(values, io.cwd);
  const dbPath = resolve(io.cwd, values.db ?? DEFAULT_DB);
  if (values.resume && values.shard) throw new UmpireError("usage", "--shard does not go with --resume", "a shard's store holds only its own trials: --resume RUN --db <that shard's file> resumes exactly them");
  const shard: ShardSource | undefined = values.resume ? undefined : values.shard ? { ...parseShard(values.shard), source: "--shard" } : shardFromEnv(io.env);
  const outDir = resolve(io.cwd, values.out ?? DEFAULT_OUT);

  const store = openStore(dbPath);
  let runId: string;
  let trials: PlannedTrial[];
  let agents: AgentConfig[];
  let tasks: Task[];
  let project: ProjectConfig;
  const previousAttempts = new Map<string, number>();
  let finished = false;
  // Store writes wait until the runtime is up, so a browser endpoint that never answers leaves no run behind.
  let persist: () => void;
  try {
    if (values.resume) {
      const stored = store.getRun(values.resume);
      const options = stored.options as { paths?: string[]; agentOptions?: Record<string, unknown>; repeat?: number };
      project = loadProjectConfig(options.paths ?? [], io.cwd, values.config);
      tasks = loadTasksOrThrow(options.paths ?? [], { cwd: io.cwd, targets: project.targets });
      agents = resolveAgents({ ...(options.agentOptions as object), ...pickAgentFlags(values) }, io.env);
      runId = stored.id;
      const all = planTrials(runId, tasks, agents.map(agentPlan), options.repeat ?? 1);
      const unfinished = new Set(store.unfinishedTrials(runId).map((t) => t.id));
      for (const t of store.trials(runId)) previousAttempts.set(t.id, t.attempt);
      trials = all.filter((t) => unfinished.has(t.id));
      persist = () => store.reopenRun(runId);
    } else {
      project = loadProjectConfig(positionals, io.cwd, values.config);
      tasks = loadTasksOrThrow(positionals, { cwd: io.cwd, targets: project.targets });
      agents = resolveAgents(values, io.env);
      runId = values["run-id"] ?? newRunId();
      // Trial ids come from the full plan, so every shard's ids are those of the unsharded run.
      trials = planTrials(runId, tasks, agents.map(agentPlan), repeat);
      let shardOptions: Record<string, unknown> | undefined;
      if (shard && shard.total > 1) {
        const history = values["shard-history"] ? readHistory(resolve(io.cwd, values["shard-history"])) : store.durationHistory();
        const plan = assignShards(trials, shard.total, history);
        shardOptions = { index: shard.index, total: shard.total, trials: trials.length, balance: plan.balance, plan: plan.fingerprint };
        trials = plan.shards[shard.index - 1];
        if (!values.json) {
          io.stderr.write(`shard ${shardLabel(shard)} (${shard.source}): ${trials.length} of ${shardOptions.trials} trials, balanced by ${plan.balance === "duration" ? "recorded durations" : "count (no history)"}, plan ${plan.fingerprint}\n`);
        }
      }
      const shardOfTrial = shardOptions && shard ? shardLabel(shard) : null;
      const [id, planned] = [runId, trials];
      persist = () => {
        store.createRun({
          id,
          tags: values.tag ?? [],
          umpireVersion: VERSION,
          folder: runFolder(outDir, id),
          options: { paths: positionals, agentOptions: pickAgentFlags(values), repeat, concurrency, agents: agents.map(redactConfig), ...(shardOptions ? { shard: shardOptions } : {}) },
        });
        store.addTrials(id, planned.map((t) => ({ id: t.id, seq: t.seq, taskId: t.task.id, taskFile: t.task.file, agentLabel: t.agent.label, model: t.agent.model, mode: t.agent.mode, repeat: t.repeat, shard: shardOfTrial })));
      };
    }

    const runtime = await startRuntime({
      tasks,
      agents,
      browserEndpoints: endpoints,
      fixturesHost: values["fixtures-host"],
      onNotice: (message) => io.stderr.write(`umpire: ${message}\n`),
      config: project,
      logDir: runFolder(outDir, runId),
      env: io.env,
      signal: io.signal,
    });
    try {
      persist();
    } catch (error) {
      await runtime.close();
      throw error;
    }

    // A second Ctrl-C exits the process at once: still leave the run marked as interrupted.
    const markOnExit = () => {
      if (!finished) store.markInterrupted(runId);
    };
    process.once("exit", markOnExit);
    const reporters: Reporter[] = values.json ? [] : [createProgressReporter(io.stderr as never)];
    let status: "finished" | "interrupted";
    try {
      ({ status } = await executeTrials({
        runtime,
        store,
        runId,
        runDir: runFolder(outDir, runId),
        trials,
        agents: new Map(agents.map((a) => [a.label, a])),
        env: io.env,
        prices,
        concurrency,
        modelConcurrency,
        repetition,
        reporters,
        signal: io.signal,
        previousAttempts,
      }));
    } finally {
      await runtime.close();
      process.off("exit", markOnExit);
    }
    if (status === "interrupted") store.markInterrupted(runId);
    else store.finishRun(runId, "finished");
    finished = true;
    const allPassed = renderRunOutcome(store, runId, prices, io, Boolean(values.json));
    if (values.report) {
      const { indexPath } = writeRunReport(store, runId, { prices, cwd: io.cwd });
      // stdout stays pure JSON under --json; the path goes to stderr then.
      (values.json ? io.stderr : io.stdout).write(`report: ${indexPath}\n`);
    }
    if (status === "interrupted") return EXIT.interrupted;
    return allPassed ? EXIT.ok : EXIT.failed;
  } finally {
    store.close();
  }
};

/** Durations from another store (--shard-history): every shard must balance on the same history. */
function readHistory(file: string) {
  const history = openStore(file, { readonly: true });
  try {
    return history.durationHistory();
  } finally {
    history.close();
  }
}

function agentPlan(config: AgentConfig): AgentPlan {
  return { label: config.label, model: config.model, mode: config.mode };
}

/** The agent flags as given, stored with the run so --resume rebuilds the same configs. */
function pickAgentFlags(values: Record<string, unknown>): Record<string, unknown> {
  const keys = ["model", "base-url", "mode", "api-key-env", "temperature", "reasoning-effort", "max-tokens", "stream"];
  return Object.fromEntries(keys.filter((k) => values[k] !== undefined).map((k) => [k, values[k]]));
}
