/**
 * The scheduler: runs the planned trials with bounded concurrency, a separate bound on model
 * requests, automatic retries of infrastructure failures (`--retries`), and stores every turn as it
 * happens and every trial when it ends. One trial's failure never stops the suite, unless the user
 * asked for that with `--max-failures`.
 */
import { setMaxListeners } from "node:events";
import { join } from "node:path";
import pLimit from "p-limit";
import type { InstanceLease, Target } from "../../targets/contract.js";
import type { LayoutBoard } from "../../targets/layout-board.js";
import type { TargetSet } from "../../targets/target-set.js";
import type { BrowserProvider } from "./browser-pool.js";
import { ConcurrencyGate, policyGate, type EndpointReport, type TurnTiming } from "./concurrency-gate.js";
import {
  emptyLoopOutcome,
  loopUsage,
  type AgentSessionLike,
  type RepetitionGuard,
  type PlayedTurn,
} from "../trial/loop.js";
import { trialFolderName, type PlannedTrial } from "./trial-plan.js";
import { freshTrialFolder } from "../trial/trial-folder.js";
import { multiplexReporters, type RunHooks, type ReporterFailure, type TrialEnd } from "./run-hooks.js";
import { runTrial, type ObservedHook, type TrialOutcome, type TrialSpec } from "../trial/trial.js";
import { runExternalTrial } from "../external/external-trial.js";
import { sandboxName } from "../external/agent-sandbox.js";
import type { TrialSandbox } from "../../store/records.js";
import type { TrialEnvironment } from "../trial/environment.js";
import { writeOrFault } from "../trial/trial-log.js";
import { isStorageFault, messageOf } from "../../errors.js";
import { costOfUsage, type PriceBook } from "../../pricing.js";
import { measuredCost } from "../external/model-measure.js";
import { spendCheck, type RunSpend } from "../trial/cost-limit.js";
import { concurrencyCeiling, knownUsage, type ConcurrencyPolicy, type TraceMode } from "../../vocabulary.js";

/** What the scheduler needs from the store (src/store/). */
export interface SuiteStore {
  /** `sandbox`: what holds a command agent's code this attempt (null for umpire's own loop). */
  startTrial(id: string, info: { folder: string; attempt: number; sandbox?: TrialSandbox | null }): void;
  recordTurn(trialId: string, turn: PlayedTurn, costUsd: number | null): void;
  finishTrial(
    id: string,
    outcome: TrialOutcome,
    extra: { costUsd: number | null; retried: boolean; attempt: number },
  ): void;
  /** Prepares a finished trial for its automatic retry, keeping the failed attempt's rows. */
  resetTrial(id: string): void;
}

export interface SuiteOptions {
  runId: string;
  trials: PlannedTrial[];
  /** The run's folder; each trial gets a subfolder. */
  runDir: string;
  /** The run's concurrency policy: sizes the listeners, and the gate when none is given. */
  concurrency: ConcurrencyPolicy;
  /** Adaptive (or pinned) trial slots per model endpoint; default: the policy's own gate, without machine samples. */
  gate?: ConcurrencyGate;
  /** The model endpoint a trial's agent talks to (the gate's key); default one for all. */
  endpointOf?: (trial: PlannedTrial) => string;
  modelConcurrency: number;
  browsers: BrowserProvider;
  /** The run's targets; each trial runs on its task's. */
  targets: TargetSet;
  board?: LayoutBoard;
  /** Where checks read ${env:NAME} secrets. */
  env?: Readonly<Record<string, string | undefined>>;
  createSession: (trial: PlannedTrial) => AgentSessionLike;
  createGuard?: (trial: PlannedTrial, env: TrialEnvironment) => RepetitionGuard | undefined;
  /** Prices every turn and trial as it is stored (the report re-prices only with user-supplied prices). */
  prices: PriceBook;
  /** `--max-cost`: the run's spend, shared across trials (and --until-decided's rounds). */
  runSpend?: RunSpend;
  store: SuiteStore;
  reporters?: RunHooks[];
  /** A reporter hook threw. The run goes on; the failure is also counted in the result. */
  onReporterError?: (failure: ReporterFailure) => void;
  signal: AbortSignal;
  maxInvalidOutputs?: number;
  /** A per-trial invalid-output limit (a named agent's own), over `maxInvalidOutputs`. */
  maxInvalidOutputsOf?: (trial: PlannedTrial) => number | undefined;
  /** Attempts already made per trial (resume); the next attempt number follows. */
  previousAttempts?: Map<string, number>;
  /** Re-runs of a trial whose verdict is `error` (default 1); a `failed` verdict is never retried. */
  retries?: number;
  /**
   * Stop starting trials once this many ended `failed` or `error` (after retries). Trials already
   * running finish; the rest are not started and stay pending in the store, for `--resume`.
   */
  maxFailures?: number;
  /** `--trace`: Playwright traces per trial (trial-trace.ts); default off. */
  trace?: TraceMode;
  /** Told of each observation's page (trial.ts ObservedHook). */
  onObserved?: ObservedHook;
}

