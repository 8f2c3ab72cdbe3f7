/**
 * What the phases of `umpire run` share: the request (the parsed options), the settings derived
 * from it once, and what each phase hands to the next (`selection`, `plan`, `session`, `outcome`).
 */
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import type { AgentConfig } from "../../agent/config.js";
import type { LoadedConfig } from "../../config/loader.js";
import type { ProjectTargets } from "../../config/project.js";
import { UmpireError } from "../../errors.js";
import type { PriceBook } from "../../pricing.js";
import type { SandboxMode } from "../../runner/external/agent-sandbox.js";
import { totalCapacity } from "../../runner/schedule/browser-pool.js";
import type { EndpointReport } from "../../runner/schedule/concurrency-gate.js";
import type { PlannedTrial } from "../../runner/schedule/trial-plan.js";
import { parseShard, shardFromEnv, type ShardSource } from "../../runner/schedule/shards.js";
import type { StoredNotPlayed } from "../../store/run-options.js";
import type { Store } from "../../store/store.js";
import type { PoolReport } from "../../targets/instance-pool.js";
import type { Task } from "../../task/schema.js";
import { concurrencyCeiling, type ConcurrencyPolicy } from "../../vocabulary.js";
import { pricesOf, type ValueSource } from "../args.js";
import { commandSandbox } from "./command-sandbox.js";
import type { CommandIO } from "../io.js";
import { planOutputs, type OutputPlan } from "../reporters.js";
import { checkedRunId } from "./run-id.js";
import { hasTaskFilter, type FailedPairs } from "./selection.js";
import type { RunStage } from "./storage-fault.js";
import type { Runtime } from "../../runtime/suite-runtime.js";
import { DEFAULT_ADAPTIVE_MAX } from "../../config/options.js";
import type { DecisionSummary } from "./until-decided.js";
import type { AgentValues, CommandAgentPlan } from "./agents.js";
import type { SelectedPack } from "./pack.js";
import type { RunValues } from "./options.js";

/** The parsed command line of `umpire run`, and where the run got to (for storage faults). */
export interface RunRequest {
  values: RunValues;
  sources: Partial<Record<string, ValueSource>>;
  positionals: string[];
  config: LoadedConfig;
  io: CommandIO;
  stage: RunStage;
}

/** An agent's invalid-output limit when it sets none. */
const DEFAULT_MAX_INVALID_OUTPUTS = 3;

/** What the options mean for the run, worked out once before anything is opened. */
export interface RunSettings {
  endpoints: string[];
  /** Decided here once; the gate, the target pools and the stored run all take this one value. */
  concurrency: ConcurrencyPolicy;
  modelConcurrency: number;
  repetition: { window: number; recoveryLimit: number };
  loopDefaults: { repetitionWindow: number; recoveryLimit: number; maxInvalidOutputs: number };
  prices: PriceBook;
  dbPath: string;
  outDir: string;
  shard: ShardSource | undefined;
  /** The run whose not-passed trials to re-run (`--failed-in`, `--last-failed` = latest). */
  failedRef: string | undefined;
  maxFailures: number | undefined;
  outputs: OutputPlan;
  /** Lines for a person (shard plan, notices) stay off the terminal under --quiet and when stdout is a machine's. */
  chatty: boolean;
  askedRunId: string | undefined;
  runSpend: { limitUsd: number; spentUsd: number } | undefined;
  /** The sandbox of command agents, decided (and warned about) the first time one is planned. */
  sandbox: () => SandboxMode;
}

/** The settings of `request`; contradictory options are usage errors, found before any file is opened. */
export async function runSettings({ values, config, io }: RunRequest): Promise<RunSettings> {
  const endpoints = values["browser-endpoint"] ?? [];
  // Pinned by --concurrency; otherwise where the embedded model's adaptive limit starts: with local browsers
  // half the cores, since a trial on the instant embedded model keeps about a core busy (it rises while the CPU allows).
  const embeddedStart = Math.max(1, Math.floor(availableParallelism() / 2));
  if (values.concurrency !== undefined && values["max-concurrency"] !== undefined) {
    throw new UmpireError(
      "usage",
      "--max-concurrency bounds the adaptive mode, and --concurrency pins it: give one",
      "drop --concurrency to adapt up to the ceiling, or drop --max-concurrency to pin",
    );
  }
  // Not pinned: each model endpoint's concurrency adapts (src/runner/schedule/concurrency-controller.ts) up to a ceiling.
  const concurrency: ConcurrencyPolicy =
    values.concurrency !== undefined
      ? { mode: "pinned", trials: values.concurrency }
      : {
          mode: "adaptive",
          start: endpoints.length ? Math.min(totalCapacity(endpoints), availableParallelism()) : embeddedStart,
          max: values["max-concurrency"] ?? (endpoints.length ? totalCapacity(endpoints) : DEFAULT_ADAPTIVE_MAX),
        };
  const repetition = { window: values["repetition-window"], recoveryLimit: values["recovery-limit"] };
  const prices = pricesOf(values, config);
  const dbPath = resolve(io.cwd, values.db);
  if (values.resume && values.shard)
    throw new UmpireError(
      "usage",
      "--shard does not go with --resume",
      "a shard's store holds only its own trials: --resume RUN --db <that shard's file> resumes exactly them",
    );
  const shard: ShardSource | undefined = values.resume
    ? undefined
    : values.shard
      ? { ...parseShard(values.shard), source: "--shard" }
      : shardFromEnv(io.env);
  const outDir = resolve(io.cwd, values.out);
  let sandboxMode: SandboxMode | undefined;
  const sandbox = () =>
    (sandboxMode ??= commandSandbox({
      noSandbox: values["no-sandbox"] === true,
      outDir,
      dbPath,
      env: io.env,
      warn: (line) => io.stderr.write(`${line}\n`),
    }));
  const failedRef = values["failed-in"] ?? (values["last-failed"] ? "latest" : undefined);
  refuseContradictions(values, failedRef);
  const outputs = await planOutputs(values.reporter ?? [], { json: values.json, quiet: values.quiet, cwd: io.cwd });
  return {
    endpoints,
    concurrency,
    modelConcurrency: values["model-concurrency"] ?? concurrencyCeiling(concurrency),
    repetition,
    loopDefaults: {
      repetitionWindow: repetition.window,
      recoveryLimit: repetition.recoveryLimit,
      maxInvalidOutputs: DEFAULT_MAX_INVALID_OUTPUTS,
    },
    prices,
    dbPath,
    outDir,
    shard,
    failedRef,
    maxFailures: values["exit-first"] ? 1 : values["max-failures"],
    outputs,
    chatty: !values.quiet && outputs.summary,
    // A bad --run-id is refused before any file is opened or created.
    askedRunId: values["run-id"] !== undefined ? checkedRunId(values["run-id"]) : undefined,
    runSpend: values["max-cost"] === undefined ? undefined : { limitUsd: values["max-cost"], spentUsd: 0 },
    sandbox,
  };
}

