/**
 * `umpire run`: the main job. Runs task files x agent configs x repeats in real Chromium
 * against the fixture site, judges every trial with independent checks, stores everything,
 * and ends with a summary per task and mode and the structured-vs-function-calling table.
 */
import { existsSync } from "node:fs";
import { describeChromium, locateChromium } from "../../browser/chromium.js";
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { AgentConfigSchema, DEFAULT_API_KEY_ENV, DEFAULT_MAX_TOKENS, DEFAULT_RETRY_POLICY, DEFAULT_TEMPERATURE, agentDefinitionHash, lookupModel, preflight, readApiKey, resolveAgentConfigs, redactConfig, withoutCredentials, type AgentConfig } from "../../agent/index.js";
import { finalizeAgents, resolveNamedAgents } from "../agents.js";
import type { LoadedConfig } from "../../config/loader.js";
import { redactCommandAgent, resolveCommandAgent } from "../../config/command-agent.js";
import type { CommandAgentSpec } from "../../runner/external-trial.js";
import type { SandboxMode } from "../../runner/agent-sandbox.js";
import { commandSandbox } from "../command-sandbox.js";
import { modelProxyWithKey } from "../model-proxy-key.js";
import type { OptionSpec } from "../../config/option.js";
import { DEFAULT_ADAPTIVE_MAX, DEFAULT_MODE, OPTIONS as O, PRICE_OPTIONS } from "../../config/options.js";
import { UmpireError } from "../../errors.js";
import { registerSecret, registerUrlSecrets, withoutUrlCredentials } from "../../safety/secrets.js";
import { checkedRunId } from "../run-id.js";
import { oneLine } from "../../safety/terminal.js";
import { planTrials, storedPlan, type PlannedTrial } from "../../runner/plan.js";
import { newRunId } from "../../vocabulary.js";
import { totalCapacity } from "../../runner/browser-pool.js";
import { assignShards, parseShard, shardFromEnv, shardLabel, type ShardSource } from "../../runner/shards.js";
import { emptyStore, openStore, type RunRecord, type Store } from "../../store/index.js";
import { HEARTBEAT_MS } from "../../store/rows.js";
import { loadTasksOrThrowAsync } from "../../task/loader.js";
import { CUSTOM_CHECK_RULES } from "../../checks/index.js";
import { projectTargets, type ProjectTargets } from "../../config/project.js";
import type { Task } from "../../task/schema.js";
import { pricesOf, type ParsedCommand, type ValueSource } from "../args.js";
import { defineCommand } from "../command.js";
import { EXIT, exitCodesHelp, runExitCode, type VerdictCounts } from "../exit-codes.js";
import type { Command, CommandIO } from "../io.js";
import { resumeIgnoresOut, storageFaultInRun, type RunStage } from "../storage-fault.js";
import { withReadStore } from "../read-store.js";
import { renderRunOutcome } from "../run-output.js";
import { liveReporters, planOutputs, writeRunOutputs, type Reporter } from "../reporters.js";
import { failedPairs, filterTasks, hasTaskFilter, keepPairs, nothingSelected, pairKey, refuseSelfTestRun } from "../selection.js";
import { writeRunReport } from "../../report/html/index.js";
import { executeTrials, runFolder, startRuntime } from "../suite-runtime.js";
import { collectRunEnvironment } from "../run-environment.js";
import type { EndpointReport } from "../../runner/concurrency-gate.js";
import { poolReports, type PoolReport } from "../../target/index.js";
import { referenceTuningFromEnv } from "../reference-tuning.js";
import { VERSION } from "../version.js";
import { UNTIL_DECIDED_OPTIONS, addRepeatsUntilDecided, decisionText, moneyStopNotice, untilDecidedBaseline, type DecisionSummary } from "../until-decided.js";

export { DEFAULT_OUT } from "../../config/options.js";