export interface SuiteResult {
  ends: TrialEnd[];
  status: "finished" | "interrupted";
  /** Reporter hooks that threw: the run went on, but its output is incomplete. */
  reporterFailures: ReporterFailure[];
  /** Per endpoint: the concurrency used and why it stopped rising. */
  concurrency: EndpointReport[];
  /** Set when --max-failures stopped the run: how many trials were left not started. */
  stoppedEarly?: { failures: number; notStarted: number };
}

export async function runSuite(suiteOptions: SuiteOptions): Promise<SuiteResult> {
  // A storage fault (full or read-only disk under --out or --db) stops the whole run: trials in
  // flight are cancelled and left for --resume, no new trial starts, and the fault is rethrown.
  const fault = new AbortController();
  let fatal: unknown;
  const options: SuiteOptions = { ...suiteOptions, signal: AbortSignal.any([suiteOptions.signal, fault.signal]) };
  const reporterFailures: ReporterFailure[] = [];
  const reporter = multiplexReporters(options.reporters ?? [], (failure) => {
    reporterFailures.push(failure);
    options.onReporterError?.(failure);
  });
  // Every running trial listens on the run's signal (its deadline joins it): many listeners is expected.
  setMaxListeners(Math.max(10, concurrencyCeiling(options.concurrency) * 4), options.signal);
  const gate = options.gate ?? new ConcurrencyGate(policyGate(options.concurrency));
  const endpointOf = options.endpointOf ?? (() => "model");
  const modelLimit = pLimit(Math.max(1, options.modelConcurrency));
  const ends: TrialEnd[] = [];
  const retries = options.retries ?? 1;
  let failures = 0;
  let notStarted = 0;
  const limitReached = () => options.maxFailures !== undefined && failures >= options.maxFailures;
  const targetSlot = targetSlots();
  reporter.onRunBegin({ runId: options.runId, trials: options.trials });

  const runOne = async (trial: PlannedTrial, lease?: InstanceLease): Promise<void> => {
    if (options.signal.aborted) return; // not started: stays pending, so --resume runs it
    if (limitReached()) {
      notStarted += 1; // likewise: pending, resumable
      return;
    }
    reporter.onTrialBegin(trial);
    const firstAttempt = (options.previousAttempts?.get(trial.id) ?? 0) + 1;
    let attempt = firstAttempt;
    const observe = (turn: TurnTiming) => gate.observeTurn(endpointOf(trial), turn);
    let outcome: TrialOutcome;
    try {
      for (;;) {
        outcome = await attemptTrial(trial, attempt, options, modelLimit, reporter.onStep, observe, lease);
        if (leftForResume(outcome)) return;
        const costUsd = trialCost(options, trial, outcome);
        options.store.finishTrial(trial.id, outcome, { costUsd, retried: attempt > firstAttempt, attempt });
        // Infrastructure failures are retried (--retries, default once); each earlier attempt stays stored (and in its folder) as evidence.
        if (outcome.verdict !== "error" || options.signal.aborted || attempt - firstAttempt >= retries) break;
        options.store.resetTrial(trial.id);
        attempt += 1;
      }
    } catch (error) {
      if (!isStorageFault(error)) throw error;
      // The trial stays `running` in the store (unfinished): --resume runs it again.
      fatal ??= error;
      fault.abort(error);
      return;
    }
    if (outcome.verdict === "failed" || outcome.verdict === "error") failures += 1;
    const retried = attempt > firstAttempt;
    const end: TrialEnd = {
      trial,
      verdict: outcome.verdict,
      stopReason: outcome.loop.stopReason,
      stopLine: outcome.stopLine,
      turns: outcome.loop.turns,
      actions: outcome.loop.actions,
      wallMs: outcome.wallMs,
      retried,
    };
    ends.push(end);
    reporter.onTrialEnd(end);
  };

  /** A trial cut short by a storage fault elsewhere has no verdict of its own: it is not stored as done. */
  const leftForResume = (outcome: TrialOutcome) =>
    fault.signal.aborted && !suiteOptions.signal.aborted && outcome.loop.stopReason === "cancelled";

  try {
    // A shared-state target's slot is taken before the gate's, so a serial target never holds back the others.
    await Promise.all(
      options.trials.map((trial) => {
        const target = options.targets.get(trial.task.target);
        const limit = targetSlot(target);
        const gated = () =>
          withInstance(target, options.signal, (lease) =>
            gate.run(endpointOf(trial), () => playing(lease, () => runOne(trial, lease))),
          );
        return limit ? limit(gated) : gated();
      }),
    );
  } finally {
    gate.close();
  }
  if (fatal !== undefined) throw fatal;
  const status = options.signal.aborted ? "interrupted" : "finished";
  ends.sort((a, b) => a.trial.seq - b.trial.seq);
  reporter.onRunEnd({ runId: options.runId, status, ends });
  return {
    ends,
    status,
    reporterFailures,
    concurrency: gate.report(),
    ...(notStarted > 0 ? { stoppedEarly: { failures, notStarted } } : {}),
  };
}

