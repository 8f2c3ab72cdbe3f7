/**
 * Everything a run needs besides its options: the fixture site, the embedded reference model
 * (when a config uses it), the browser provider and the price book; and one function that
 * plans, stores and executes trials. Shared by `umpire run` and `umpire validate --self-test`.
 */
import type { Target } from "../targets/contract.js";
import { UmpireError } from "../errors.js";
import type { ObservedHook } from "../runner/trial/trial.js";
import type { ConcurrencyPolicy, TraceMode } from "../vocabulary.js";
import { join, resolve } from "node:path";
import { mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { createAgentSession } from "../agent/session.js";
import { readApiKey, redactConfig, type AgentConfig } from "../agent/config.js";
import { REFERENCE_MODEL_ID } from "../agent/models.js";
import { ConcurrencyGate, policyGate } from "../runner/schedule/concurrency-gate.js";
import { createMachineSampler } from "../runner/schedule/machine-load.js";
import { startFixtureSite, type FixtureSite } from "../../fixtures-site/fixture-site.js";
import type { PriceBook } from "../pricing.js";
import { bridgeAgentSession } from "../runner/trial/agent-bridge.js";
import {
  createLocalBrowserProvider,
  createRemoteBrowserProvider,
  type BrowserProvider,
} from "../runner/schedule/browser-pool.js";
import type { AgentSessionLike } from "../runner/trial/loop.js";
import type { RunSpend } from "../runner/trial/cost-limit.js";
import type { PlannedTrial } from "../runner/schedule/trial-plan.js";
import type { RunHooks, ReporterFailure } from "../runner/schedule/run-hooks.js";
import { createRepetitionGuard, type RepetitionSettings } from "../runner/trial/repetition-guard.js";
import { runSuite, type SuiteResult } from "../runner/schedule/run-suite.js";
import { createStoreSink } from "../runner/schedule/store-sink.js";
import { writeOrFault } from "../runner/trial/trial-log.js";
import { startReferenceModel, type ReferenceModel } from "../sim/server.js";
import { parseMarkWait, type MarkWait } from "../sim/policy.js";
import type { Store } from "../store/store.js";
import type { Task } from "../task/schema.js";
import type { ProjectTargets } from "../config/project.js";
import { LayoutBoard } from "../targets/layout-board.js";
import { startTargets, type TargetSet } from "../targets/target-set.js";
import { endLeftoverApps } from "../targets/app-records.js";
import { removeDeadBrowserFolders } from "../browser/scratch.js";
import { exposeSite, type ExposedSite } from "./fixtures-exposure.js";
import type { ReferenceTuning } from "./reference-tuning.js";
import { startCpuSpan } from "./process-cpu.js";

export interface Runtime {
  fixtures: FixtureSite;
  /** The site as the browsers reach it: the fixture site itself, or its --fixtures-host forwarder. */
  siteUrl: string;
  model?: ReferenceModel;
  browsers: BrowserProvider;
  /** The fixture and every declared target the tasks name, started for this run. */
  targets: TargetSet;
  /** Marks resolved on targets other than the fixture, read by the embedded reference model. */
  board: LayoutBoard;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  tasks: Task[];
  agents: AgentConfig[];
  /** A ready provider (tests); otherwise remote endpoints when given, else a local Chromium. */
  browsers?: BrowserProvider;
  /** `--browser-endpoint` values: trials run in those browsers instead of a local one. */
  browserEndpoints?: string[];
  /** `--fixtures-host HOST[:PORT]`: where remote browsers reach the site (the control API stays on loopback). */
  fixturesHost?: string;
  /** The embedded reference model's latency profile and rate limit (benchmarks, tests). */
  reference?: ReferenceTuning;
  /** Lines worth telling the user while trials run (an endpoint dropped, the local fallback started). */
  onNotice?: (message: string) => void;
  /** The project's config file (its targets); default: none, only the fixture. */
  config?: ProjectTargets;
  /** Targets umpire starts itself (a benchmark pack's), by name. */
  builtInTargets?: Readonly<Record<string, () => Promise<Target>>>;
  /** Where target start commands write their output (the run's folder). */
  logDir?: string;
  /** The run's concurrency policy: `instances: auto` never starts more copies than its ceiling. */
  concurrency?: ConcurrencyPolicy;
  env?: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

/** What a killed umpire left on this host: its targets' app servers and its temp folder, ended and removed, and said. */
async function clearLeftovers(onNotice: (message: string) => void): Promise<void> {
  for (const line of await endLeftoverApps()) onNotice(line);
  for (const name of removeDeadBrowserFolders())
    onNotice(`removed ${join(tmpdir(), name)}, the temp folder of an umpire that was killed`);
}

export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  await clearLeftovers(options.onNotice ?? (() => undefined));
  const fixtures = await startFixtureSite({ port: 0, controlPort: 0 });
  let model: ReferenceModel | undefined;
  let exposed: ExposedSite | undefined;
  let browsers: BrowserProvider | undefined;
  let targets: TargetSet | undefined;
  const board = new LayoutBoard();
  try {
    if (options.fixturesHost) exposed = await exposeSite(fixtures.siteUrl, options.fixturesHost);
    targets = await startTargets({
      tasks: options.tasks,
      declared: options.config?.targets ?? {},
      configDir: options.config?.dir ?? process.cwd(),
      logDir: options.logDir ?? join(process.cwd(), ".umpire-targets"),
      env: options.env ?? process.env,
      concurrency: options.concurrency,
      fixtures: { siteUrl: exposed?.url ?? fixtures.siteUrl, client: fixtures.client },
      ...(options.builtInTargets ? { builtIn: options.builtInTargets } : {}),
      signal: options.signal,
      ...(options.onNotice ? { onNotice: options.onNotice } : {}),
    });
    if (options.agents.some((a) => a.endpoint.kind === "embedded")) {
      // umpire's own requests must follow the Holo conventions: the embedded model runs strict.
      model = await startReferenceModel({
        port: 0,
        fixtures: board.source(fixtures.client),
        tasks: options.tasks,
        strict: true,
        markWait: markWaitOf(options.env ?? process.env),
        ...options.reference,
      });
    }
    browsers =
      options.browsers ??
      (options.browserEndpoints?.length
        ? createRemoteBrowserProvider({ endpoints: options.browserEndpoints, onNotice: options.onNotice })
        : createLocalBrowserProvider());
    // An endpoint that never answers fails here, before any trial starts.
    await browsers.start?.();
  } catch (error) {
    await browsers?.close();
    await model?.close();
    await targets?.close();
    await exposed?.close();
    await fixtures.close();
    throw error;
  }
  const provider = browsers;
  const started = targets;
  return {
    fixtures,
    siteUrl: exposed?.url ?? fixtures.siteUrl,
    model,
    browsers: provider,
    targets: started,
    board,
    async close() {
      await provider.close();
      await model?.close();
      await started.close();
      await exposed?.close();
      await fixtures.close();
    },
  };
}

export interface ExecuteOptions {
  runtime: Runtime;
  store: Store;
  runId: string;
  runDir: string;
  /** Each trial carries its agent config: the session is made from it as it is. */
  trials: PlannedTrial[];
  env: NodeJS.ProcessEnv;
  prices: PriceBook;
  /** `--max-cost`: the run's spend, checked before each request. */
  runSpend?: RunSpend;
  /** Trials at once: pinned, or adaptive per endpoint (the embedded model's starting at the policy's start). */
  concurrency: ConcurrencyPolicy;
  modelConcurrency: number;
  repetition: RepetitionSettings;
  reporters: RunHooks[];
  /** A reporter hook threw (the run goes on). */
  onReporterError?: (failure: ReporterFailure) => void;
  signal: AbortSignal;
  previousAttempts?: Map<string, number>;
  /** `--retries`: re-runs of an `error` verdict (default 1). */
  retries?: number;
  /** `--max-failures`: stop starting trials after this many failed or error trials. */
  maxFailures?: number;
  /** `--trace`: Playwright traces per trial. */
  trace?: TraceMode;
  /** Told of each observation's page (src/runner/trial/trial.ts ObservedHook): `umpire try` surveys its controls. */
  onObserved?: ObservedHook;
  /** Wraps each trial's agent session (instrumentation, fault injection in tests). */
  wrapSession?: (session: AgentSessionLike, trial: PlannedTrial) => AgentSessionLike;
}

export async function executeTrials(options: ExecuteOptions): Promise<SuiteResult> {
  const { runtime } = options;
  writeOrFault(options.runDir, () => mkdirSync(options.runDir, { recursive: true }));
  // An external agent's model calls are its own business: each command agent is its own gate key.
  const endpointOf = (trial: PlannedTrial) =>
    trial.command ? `command agent ${trial.agent.label}` : endpointKey(trial.agent);
  // Pinned runs sample the machine too: nothing moves, but the summary warns when the CPU was saturated.
  const gate = new ConcurrencyGate({
    // The embedded model answers at once, so the machine is the bound: it starts where a pinned run would.
    ...policyGate(options.concurrency, (key, start) => (key === EMBEDDED_ENDPOINT ? start : REMOTE_START)),
    sampler: createMachineSampler(),
  });
  // The CPU of the trials, umpire's and every process it started, read before the browsers close (issue 42).
  const cpu = startCpuSpan();
  const result = await runSuite({
    runId: options.runId,
    trials: options.trials,
    runDir: resolve(options.runDir),
    concurrency: options.concurrency,
    gate,
    endpointOf,
    modelConcurrency: options.modelConcurrency,
    browsers: runtime.browsers,
    targets: runtime.targets,
    board: runtime.board,
    env: options.env,
    createSession: (trial) => {
      const config = trial.agent;
      const session = createAgentSession({
        config,
        apiKey: readApiKey(config, options.env),
        instruction: trial.task.instruction,
        tools: trial.task.tools,
        trialId: trial.id,
        ...(config.endpoint.kind === "embedded" ? { baseUrl: runtime.model!.baseUrl } : {}),
      });
      const bridged = bridgeAgentSession(session, {
        readsPageLayout: readsFixtureLayout(config.model),
        deviceScaleFactor: trial.task.viewport.deviceScaleFactor,
      });
      return options.wrapSession ? options.wrapSession(bridged, trial) : bridged;
    },
    // A named agent's loop knobs win over the run's options for its own trials.
    createGuard: (trial, env) => {
      const loop = trial.agent.loop;
      return createRepetitionGuard(trial.task, env, {
        ...options.repetition,
        ...(loop?.repetitionWindow !== undefined && { window: loop.repetitionWindow }),
        ...(loop?.recoveryLimit !== undefined && { recoveryLimit: loop.recoveryLimit }),
      });
    },
    maxInvalidOutputsOf: (trial) => trial.agent.loop?.maxInvalidOutputs,
    prices: options.prices,
    ...(options.runSpend ? { runSpend: options.runSpend } : {}),
    store: createStoreSink(options.store, resolve(options.runDir)),
    reporters: options.reporters,
    onReporterError: options.onReporterError,
    signal: options.signal,
    previousAttempts: options.previousAttempts,
    retries: options.retries,
    maxFailures: options.maxFailures,
    trace: options.trace,
    ...(options.onObserved ? { onObserved: options.onObserved } : {}),
  });
  if (result.ends.length > 0) options.store.addRunCpu(options.runId, cpu.end(result.ends.length));
  return result;
}

/**
 * Whether a model grounds its actions on the fixture page's layout report: only the reference
 * model does (`reference`, `reference:<profile>`, embedded or served by `umpire serve-model`).
 * For every other model the runner skips waiting for that report before each capture.
 */
export function readsFixtureLayout(model: string): boolean {
  return model === REFERENCE_MODEL_ID || model.startsWith(`${REFERENCE_MODEL_ID}:`);
}

/** The reference model's patience for a missing mark, from UMPIRE_MARK_WAIT (docs/your-app.md); a bad value is refused. */
export function markWaitOf(env: NodeJS.ProcessEnv): MarkWait {
  const parsed = parseMarkWait(env.UMPIRE_MARK_WAIT);
  if (!parsed)
    throw new UmpireError(
      "usage",
      `UMPIRE_MARK_WAIT=${env.UMPIRE_MARK_WAIT}: not WAITS or WAITSxSECONDS`,
      "e.g. UMPIRE_MARK_WAIT=5x2 (five waits of 2 s, each at most 30 s) or UMPIRE_MARK_WAIT=4 (four of 1 s)",
    );
  return parsed;
}

/** The gate's key for the embedded reference model. */
export const EMBEDDED_ENDPOINT = "the embedded reference model";
/**
 * Where a remote endpoint starts when not pinned: a hosted model spends 2-5 s a turn, so a few
 * trials at once keep it busy without tripping a fresh account's rate limit; it rises from there.
 */
export const REMOTE_START = 4;

/** A model endpoint as the concurrency gate keys it: its base URL without credentials. */
export function endpointKey(config: AgentConfig): string {
  const endpoint = redactConfig(config).endpoint;
  return endpoint.kind === "url" ? endpoint.baseUrl : EMBEDDED_ENDPOINT;
}

/** The run's folder under the output folder. */
export function runFolder(outDir: string, runId: string): string {
  return join(outDir, runId);
}