const MODEL_OPTIONS = {
  agent: {
    kind: "string",
    arg: "NAME",
    multiple: true,
    defaultText: "the config file's defaultAgents; without them, an agent made of --model and --mode",
    help: "run the named agent from the config file's agents: (docs/config.md); kind command: an agent with its own loop (docs/external-agents.md)",
  },
  model: O.model,
  "base-url": O["base-url"],
  mode: O.mode,
  "api-key-env": O["api-key-env"],
  temperature: O.temperature,
  "reasoning-effort": O["reasoning-effort"],
  "max-tokens": O["max-tokens"],
  stream: O.stream,
  "no-preflight": {
    kind: "boolean",
    help: "skip the check, before the first trial, that each endpoint is reachable,\naccepts the key and serves the model",
  },
} as const satisfies Record<string, OptionSpec>;
const RUN_OPTIONS = {
  repeat: O.repeat,
  concurrency: O.concurrency,
  "max-concurrency": O["max-concurrency"],
  "model-concurrency": O["model-concurrency"],
  tag: O.tag,
  resume: { kind: "string", arg: "RUN", help: "run only the unfinished trials of an earlier run" },
  "run-id": { kind: "string", arg: "ID", help: "use this run id (all shards of one run share it)" },
  retries: O.retries,
  "max-failures": O["max-failures"],
  "exit-first": O["exit-first"],
  ...UNTIL_DECIDED_OPTIONS,
  "no-sandbox": O["no-sandbox"],
} as const satisfies Record<string, OptionSpec>;
const SELECT_OPTIONS = {
  grep: O.grep,
  "grep-invert": O["grep-invert"],
  "task-tag": O["task-tag"],
  "last-failed": O["last-failed"],
  "failed-in": O["failed-in"],
  list: O.list,
} as const;
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
  json: { ...O.json, help: "print only JSON (run id and every trial); same as --reporter json" },
  report: O.report,
  trace: O.trace,
  reporter: O.reporter,
  quiet: O.quiet,
} as const;
const OPTIONS = { ...MODEL_OPTIONS, ...SELECT_OPTIONS, ...RUN_OPTIONS, ...SCALE_OPTIONS, ...REPETITION_OPTIONS, ...OUTPUT_OPTIONS } as const;

const HELP_SECTIONS = {
  model: MODEL_OPTIONS,
  "choosing what runs (--tag labels a run; --task-tag selects tasks)": SELECT_OPTIONS,
  run: RUN_OPTIONS,
  "scale out (docs/scale-out.md)": SCALE_OPTIONS,
  repetition: REPETITION_OPTIONS,
  output: OUTPUT_OPTIONS,
};

const RUN_EXIT_CODES = exitCodesHelp({
  ok: "every trial passed",
  failed: "some trial failed (the agent's doing)",
  usage: "usage or input error, including a model endpoint that is unreachable, refuses the key or\ndoes not serve the model (found by the preflight, before any browser starts)",
  infrastructure: "some trial ended in verdict error (infrastructure) after its retries (--retries), and none failed",
  internal: "umpire could not do its whole job (e.g. a reporter failed; the run itself went on)",
  interrupted: "interrupted (Ctrl-C): trials in flight are stored as cancelled; --resume runs them again",
});

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

const AGENT_KEYS = Object.keys(MODEL_OPTIONS).filter((k) => k !== "agent") as (keyof AgentValues)[];
/** Flags that ask for an unnamed agent (made of --model/--mode) next to or instead of named ones. */
const UNNAMED_AGENT_FLAGS = ["model", "mode", "base-url", "api-key-env"] as const;
/** An agent's invalid-output limit when it sets none. */
const DEFAULT_MAX_INVALID_OUTPUTS = 3;

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

export const run = defineCommand({
  name: "run",
  options: OPTIONS,
  positionals: [{ name: "paths or task ids", variadic: true }],
  sections: HELP_SECTIONS,
  description: `Runs every task (default: tasks/) with each agent, in parallel, in real Chromium against
the fixture site; judges each trial with independent checks and stores it in SQLite.
With no options: the whole suite, both output modes, on the embedded reference model
(or the config file's defaultAgents). Agents: --agent NAME (repeatable) from the config
file's agents:, and/or an unnamed agent made of --model and --mode.
A value comes from the command line, else the config file's "defaults", else the built-in default.`,
  epilogue: RUN_EXIT_CODES,
  run: async (parsed, io) => {
    // How far the run got, so a full or unwritable disk is explained for where it struck (storage-fault.ts).
    const stage: RunStage = {};
    try {
      return await runCommand(parsed, io, stage);
    } catch (error) {
      throw storageFaultInRun(error, stage);
    }
  },
});

