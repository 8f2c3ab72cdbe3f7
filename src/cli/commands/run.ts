/**
 * `umpire run`: the main job. Runs task files x agent configs x repeats in real Chromium
 * against the fixture site, judges every trial with independent checks, stores everything,
 * and ends with a summary per task and mode and the structured-vs-function-calling table.
 */
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { lookupModel, resolveAgentConfigs, redactConfig, type AgentConfig } from "../../agent/index.js";
import type { LoadedConfig } from "../../config/loader.js";
import type { OptionSpec } from "../../config/option.js";
import { DEFAULT_MODE, OPTIONS as O, PRICE_OPTIONS } from "../../config/options.js";
import { UmpireError } from "../../errors.js";
import { newRunId, planTrials, type AgentPlan, type PlannedTrial } from "../../runner/plan.js";
import { createProgressReporter, type Reporter } from "../../runner/reporters.js";
import { totalCapacity } from "../../runner/browser-pool.js";
import { assignShards, parseShard, shardFromEnv, shardLabel, type ShardSource } from "../../runner/shards.js";
import { openStore } from "../../store/index.js";
import { loadTasksOrThrow } from "../../task/loader.js";
import { projectTargets, type ProjectTargets } from "../../config/project.js";
import type { Task } from "../../task/schema.js";
import { optionsHelp, parseCommand, pricesOf, type ValueSource } from "../args.js";
import { EXIT } from "../exit-codes.js";
import type { Command } from "../io.js";
import { renderRunOutcome } from "../run-output.js";
import { writeRunReport } from "../../report/html/index.js";
import { executeTrials, runFolder, startRuntime } from "../suite-runtime.js";
import { VERSION } from "../version.js";

export { DEFAULT_OUT } from "../../config/options.js";

const MODEL_OPTIONS = {
  model: O.model,
  "base-url": O["base-url"],
  mode: O.mode,
  "api-key-env": O["api-key-env"],
  temperature: O.temperature,
  "reasoning-effort": O["reasoning-effort"],
  "max-tokens": O["max-tokens"],
  stream: O.stream,
} as const;
const RUN_OPTIONS = {
  repeat: O.repeat,
  concurrency: O.concurrency,
  "model-concurrency": O["model-concurrency"],
  tag: O.tag,
  resume: { kind: "string", arg: "RUN", help: "run only the unfinished trials of an earlier run" },
  "run-id": { kind: "string", arg: "ID", help: "use this run id (all shards of one run share it)" },
} as const satisfies Record<string, OptionSpec>;
const SCALE_OPTIONS = {
  shard: {
    kind: "string",
    arg: "i/n",
    help: "run shard i of n (from 1), balanced by the durations stored in --db\n(or --shard-history); default from UMPIRE_SHARD, CI_NODE_INDEX/TOTAL,\nJOB_COMPLETION_INDEX + UMPIRE_SHARD_TOTAL, BUILDKITE_*, CIRCLE_NODE_*",
  },
  "shard-history": { kind: "string", arg: "FILE", help: "read earlier durations from this database instead of --db" },
  "browser-endpoint": O["browser-endpoint"],
  "fixtures-host": O["fixtures-host"],
} as const satisfies Record<string, OptionSpec>;
const REPETITION_OPTIONS = { "repetition-window": O["repetition-window"], "recovery-limit": O["recovery-limit"] } as const;
const OUTPUT_OPTIONS = {
  db: O.db,
  out: O.out,
  ...PRICE_OPTIONS,
  json: { ...O.json, help: "print only JSON (run id and every trial)" },
  report: O.report,
} as const;
const OPTIONS = { ...MODEL_OPTIONS, ...RUN_OPTIONS, ...SCALE_OPTIONS, ...REPETITION_OPTIONS, ...OUTPUT_OPTIONS } as const;

const HELP = `usage: umpire run [paths or task ids...] [options]

Runs every task (default: tasks/) with each agent config, in parallel, in real Chromium against
the fixture site; judges each trial with independent checks and stores it in SQLite.
With no options: the whole suite, both output modes, on the embedded reference model.
A value comes from the command line, else the config file's "defaults", else the built-in default.

${optionsHelp({ model: MODEL_OPTIONS, run: RUN_OPTIONS, "scale out (docs/scale-out.md)": SCALE_OPTIONS, repetition: REPETITION_OPTIONS, output: OUTPUT_OPTIONS })}`;

/** The agent options as resolved (flag, config or default), with where each came from. */
interface AgentValues {
  model?: string[];
  "base-url"?: string;
  mode?: string;
  "api-key-env"?: string;
  temperature?: number;
  "reasoning-effort"?: string;
  "max-tokens"?: number;
  stream?: boolean;
}

const AGENT_KEYS = Object.keys(MODEL_OPTIONS) as (keyof AgentValues)[];

/**
 * Agent configs for every model. The default mode, both, means "every mode this model has": a
 * model the model table says has no function calling runs structured only; a --mode both or
 * tools that was asked for stays an error on it.
 */