function refuseContradictions(values: RunValues, failedRef: string | undefined): void {
  if (values["failed-in"] && values["last-failed"])
    throw new UmpireError(
      "usage",
      "--last-failed and --failed-in are both given",
      "--last-failed is --failed-in latest: keep one",
    );
  if (values.resume && (failedRef || hasTaskFilter(values))) {
    throw new UmpireError(
      "usage",
      "--resume runs exactly the unfinished trials of its run: it takes no --last-failed, --failed-in, --grep, --grep-invert or --task-tag",
      "drop the filter, or start a new run with it",
    );
  }
  if (values["exit-first"] && values["max-failures"] !== undefined && values["max-failures"] !== 1) {
    throw new UmpireError(
      "usage",
      `-x (--exit-first) and --max-failures ${values["max-failures"]} disagree`,
      "-x is --max-failures 1: keep one",
    );
  }
}

/** What the select phase chose: the tasks and the agents, fresh or as a stored run had them. */
export interface Selection {
  tasks: Task[];
  project: ProjectTargets;
  agents: AgentConfig[];
  commandAgents: CommandAgentPlan[];
  /** Whether the run has the agent made of --model/--mode (stored, so --last-failed restores it). */
  unnamedAgents: boolean;
  /** The unnamed agent's options as stored with the run. */
  agentValues: AgentValues;
  paths: string[];
  /** `--last-failed`/`--failed-in`: the earlier run and its task x agent pairs that did not pass. */
  failed?: FailedPairs;
  /** `--resume`: the run being resumed, with its stored plan's repeat count. */
  resumed?: { id: string; folder: string | null; repeat: number };
  /** `--pack`: the benchmark whose environments are the tasks, and its target. */
  pack?: SelectedPack;
  /** The task x agent pairs left out: the agent's protocol cannot offer a tool the task needs (`not-playable.ts`). */
  notPlayed?: StoredNotPlayed[];
}

/** What the plan phase decided: the run, its folder and the trials to run now. */
export interface Plan {
  runId: string;
  /** Where trial folders go; a resumed run keeps its stored folder whatever --out says now. */
  runDir: string;
  trials: PlannedTrial[];
  /** The shard label of every planned trial (null: unsharded), for --list and the stored plan. */
  shardOfTrial: string | null;
  /** Attempts already made, by trial id (a resumed run's). */
  previousAttempts: Map<string, number>;
  /** Stores the run and its trials (or reopens a resumed run); called once the runtime is up. */
  record: () => void;
}

/** What the execute phase ended with. */
export interface Outcome {
  status: "finished" | "interrupted";
  stoppedEarly?: { failures: number; notStarted: number };
  concurrency: EndpointReport[];
  pools: PoolReport[];
  decided?: DecisionSummary;
  reporterFailed: boolean;
}

export interface RunContext extends RunRequest {
  settings: RunSettings;
  store?: Store;
  /** `--until-decided`'s baseline run. */
  baselineId: string | null;
  selection?: Selection;
  plan?: Plan;
  runtime?: Runtime;
  /** Stops the run's heartbeat and its exit hook (the execute phase's teardown). */
  stopHeartbeat?: () => void;
  outcome?: Outcome;
  /** Set once the run row says how the run ended; until then a process exit marks it interrupted. */
  finished: boolean;
}

/** `value`, which an earlier phase set; a phase that runs out of order is a bug, said plainly. */
export function fromPhase<T>(value: T | undefined, phase: string): T {
  if (value === undefined) throw new Error(`umpire run: the ${phase} phase has not run`);
  return value;
}