async function runCommand(parsed: ParsedCommand<typeof OPTIONS>, io: CommandIO, stage: RunStage): Promise<number> {
  const { values, sources, positionals } = parsed;
  registerRunSecrets(values, io.env);
  const endpoints = values["browser-endpoint"] ?? [];
  // Pinned by --concurrency; otherwise where the embedded model's adaptive limit starts: with local browsers
  // half the cores, since a trial on the instant embedded model keeps about a core busy (it rises while the CPU allows).
  const embeddedStart = Math.max(1, Math.floor(availableParallelism() / 2));
  const concurrency = values.concurrency ?? (endpoints.length ? Math.min(totalCapacity(endpoints), availableParallelism()) : embeddedStart);
  if (values.concurrency !== undefined && values["max-concurrency"] !== undefined) {
    throw new UmpireError("usage", "--max-concurrency bounds the adaptive mode, and --concurrency pins it: give one", "drop --concurrency to adapt up to the ceiling, or drop --max-concurrency to pin");
  }
  // Not pinned: each model endpoint's concurrency adapts (src/runner/concurrency-controller.ts) up to this ceiling.
  const adaptiveMax = values.concurrency === undefined ? (values["max-concurrency"] ?? (endpoints.length ? totalCapacity(endpoints) : DEFAULT_ADAPTIVE_MAX)) : undefined;
  const modelConcurrency = values["model-concurrency"] ?? adaptiveMax ?? concurrency;
  const repeat = values.repeat;
  const repetition = { window: values["repetition-window"], recoveryLimit: values["recovery-limit"] };
  const loopDefaults = { repetitionWindow: repetition.window, recoveryLimit: repetition.recoveryLimit, maxInvalidOutputs: DEFAULT_MAX_INVALID_OUTPUTS };
  let unnamedAgents = true;
  const prices = pricesOf(values, parsed.config);
  const dbPath = resolve(io.cwd, values.db);
  if (values.resume && values.shard) throw new UmpireError("usage", "--shard does not go with --resume", "a shard's store holds only its own trials: --resume RUN --db <that shard's file> resumes exactly them");
  const shard: ShardSource | undefined = values.resume ? undefined : values.shard ? { ...parseShard(values.shard), source: "--shard" } : shardFromEnv(io.env);
  const outDir = resolve(io.cwd, values.out);
  let sandboxMode: SandboxMode | undefined;
  const sandbox = () => (sandboxMode ??= commandSandbox({ noSandbox: values["no-sandbox"] === true, outDir, dbPath, env: io.env, warn: (line) => io.stderr.write(`${line}\n`) }));
  const failedRef = values["failed-in"] ?? (values["last-failed"] ? "latest" : undefined);
  if (values["failed-in"] && values["last-failed"]) throw new UmpireError("usage", "--last-failed and --failed-in are both given", "--last-failed is --failed-in latest: keep one");
  if (values.resume && (failedRef || hasTaskFilter(values))) {
    throw new UmpireError("usage", "--resume runs exactly the unfinished trials of its run: it takes no --last-failed, --failed-in, --grep, --grep-invert or --task-tag", "drop the filter, or start a new run with it");
  }
  if (values["exit-first"] && values["max-failures"] !== undefined && values["max-failures"] !== 1) {
    throw new UmpireError("usage", `-x (--exit-first) and --max-failures ${values["max-failures"]} disagree`, "-x is --max-failures 1: keep one");
  }
  const maxFailures = values["exit-first"] ? 1 : values["max-failures"];
  const outputs = await planOutputs(values.reporter ?? [], { json: values.json, quiet: values.quiet, cwd: io.cwd });
  // Lines for a person (shard plan, notices) stay off the terminal under --quiet and when stdout is a machine's.
  const chatty = !values.quiet && outputs.summary;

  // A bad --run-id is refused before any file is opened or created.
  const askedRunId = values["run-id"] !== undefined ? checkedRunId(values["run-id"]) : undefined;
  // A listing writes nothing: it reads what it needs (--resume, --last-failed, shard durations) without creating or migrating the file.
  const store = values.list ? listingStore(dbPath, Boolean(values.resume || failedRef)) : openStore(dbPath);
  let decided: DecisionSummary | undefined;
  const runSpend = values["max-cost"] === undefined ? undefined : { limitUsd: values["max-cost"], spentUsd: 0 };
  let runId: string;
  // The shard label of every planned trial (null: unsharded), for --list and the stored plan.
  let shardOfTrial: string | null = null;
  let trials: PlannedTrial[];
  let agents: AgentConfig[];
  let commandAgents: CommandAgentPlan[] = [];
  const commands = () => commandSpecs(commandAgents, sandbox, io.env, values.list === true);
  let tasks: Task[];
  let project: ProjectTargets;
  // Where trial folders go. A resumed run keeps its stored folder, whatever --out says now, so the
  // run row, its report links and every attempt's folder stay together.
  let runDir: string;
  const previousAttempts = new Map<string, number>();
  let finished = false;
  // Store writes wait until the runtime is up, so a browser endpoint that never answers leaves no run behind.
  let persist: () => void;
  try {
    const baselineId = untilDecidedBaseline(values, store);
    if (values.resume) {
      if (values.agent?.length) throw new UmpireError("usage", "--agent does not go with --resume", "--resume reruns the agents the run was started with");
      const stored = refuseSelfTestRun(store.getRun(values.resume), "--resume");
      const options = stored.options as { paths?: string[]; agentOptions?: Record<string, unknown>; repeat?: number };
      project = projectTargets(parsed.config, options.paths ?? [], io.cwd);
      tasks = await loadTasksOrThrowAsync(options.paths ?? [], { cwd: io.cwd, targets: project.targets }, CUSTOM_CHECK_RULES);
      const storedAgent = (options.agentOptions ?? {}) as AgentValues & { "base-url-had-credentials"?: boolean };
      if (storedAgent["base-url-had-credentials"] === true && values["base-url"] === undefined) {
        throw new UmpireError(
          "usage",
          `run ${stored.id} used a --base-url with credentials in it, which are never stored`,
          `pass the same --base-url again: umpire run --resume ${stored.id} --base-url <url>`,
        );
      }
      const { "base-url-had-credentials": _had, ...beforeValues } = storedAgent;
      // The agent as the run first resolved it (flags and config then), with only today's flags on top.
      const before = beforeValues as AgentValues;
      const now = pickAgentValues(values, sources, ["flag"]);
      // Named agents run again exactly as stored (their definitions, policy text included, are in the run).
      const named = ((stored.options as { agents?: AgentConfig[] }).agents ?? []).filter((a) => a.name !== undefined).map((a) => AgentConfigSchema.parse(a));
      const unnamed = (stored.options as { unnamedAgents?: boolean }).unnamedAgents === false ? [] : resolveAgents({ ...before, ...now }, { ...sourcesOf(before, "config"), ...sourcesOf(now, "flag") }, io.env);
      agents = finalizeAgents([...named, ...unnamed], loopDefaults);
      commandAgents = storedCommandAgents(stored, "--resume", parsed.config, io.cwd);
      runId = stored.id;
      runDir = stored.folder ?? runFolder(outDir, runId);
      stage.resuming = runId;
      const ignored = values.list ? null : resumeIgnoresOut(sources.out === "flag", outDir, runDir, runId);
      if (ignored) io.stderr.write(`${ignored}\n`);
      // The stored rows name the trials (a filtered run's ids are not those of the full plan): match each to its task and agent.
      const all = new Map(
        planTrials(runId, tasks, [...agents, ...commandAgents.map((c) => c.config)], options.repeat ?? 1, commands()).map((t) => [`${pairKey(t.task.id, t.agent.label)}\u0000${t.repeat}`, t]),
      );
      for (const t of store.trials(runId)) previousAttempts.set(t.id, t.attempt);
      trials = store.unfinishedTrials(runId).map((row) => {
        const planned = all.get(`${pairKey(row.taskId, row.agentLabel)}\u0000${row.repeat}`);
        if (!planned) {
          throw new UmpireError("input", `run ${runId}: trial ${row.id} is task ${row.taskId} with ${row.agentLabel}, which the run's task files and agents no longer give`, `restore ${row.taskFile}, or start a new run`);
        }
        return { ...planned, id: row.id, seq: row.seq };
      });
      persist = () => store.reopenRun(runId);
    } else {
      // --last-failed: the earlier run's tasks and agents (today's flags on top), narrowed to what did not pass there.
      const failed = failedRef ? failedPairs(store, failedRef) : undefined;
      const earlier = failed ? (store.getRun(failed.runId).options as { paths?: string[]; agentOptions?: Record<string, unknown>; agents?: AgentConfig[]; unnamedAgents?: boolean }) : undefined;
      const paths = positionals.length || !earlier ? positionals : (earlier.paths ?? []);
      project = projectTargets(parsed.config, paths, io.cwd);
      const allTasks = await loadTasksOrThrowAsync(paths, { cwd: io.cwd, targets: project.targets }, CUSTOM_CHECK_RULES);
      tasks = filterTasks(allTasks, values);
      if (tasks.length === 0) throw nothingSelected(allTasks, values);
      let agentValues = pickAgentValues(values, sources, ["flag", "config"]);
      if (earlier && !values.agent?.length) {
        // The earlier run's agents as --resume restores them: named ones as stored, the unnamed one from its options with today's flags on top.
        const { "base-url-had-credentials": had, ...before } = (earlier.agentOptions ?? {}) as AgentValues & { "base-url-had-credentials"?: boolean };
        if (had === true && values["base-url"] === undefined) {
          throw new UmpireError("usage", `run ${failed!.runId} used a --base-url with credentials in it, which are never stored`, `pass the same --base-url again: umpire run --last-failed --base-url <url>`);
        }
        const now = pickAgentValues(values, sources, ["flag"]);
        const named = (earlier.agents ?? []).filter((a) => a.name !== undefined).map((a) => AgentConfigSchema.parse(a));
        unnamedAgents = earlier.unnamedAgents !== false;
        const unnamed = unnamedAgents ? resolveAgents({ ...before, ...now }, { ...sourcesOf(before, "config"), ...sourcesOf(now, "flag") }, io.env) : [];
        agents = finalizeAgents([...named, ...unnamed], loopDefaults);
        commandAgents = storedCommandAgents(store.getRun(failed!.runId), "--last-failed", parsed.config, io.cwd);
        agentValues = { ...before, ...now };
      } else {
        // --agent names agents; else the config's defaultAgents, unless --model/--mode ask for an unnamed one.
        const unnamedAsked = UNNAMED_AGENT_FLAGS.some((k) => sources[k] === "flag");
        const names = values.agent ?? (unnamedAsked ? [] : (parsed.config.data.defaultAgents ?? []));
        // Agents of kind command bring their own loop; the others are model agents of umpire's loop.
        const isCommand = (name: string) => parsed.config.data.agents?.[name]?.kind === "command";
        commandAgents = commandAgentPlans(names.filter(isCommand), parsed.config, io.cwd);
        const named = resolveNamedAgents(parsed.config, names.filter((n) => !isCommand(n)), values, sources, io.env);
        unnamedAgents = (named.length === 0 && commandAgents.length === 0) || unnamedAsked;
        agents = finalizeAgents([...named, ...(unnamedAgents ? resolveAgents(values, sources, io.env) : [])], loopDefaults);
      }
      runId = askedRunId ?? newRunId();
      runDir = runFolder(outDir, runId);
      // Trial ids come from the full plan, so every shard's ids are those of the unsharded run.
      trials = planTrials(runId, tasks, [...agents, ...commandAgents.map((c) => c.config)], repeat, commands());
      if (failed) {
        trials = keepPairs(trials, failed.pairs, runId);
        if (trials.length === 0) {
          const why = failed.notPassed === 0 ? `every one of its ${failed.trials} trials passed` : "none of the tasks x agents that did not pass there is in today's selection";
          (values.json ? io.stderr : io.stdout).write(`umpire: nothing to re-run from run ${failed.runId}: ${why}\n`);
          return EXIT.ok;
        }
        if (chatty) io.stderr.write(`umpire: re-running ${trials.length} trials: the tasks x agents that did not pass in run ${failed.runId}\n`);
      }
      let shardOptions: Record<string, unknown> | undefined;
      if (shard && shard.total > 1) {
        const history = values["shard-history"] ? withReadStore(values["shard-history"], io, (s) => s.durationHistory()) : store.durationHistory();
        const plan = assignShards(trials, shard.total, history);
        shardOptions = { index: shard.index, total: shard.total, trials: trials.length, balance: plan.balance, plan: plan.fingerprint };
        trials = plan.shards[shard.index - 1];
        if (chatty && !values.list) {
          io.stderr.write(`shard ${shardLabel(shard)} (${shard.source}): ${trials.length} of ${shardOptions.trials} trials, balanced by ${plan.balance === "duration" ? "recorded durations" : "count (no history)"}, plan ${plan.fingerprint}\n`);
        }
      }
      shardOfTrial = shardOptions && shard ? shardLabel(shard) : null;
      const [id, planned, shardOfPlanned] = [runId, trials, shardOfTrial];
      persist = () => {
        store.createRun({
          id,
          tags: values.tag ?? [],
          umpireVersion: VERSION,
          folder: runDir,
          options: {
            paths,
            agentOptions: storable(agentValues),
            ...(failed || hasTaskFilter(values) ? { selection: { grep: values.grep, grepInvert: values["grep-invert"], taskTags: values["task-tag"], failedIn: failed?.runId } } : {}),
            repeat,
            concurrency: adaptiveMax ? `adaptive (max ${adaptiveMax})` : concurrency,
            agents: agents.map(redactConfig),
            agentNames: agents.flatMap((a) => (a.name !== undefined ? [a.name] : [])),
            unnamedAgents,
            ...(commandAgents.length ? { commandAgents: commandAgents.map((c) => c.stored) } : {}),
            config: resolvedConfig(parsed.config, values, sources),
            ...(shardOptions ? { shard: shardOptions } : {}),
          },
        });
        store.addTrials(id, planned.map((t) => storedPlan(t, shardOfPlanned)));
      };
    }
    if (values.list) {
      io.stdout.write(values.json ? `${JSON.stringify(listJson(trials, shardOfTrial), null, 2)}\n` : listText(trials, shardOfTrial));
      return EXIT.ok;
    }

    // Before any browser starts: a dead or misconfigured endpoint stops the run here, in seconds.
    if (!values["no-preflight"]) await preflightEndpoints(agents, io);
    // Which Chromium judged the trials: the headless shell and the full browser differ in CPU, not pixels.
    // (The process's environment, as the launch reads it; a missing browser is the launch's error to give.)
    const browser = chatty && endpoints.length === 0 ? locateChromium() : undefined;
    if (browser) io.stderr.write(`umpire: browser: ${describeChromium(browser)}\n`);

    const runtime = await startRuntime({
      tasks,
      agents,
      browserEndpoints: endpoints,
      fixturesHost: values["fixtures-host"],
      reference: referenceTuningFromEnv(io.env),
      onNotice: (message) => {
        if (!values.quiet) io.stderr.write(`umpire: ${message}\n`);
      },
      config: project,
      logDir: runDir,
      concurrency: adaptiveMax ?? concurrency,
      env: io.env,
      signal: io.signal,
    });
    try {
      persist();
      stage.stored = { runId, runDir };
      // The environment the trials run on; a resumed run keeps the one it started on.
      if (!store.getRun(runId).environment) store.setRunEnvironment(runId, { ...(await collectRunEnvironment({ browsers: runtime.browsers, targets: runtime.targets, tasks, env: io.env })) });
    } catch (error) {
      await runtime.close();
      throw error;
    }

    // Readers tell a live run from one killed with -9 by its owner's pid and this heartbeat.
    const heartbeat = setInterval(() => {
      try {
        store.heartbeat(runId);
      } catch {
        /* a full disk is reported by the trial writes; the heartbeat only goes stale */
      }
    }, HEARTBEAT_MS);
    heartbeat.unref();
    // A second Ctrl-C exits the process at once: still leave the run marked as interrupted.
    const markOnExit = () => {
      if (!finished) store.markInterrupted(runId);
    };
    process.once("exit", markOnExit);
    const reporters: Reporter[] = liveReporters(outputs, io);
    let status: "finished" | "interrupted";
    let stoppedEarly: { failures: number; notStarted: number } | undefined;
    let concurrencyReport: EndpointReport[] = [];
    let pools: PoolReport[] = [];
    let reporterFailed = false;
    try {
      const execute = (batch: PlannedTrial[]) => executeTrials({
        runSpend,
        runtime,
        store,
        runId,
        runDir,
        trials: batch,
        env: io.env,
        prices,
        concurrency,
        adaptiveMax,
        modelConcurrency,
        repetition,
        reporters,
        // Isolated from the run, but loud: the user learns their output is incomplete, and the exit code says so.
        onReporterError: ({ hook, error }) => {
          reporterFailed = true;
          io.stderr.write(`umpire: a reporter failed in ${hook} (the run goes on; exit code ${EXIT.internal}): ${error instanceof Error ? error.message : String(error)}\n`);
        },
        signal: io.signal,
        previousAttempts,
        retries: values.retries,
        maxFailures,
        trace: values.trace,
      });
      ({ status, concurrency: concurrencyReport, stoppedEarly } = await execute(trials));
      if (baselineId && status === "finished" && !stoppedEarly) {
        const ctx = { store, runId, baselineId, planned: trials, prices, execute, maxTrials: values["max-trials"], maxCostUsd: values["max-cost"] };
        decided = await addRepeatsUntilDecided(ctx);
        if (decided.stoppedBy === "interrupted") status = "interrupted";
      }
    } catch (error) {
      // A storage fault (or a crash) stopped the run: mark it interrupted so `umpire runs` and
      // --resume see it as such. The store itself may be what is full: then the dead-owner check
      // in `umpire runs` shows it interrupted anyway.
      try {
        store.markInterrupted(runId);
        finished = true;
      } catch {
        /* the original error says what happened */
      }
      throw error;
    } finally {
      clearInterval(heartbeat);
      pools = poolReports(runtime.targets.all());
      await runtime.close();
      process.off("exit", markOnExit);
    }
    // Finished only when every planned trial has a judged verdict (a cancelled one, or one --max-failures left unstarted, waits for --resume).
    if (status === "interrupted" || store.unfinishedTrials(runId).length > 0) store.markInterrupted(runId);
    else store.finishRun(runId, "finished");
    finished = true;
    // --json (a json reporter on stdout) keeps the run's JSON shape with its concurrency report.
    const stdoutJson = outputs.reporters.some((r) => r.name === "json" && !r.file);
    const counts =
      outputs.summary || stdoutJson ? renderRunOutcome(store, runId, prices, io, stdoutJson, { concurrency: concurrencyReport, pools }) : verdictCounts(store.trials(runId));
    const others = { ...outputs, reporters: outputs.reporters.filter((r) => !(r.name === "json" && !r.file)) };
    for (const note of writeRunOutputs(others, store, runId, prices, io)) (outputs.summary ? io.stdout : io.stderr).write(`${note}\n`);
    if (decided) (outputs.summary ? io.stdout : io.stderr).write(decisionText(decided));
    if (stoppedEarly) {
      io.stderr.write(
        `umpire: stopped after ${plural(stoppedEarly.failures, "failed or error trial")} (--max-failures ${maxFailures}); ${plural(stoppedEarly.notStarted, "trial")} not run: umpire run --resume ${runId} runs them\n`,
      );
    }
    if (values.report) {
      const { indexPath } = writeRunReport(store, runId, { prices, cwd: io.cwd });
      // stdout stays pure JSON under --json; the path goes to stderr then.
      (outputs.summary ? io.stdout : io.stderr).write(`report: ${indexPath}\n`);
    }
    const unpaid = runSpend ? moneyStopNotice(store, runId, runSpend) : null;
    if (unpaid) io.stderr.write(unpaid);
    return runExitCode(counts, { interrupted: status === "interrupted" || unpaid !== null, reporterFailed });
  } finally {
    store.close();
  }
}