/**
 * Each target's slot limit: a target whose trials share state takes one trial at a time; others up
 * to their capacity; a pooled target's own leases bound its shared-state trials (one per instance).
 */
function targetSlots(): (target: Target) => ReturnType<typeof pLimit> | undefined {
  const limits = new Map<string, ReturnType<typeof pLimit>>();
  return (target) => {
    let limit = limits.get(target.name);
    if (!limit) {
      const bound = target.isolated ? target.capacity : target.lease ? undefined : 1;
      limit = bound === undefined ? undefined : pLimit(bound);
      if (limit) limits.set(target.name, limit);
    }
    return limit;
  };
}

/**
 * Runs `fn` on an instance of a pooled target, leased before the trial's gate slot (so a trial that
 * waits for an instance holds back no other target) and handed back after its last attempt. A run
 * stopped while the trial waited leaves it not started (pending, for --resume).
 */
async function withInstance(
  target: Target,
  signal: AbortSignal,
  fn: (lease?: InstanceLease) => Promise<void>,
): Promise<void> {
  if (!target.lease) return fn();
  let lease: InstanceLease;
  try {
    lease = await target.lease(signal);
  } catch {
    return; // stopped while waiting
  }
  try {
    await fn(lease);
  } finally {
    lease.release();
  }
}

/**
 * Runs `fn` as the trial playing on its instance: the lease was taken before the trial's run slot,
 * so leases alone would count trials still queued as running (the pool's "peak N at once").
 */
async function playing<T>(lease: InstanceLease | undefined, fn: () => Promise<T>): Promise<T> {
  const stopped = lease?.playing?.();
  try {
    return await fn();
  } finally {
    stopped?.();
  }
}

async function attemptTrial(
  trial: PlannedTrial,
  attempt: number,
  options: SuiteOptions,
  modelLimit: ReturnType<typeof pLimit>,
  onStep: (trial: PlannedTrial, turn: PlayedTurn) => void,
  observe: (turn: TurnTiming) => void,
  lease?: InstanceLease,
): Promise<TrialOutcome> {
  const target = lease?.target ?? options.targets.get(trial.task.target);
  const outcome = await attemptOn(target, trial, attempt, options, modelLimit, onStep, observe);
  if (!lease) return outcome;
  // Where the trial ran, stored with it (metrics.target); a retry on the same lease waited no more.
  return { ...outcome, placement: { instance: lease.instance, waitedMs: attempt > 1 ? 0 : lease.waitedMs } };
}