export function resolveAgents(values: AgentValues, sources: Partial<Record<keyof AgentValues, ValueSource>>, env: NodeJS.ProcessEnv): AgentConfig[] {
  const models = values.model?.length ? values.model : (O.model.default as readonly string[]);
  const configs: AgentConfig[] = [];
  for (const model of models) {
    const mode = values.mode ?? DEFAULT_MODE;
    const defaulted = (sources.mode ?? "default") === "default" && mode === DEFAULT_MODE;
    configs.push(
      ...resolveAgentConfigs({
        model,
        baseUrl: values["base-url"],
        apiKeyEnv: values["api-key-env"],
        temperature: values.temperature,
        reasoningEffort: values["reasoning-effort"],
        maxTokens: values["max-tokens"],
        stream: values.stream ?? false,
        env,
        mode: defaulted && lookupModel(model).functionCalling === false ? "structured" : mode,
      }),
    );
  }
  const labels = new Set<string>();
  for (const c of configs) {
    if (labels.has(c.label)) throw new UmpireError("usage", `the agent config ${c.label} is given twice`, "name each --model once");
    labels.add(c.label);
  }
  return configs;
}

export const run: Command = async (argv, io) => {
  const parsed = parseCommand("run", argv, OPTIONS, io);
  const { values, sources, positionals } = parsed;
  if (parsed.help) {
    io.stdout.write(HELP);
    return EXIT.ok;
  }
  const endpoints = values["browser-endpoint"] ?? [];
  // With remote browsers, as many trials at once as the endpoints take.
  const concurrency = values.concurrency ?? (endpoints.length ? totalCapacity(endpoints) : availableParallelism());
  const modelConcurrency = values["model-concurrency"] ?? concurrency;
  const repeat = values.repeat;
  const repetition = { window: values["repetition-window"], recoveryLimit: values["recovery-limit"] };
  const prices = pricesOf(values, parsed.config);
  const dbPath = resolve(io.cwd, values.db);
  if (values.resume && values.shard) throw new UmpireError("usage", "--shard does not go with --resume", "a shard's store holds only its own trials: --resume RUN --db <that shard's file> resumes exactly them");
  const shard: ShardSource | undefined = values.resume ? undefined : values.shard ? { ...parseShard(values.shard), source: "--shard" } : shardFromEnv(io.env);
  const outDir = resolve(io.cwd, values.out);

  const store = openStore(dbPath);
  let runId: string;
  let trials: PlannedTrial[];
  let agents: AgentConfig[];
  let tasks: Task[];
  let project: ProjectTargets;
  const previousAttempts = new Map<string, number>();
  let finished = false;
  // Store writes wait until the runtime is up, so a browser endpoint that never answers leaves no run behind.
  let persist: () => void;
  try {
    if (values.resume) {
      const stored = store.getRun(values.resume);
      const options = stored.options as { paths?: string[]; agentOptions?: Record<string, unknown>; repeat?: number };
      project = projectTargets(parsed.config, options.paths ?? [], io.cwd);
      tasks = loadTasksOrThrow(options.paths ?? [], { cwd: io.cwd, targets: project.targets });
      // The agent as the run first resolved it (flags and config then), with only today's flags on top.
      const before = (options.agentOptions ?? {}) as AgentValues;
      const now = pickAgentValues(values, sources, ["flag"]);
      agents = resolveAgents({ ...before, ...now }, { ...sourcesOf(before, "config"), ...sourcesOf(now, "flag") }, io.env);
      runId = stored.id;
      const all = planTrials(runId, tasks, agents.map(agentPlan), options.repeat ?? 1);
      const unfinished = new Set(store.unfinishedTrials(runId).map((t) => t.id));
      for (const t of store.trials(runId)) previousAttempts.set(t.id, t.attempt);
      trials = all.filter((t) => unfinished.has(t.id));
      persist = () => store.reopenRun(runId);
    } else {
      project = projectTargets(parsed.config, positionals, io.cwd);
      tasks = loadTasksOrThrow(positionals, { cwd: io.cwd, targets: project.targets });
      agents = resolveAgents(values, sources, io.env);
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
          options: {
            paths: positionals,
            agentOptions: pickAgentValues(values, sources, ["flag", "config"]),
            repeat,
            concurrency,
            agents: agents.map(redactConfig),
            config: resolvedConfig(parsed.config, values, sources),
            ...(shardOptions ? { shard: shardOptions } : {}),
          },
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

/** The agent options that came from `from` (not built-in defaults), stored so --resume rebuilds the same configs. */
function pickAgentValues(values: Record<string, unknown>, sources: Record<string, ValueSource | undefined>, from: ValueSource[]): AgentValues {
  return Object.fromEntries(AGENT_KEYS.filter((k) => values[k] !== undefined && from.includes(sources[k]!)).map((k) => [k, values[k]])) as AgentValues;
}

function sourcesOf(values: AgentValues, source: ValueSource): Partial<Record<keyof AgentValues, ValueSource>> {
  return Object.fromEntries(Object.keys(values).map((k) => [k, source]));
}

/**
 * The configuration the run ran with: the config file it read and every option's value and
 * source (flag, config, default). Per-invocation switches are left out; the store removes
 * anything that looks like a secret on top (a key never is an option: only its variable's name).
 */
function resolvedConfig(config: LoadedConfig, values: Record<string, unknown>, sources: Record<string, ValueSource | undefined>) {
  const skip = new Set(["json", "resume", "config"]);
  const options = Object.fromEntries(
    Object.entries(sources)
      .filter(([name, source]) => source !== undefined && !skip.has(name))
      .map(([name, source]) => [name, { value: values[name], source }]),
  );
  return { file: config.file, options, ...(config.data.prices ? { prices: config.data.prices } : {}) };
}