/** Failures and errors of stored trials, for the exit code when nothing prints the summary. */
function verdictCounts(trials: readonly { verdict: string | null }[]): VerdictCounts {
  return { failed: trials.filter((t) => t.verdict === "failed").length, errors: trials.filter((t) => t.verdict === "error").length };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** `--list`: the planned trials, one a line, in the order they would start. */
function listText(trials: PlannedTrial[], shard: string | null): string {
  const rows = [["task", "agent", "repeat", "shard"], ...trials.map((t) => [t.task.id, t.agent.label, String(t.repeat), shard ?? "1/1"])];
  const widths = [0, 1, 2].map((i) => Math.max(...rows.map((r) => r[i]!.length)));
  const lines = rows.map((r) => r.map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell)).join("  "));
  const tasks = new Set(trials.map((t) => t.task.id)).size;
  const agents = new Set(trials.map((t) => t.agent.label)).size;
  return `${lines.join("\n")}\n${plural(trials.length, "trial")} (${plural(tasks, "task")}, ${plural(agents, "agent")}${shard ? `, shard ${shard}` : ""}); nothing was run\n`;
}

function listJson(trials: PlannedTrial[], shard: string | null) {
  return trials.map((t) => ({ task: t.task.id, title: t.task.title, agent: t.agent.label, repeat: t.repeat, shard: shard ?? "1/1" }));
}