async function attemptOn(
  target: Target,
  trial: PlannedTrial,
  attempt: number,
  options: SuiteOptions,
  modelLimit: ReturnType<typeof pLimit>,
  onStep: (trial: PlannedTrial, turn: PlayedTurn) => void,
  observe: (turn: TurnTiming) => void,
): Promise<TrialOutcome> {
  // Never inherit a workspace: an earlier run's folder at this path is moved aside first.
  const path = join(options.runDir, trialFolderName(trial, attempt));
  const { folder, movedAside } = writeOrFault(path, () => freshTrialFolder(path));
  options.store.startTrial(trial.id, {
    folder,
    attempt,
    sandbox: trial.command ? sandboxName(trial.command.sandbox) : null,
  });
  const spec: TrialSpec = {
    id: attempt > 1 ? `${trial.id}-a${attempt}` : trial.id,
    task: trial.task,
    agentLabel: trial.agent.label,
    repeat: trial.repeat,
  };
  if (trial.command) {
    // An external agent gets a browser of its own per trial (trial-browser.ts), not a pooled one.
    return runExternalTrial(spec, folder, trial.command, {
      target,
      fixtureSiteUrl: options.targets.fixtureSiteUrl,
      board: options.board,
      env: options.env,
      signal: options.signal,
      trace: options.trace,
      ...(movedAside ? { movedAside } : {}),
      onTurn: (turn) => {
        options.store.recordTurn(trial.id, turn, null);
        onStep(trial, turn);
      },
    });
  }
  let lease;
  try {
    lease = await options.browsers.acquire(options.signal);
  } catch (error) {
    return browserFailure(folder, error);
  }
  try {
    return await runTrial(spec, folder, {
      browser: lease.browser,
      target,
      fixtureSiteUrl: options.targets.fixtureSiteUrl,
      board: options.board,
      env: options.env,
      createSession: () => observedSession(options.createSession({ ...trial, id: spec.id }), observe),
      createGuard: options.createGuard && ((_spec, env) => options.createGuard!(trial, env)),
      modelSlot: (fn) => modelLimit(fn),
      maxInvalidOutputs: options.maxInvalidOutputsOf?.(trial) ?? options.maxInvalidOutputs ?? 3,
      // The response allowance reserved before each request is this trial's agent's max_tokens.
      responseReserve: trial.agent.maxTokens,
      spendStop: spendCheck(trial.task.limits.usd, options.runSpend, (u) =>
        costOfUsage(u, options.prices.lookup(trial.agent.model)),
      ),
      signal: options.signal,
      trace: options.trace,
      ...(options.onObserved ? { onObserved: options.onObserved } : {}),
      ...(movedAside ? { movedAside } : {}),
      onTurn: (turn) => {
        const cost = costOfUsage(knownUsage(turn.usage), options.prices.lookup(trial.agent.model));
        if (options.runSpend && cost !== null) options.runSpend.spentUsd += cost;
        options.store.recordTurn(trial.id, turn, cost);
        onStep(trial, turn);
      },
    });
  } finally {
    lease.release();
  }
}

/** The session, reporting each turn's timing and failed attempts to the concurrency gate. */
function observedSession(session: AgentSessionLike, observe: (turn: TurnTiming) => void): AgentSessionLike {
  return {
    ...session,
    nextTurn: async (observation, signal) => {
      const turn = await session.nextTurn(observation, signal);
      observe(turn);
      return turn;
    },
    addResults: (results) => session.addResults(results),
    addUserText: (text) => session.addUserText(text),
  };
}

function trialCost(options: SuiteOptions, trial: PlannedTrial, outcome: TrialOutcome): number | null {
  // A trial that never reached the model cost nothing; one whose usage went unreported has an unknown cost.
  // A command agent's calls through umpire's model proxy: priced call by call, by the model each asked for.
  const measured = outcome.loop.measured;
  if (measured) return measuredCost(measured.calls, options.prices.lookup, trial.agent.model);
  const price = options.prices.lookup(trial.agent.model);
  if (outcome.loop.turns === 0)
    return costOfUsage({ inputTokens: 0, outputTokens: 0, reasoningTokens: 0, cachedTokens: 0 }, price);
  return costOfUsage(loopUsage(outcome.loop), price);
}

function browserFailure(folder: string, error: unknown): TrialOutcome {
  const message = `no browser: ${messageOf(error)}`;
  return {
    loop: emptyLoopOutcome("environment_error", message),
    checks: [],
    verdict: "error",
    claimed: false,
    verified: false,
    stopLine: `environment failed (${message}); not judged: infrastructure error`,
    wallMs: 0,
    checkMs: 0,
    folder,
    error: message,
    repetition: {},
  };
}