/**
 * Runs the preflight once per distinct endpoint, model and key. The embedded reference model is
 * skipped: umpire starts it itself. Throws a `config` error (exit 2) naming the URL, the model and the fix.
 */
async function preflightEndpoints(agents: readonly AgentConfig[], io: Parameters<Command>[1]): Promise<void> {
  const targets = new Map<string, Parameters<typeof preflight>[0]>();
  for (const agent of agents) {
    if (agent.endpoint.kind !== "url") continue;
    const apiKey = readApiKey(agent, io.env);
    const key = JSON.stringify([agent.endpoint.baseUrl, agent.model, agent.apiKeyEnv]);
    targets.set(key, { baseUrl: agent.endpoint.baseUrl, shownUrl: withoutCredentials(agent.endpoint.baseUrl), model: agent.model, apiKey, apiKeyEnv: agent.apiKeyEnv });
  }
  const results = await Promise.all([...targets.values()].map((t) => preflight(t)));
  for (const result of results) {
    if (result.ok && result.note) io.stderr.write(`umpire: preflight: ${oneLine(result.note)}\n`);
  }
  const failed = results.filter((r): r is Extract<typeof r, { ok: false }> => !r.ok);
  if (failed.length > 0) {
    const [first, ...rest] = failed;
    const more = rest.map((r) => `\n  also: ${r.message}`).join("");
    throw new UmpireError("config", `preflight failed: ${first.message}${more}`, first.hint);
  }
}

/**
 * The store `--list` reads: the file as it is, never created or migrated (an older schema is
 * migrated in memory). With no file and nothing to read from one, an empty store stands in; a
 * listing that needs a stored run (--resume, --last-failed) gets the usual "no database" error.
 */
function listingStore(file: string, needsRuns: boolean): Store {
  if (!needsRuns && !existsSync(file)) return emptyStore(file);
  return openStore(file, { readonly: true, untouched: true });
}

interface CommandAgentPlan {
  /** A stand-in agent config for the plan, the store and the tables (label = the agent's name). */
  config: AgentConfig;
  command: Omit<CommandAgentSpec, "sandbox">;
  stored: ReturnType<typeof redactCommandAgent>;
}

/**
 * The agents `--agent NAME` names, from the config file's `agents:` (kind command on this
 * branch). An unknown name is a usage error that lists the defined ones.
 */
function commandAgentPlans(names: string[], config: LoadedConfig, cwd: string): CommandAgentPlan[] {
  const defined = config.data.agents ?? {};
  const seen = new Set<string>();
  return names.map((name) => {
    const definition = defined[name];
    if (!definition) {
      const known = Object.keys(defined);
      throw new UmpireError(
        "usage",
        `--agent ${name}: no agent of that name in ${config.file ?? "the config file (there is none)"}`,
        known.length ? `defined agents: ${known.join(", ")}` : "define it under agents: in umpire.config.yaml (docs/external-agents.md)",
      );
    }
    if (definition.kind !== "command") throw new UmpireError("usage", `--agent ${name}: not an agent of kind command`, "model agents are resolved by resolveNamedAgents");
    if (seen.has(name)) throw new UmpireError("usage", `--agent ${name} is given twice`, "name each agent once; --repeat runs it more times");
    seen.add(name);
    const configFile = config.file ? resolve(cwd, config.file) : null;
    const command = resolveCommandAgent(name, definition, configFile, cwd);
    return { config: commandAgentConfig(name, definition.model), command, stored: redactCommandAgent(name, definition) };
  });
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
  const skip = new Set(["json", "resume", "config", "list", "quiet"]);
  const options = Object.fromEntries(
    Object.entries(sources)
      .filter(([name, source]) => source !== undefined && !skip.has(name))
      .map(([name, source]) => [name, { value: name === "base-url" && typeof values[name] === "string" ? withoutUrlCredentials(values[name] as string) : values[name], source }]),
  );
  return { file: config.file, options, ...(config.data.prices ? { prices: config.data.prices } : {}) };
}

/**
 * Agent values as stored with the run: a base URL without user info or query (where keys hide);
 * the run remembers that it had them, so --resume asks for the URL again instead of silently
 * calling the wrong endpoint.
 */
function storable(values: AgentValues): AgentValues & { "base-url-had-credentials"?: boolean } {
  const url = (values as Record<string, unknown>)["base-url"];
  if (typeof url !== "string") return values;
  const bare = withoutUrlCredentials(url);
  return { ...values, "base-url": bare, ...(bare !== url.replace(/\/+$/, "") ? { "base-url-had-credentials": true } : {}) } as AgentValues;
}

/** Registers the key values and URL credentials this run will use, before anything can print them. */
function registerRunSecrets(values: { "base-url"?: string; "api-key-env"?: string }, env: NodeJS.ProcessEnv): void {
  registerUrlSecrets(values["base-url"]);
  registerSecret(env[DEFAULT_API_KEY_ENV]);
  if (values["api-key-env"]) registerSecret(env[values["api-key-env"]]);
}

/** The command each command agent's trials run, by the agent's label. */
function commandSpecs(
  plans: readonly CommandAgentPlan[],
  sandbox: () => SandboxMode,
  env: NodeJS.ProcessEnv,
  listing: boolean,
): Map<string, CommandAgentSpec> {
  if (plans.length === 0) return new Map();
  const mode = sandbox();
  const spec = (c: CommandAgentPlan) => {
    const modelProxy = modelProxyWithKey(c.command.name, c.command.modelProxy, env, listing);
    return { ...c.command, sandbox: mode, modelProxy };
  };
  return new Map(plans.map((c) => [c.config.label, spec(c)]));
}

/**
 * The command agents of a stored run, for --resume and --last-failed. The run stores each one's
 * definition without the values of its environment variables (they may be keys), so the agent is
 * rebuilt from the config file's `agents:`, and only when that definition is still the one the
 * run stored: otherwise the new trials would run another agent under the same name.
 */
function storedCommandAgents(run: RunRecord, flag: "--resume" | "--last-failed", config: LoadedConfig, cwd: string): CommandAgentPlan[] {
  const options = run.options as { commandAgents?: ReturnType<typeof redactCommandAgent>[]; config?: { file?: string | null } };
  const recorded = options.commandAgents ?? [];
  const thenFile = options.config?.file ?? null;
  const nowFile = config.file ?? "the config file (none was found)";
  const instead = flag === "--resume" ? "or start a new run: umpire run --agent <name> ..." : "or name the agents yourself: umpire run --failed-in <run> --agent <name>";
  return recorded.map((was) => {
    const definition = config.data.agents?.[was.name];
    const where = `${thenFile ?? "the config file"}${thenFile && thenFile !== config.file ? ` (today: ${nowFile})` : ""}`;
    if (!definition || definition.kind !== "command") {
      throw new UmpireError(
        "usage",
        `${flag}: run ${run.id} ran the command agent ${was.name}, which ${nowFile} does not define as kind command; the run stores the agent without its environment values, so it is rebuilt from the config file`,
        `define agents: ${was.name} (kind command) as it was in ${where}${thenFile && thenFile !== config.file ? `, or pass --config ${thenFile}` : ""}; ${instead}`,
      );
    }
    const now = redactCommandAgent(was.name, definition);
    const changed = (Object.keys(was) as (keyof typeof was)[]).filter((k) => JSON.stringify(was[k]) !== JSON.stringify(now[k]));
    if (changed.length > 0) {
      throw new UmpireError(
        "usage",
        `${flag}: the command agent ${was.name} in ${nowFile} is not the one run ${run.id} ran (${changed.map((k) => `${k}: ${JSON.stringify(was[k])} then, ${JSON.stringify(now[k])} now`).join("; ")})`,
        `restore its ${changed.join(" and ")} as the run had them; ${instead}`,
      );
    }
    const configFile = config.file ? resolve(cwd, config.file) : null;
    return { config: commandAgentConfig(was.name, definition.model), command: resolveCommandAgent(was.name, definition, configFile, cwd), stored: now };
  });
}

/**
 * The agent config that stands for a command agent in the plan, the store and the tables: its
 * name as label, its model (for pricing what it reports) or `command:<name>`. It never reaches
 * a model session or the preflight: umpire makes no model request for a command agent. The
 * store's mode column knows structured|tools only (docs/external-agents.md, "Limits").
 */
function commandAgentConfig(name: string, model: string | undefined): AgentConfig {
  return {
    label: name,
    model: model ?? `command:${name}`,
    provider: "custom",
    mode: "structured",
    endpoint: { kind: "url", baseUrl: "http://127.0.0.1/command-agent" },
    apiKeyEnv: null,
    temperature: DEFAULT_TEMPERATURE,
    reasoningEffort: "medium",
    maxTokens: DEFAULT_MAX_TOKENS,
    stream: false,
    requestTimeoutMs: 60_000,
    retry: DEFAULT_RETRY_POLICY,
  };
}
