/**
 * One trial, start to finish: environment, loop, independent checks, verdict, teardown.
 * Failures inside are data: this function resolves with an outcome, it does not throw.
 */
import { join } from "node:path";
import type { Browser, Page } from "playwright";
import { runChecks } from "../../checks/registry.js";
import { summarizeClaim, verdictOf } from "../../checks/verdict.js";
import { judgeForbiddenEffects } from "../../checks/forbidden-effects.js";
import { recordEvidence, type EvidenceRecorder } from "../../checks/evidence-recorder.js";
import { EVIDENCE_FILE, writeTrialEvidence } from "../../checks/trial-evidence.js";
import type { CheckResult, Effect } from "../../checks/types.js";
import type { Task } from "../../task/schema.js";
import type { LayoutBoard } from "../../targets/layout-board.js";
import type { Target } from "../../targets/contract.js";
import type { DialogRecord } from "../page/dialogs.js";
import { TrialEnvironment, type BlockedRequest, type TabRecord, type TrialEnvironmentOptions } from "./environment.js";
import { Executor } from "./executor.js";
import {
  emptyLoopOutcome,
  runLoop,
  type LoopOptions,
  type AgentSessionLike,
  type LoopOutcome,
  type RepetitionGuard,
  type PlayedTurn,
} from "./loop.js";
import { INFRASTRUCTURE_STOPS, STOP_WORDS } from "./stop-reason.js";
import { completionReason, createTrialLog, startedEventData, type TrialLog } from "./trial-log.js";
import { isStorageFault, firstLineOf, storageError } from "../../errors.js";
import { describeStarvation, type StarvedWait } from "./starvation.js";
import { withoutForgeable, type Driver } from "./untrusted-checks.js";
import { EPISODE_READER } from "../../checks/episode-check.js";
import { episodeDoneOf, pageProbeOf, safeOrigin, storageProbeOf, type PageProbeHandle } from "./check-probes.js";
import type { TraceMode, Verdict } from "../../vocabulary.js";
import { traceSpecFor } from "./trial-trace.js";
import { TrialDeadline, withDeadline } from "./deadline.js";

/** How long the checks may wait on the browser at a trial's end (a page that stopped answering fails them, it does not hang). */
const CHECKS_DEADLINE_MS = 60_000;

/** The checks' deadline: CHECKS_DEADLINE_MS, plus each check's own declared timeout (a command check may take 600 s), plus as much again per custom check. */
export function checksDeadlineMs(task: Task): number {
  return task.checks.reduce((ms, check) => {
    const own = "timeoutSeconds" in check && typeof check.timeoutSeconds === "number" ? check.timeoutSeconds * 1000 : 0;
    return ms + own + (check.kind === "custom" ? CHECKS_DEADLINE_MS : 0);
  }, CHECKS_DEADLINE_MS);
}
/** The least time opening a trial (the target's reset, the context, the start page) may take before it is abandoned. */
const OPENING_DEADLINE_MS = 180_000;
/** How long one teardown step (answering a dialog, closing the context) may take. */
const TEARDOWN_DEADLINE_MS = 5_000;

export interface TrialSpec {
  id: string;
  task: Task;
  /** The agent config's label, e.g. "reference/structured". */
  agentLabel: string;
  repeat: number;
}

export interface TrialDeps {
  browser: Browser;
  /** The task's target, started for the run. */
  target: Target;
  fixtureSiteUrl?: string;
  board?: LayoutBoard;
  /** Where ${env:NAME} in check headers is read. */
  env?: Readonly<Record<string, string | undefined>>;
  createSession: (trial: TrialSpec) => AgentSessionLike;
  createGuard?: (trial: TrialSpec, env: TrialEnvironment) => RepetitionGuard | undefined;
  modelSlot: <T>(fn: () => Promise<T>) => Promise<T>;
  maxInvalidOutputs: number;
  responseReserve: number;
  /** Money limits, asked before each request (src/runner/trial/cost-limit.ts). */
  spendStop?: LoopOptions["spendStop"];
  signal: AbortSignal;
  onTurn: (turn: PlayedTurn) => void;
  /** An earlier, non-empty folder at this trial's path was moved here before it started. */
  movedAside?: string;
  /** `--trace`: keep a Playwright trace of the trial's context in its folder (trial-trace.ts). */
  trace?: TraceMode;
  /** Shown each observation's page once it is captured (`umpire try` and `marks --after` survey its controls). */
  onObserved?: ObservedHook;
}

/** Told of the page the trial's `n`th observation (from 1: turn n was sent it) captured; its errors are ignored. */
export type ObservedHook = (trialId: string, n: number, page: Page) => Promise<void>;

export interface TrialOutcome {
  loop: LoopOutcome;
  checks: CheckResult[];
  verdict: Verdict;
  claimed: boolean;
  verified: boolean;
  /** The human line beside the stop reason: "turn cap reached, notes/BB-042.md missing". */
  stopLine: string;
  wallMs: number;
  checkMs: number;
  folder: string;
  error: string | null;
  repetition: Record<string, number>;
  /** How long the target's reset took before the trial (ms); undefined when it never finished. */
  resetMs?: number;
  /** The instance of a pooled target the trial ran on, and how long it waited for it. */
  placement?: { instance: number; waitedMs: number };
  /** What the environment gave this trial: the instruction read from the page (`instructionFrom`), the target's facts (an episode seed). */
  fromEnvironment?: Record<string, unknown>;
  /** The native dialogs and new tabs of the trial (stored with its metrics, shown in the report). */
  browserEvents?: { dialogs: DialogRecord[]; tabs: TabRecord[] };
}

/** Where this trial's effects were read: the URL requested for it (its trial id filled in), or null without a source. */
function effectsSource(target: Target, trialId: string): string | null {
  if (!target.hasEffects) return null;
  return target.effectsSourceFor?.(trialId) ?? target.effectsSource;
}

/**
 * The trial log's first event, for both kinds of trial: the log's format and version, who plays what
 * (`agent`: what a command agent's trial adds), and where an earlier folder of the same trial went.
 */
export function logTrialStarted(
  log: TrialLog,
  spec: TrialSpec,
  deps: Pick<TrialDeps, "movedAside">,
  agent: Record<string, unknown> = {},
): void {
  log.emit(
    "AgentStartedEvent",
    startedEventData({
      trial: spec.id,
      task: spec.task.id,
      agent: spec.agentLabel,
      repeat: spec.repeat,
      ...agent,
      // Said in the log so nobody mistakes the moved folder's contents for this trial's.
      ...(deps.movedAside ? { previousFolderMovedTo: deps.movedAside } : {}),
    }),
  );
}

export async function runTrial(spec: TrialSpec, folder: string, deps: TrialDeps): Promise<TrialOutcome> {
  const started = performance.now();
  const log = createTrialLog(folder);
  const workspaceDir = join(folder, "workspace");
  logTrialStarted(log, spec, deps);
  let env: TrialEnvironment | undefined;
  let loop: LoopOutcome | undefined;
  let guard: RepetitionGuard | undefined;
  let error: string | null = null;
  const blocked = blockedRequestLog(log);
  // Every browser call of the trial runs under this deadline. Opening (the target's reset, the start page)
  // is not the trial's time: it gets the loop's limit or OPENING_DEADLINE_MS, whichever is longer.
  const deadline = new TrialDeadline(deps.signal);
  deadline.start(Math.max(spec.task.limits.seconds * 1000, OPENING_DEADLINE_MS));
  try {
    // The session first: whether it reads the page's layout report decides whether observations wait for it.
    // A task whose instruction comes from the page gets its session once the page has given it.
    let session = spec.task.instructionFrom ? undefined : deps.createSession(spec);
    const opening = TrialEnvironment.open({
      ...environmentOptions(spec, folder, deps, blocked),
      browser: deps.browser,
      layoutFlush: session?.readsPageLayout !== false,
      // A benchmark's episode: the loop's "has it ended?" rides the page reads a settle and an observation make.
      ...(spec.task.checks.some((c) => c.kind === "episode") ? { episodeReader: EPISODE_READER } : {}),
      dialogs: spec.task.dialogs ?? deps.target.dialogs ?? "agent",
      deadline,
      ...browserEventLog(log),
    });
    // An opening abandoned at the deadline may still finish later: its context is closed then.
    env = await deadline.call("opening the start page", opening).catch((error: unknown) => {
      void opening.then((late) => late.close()).catch(() => undefined);
      throw error;
    });
    const opened = env;
    if (!session) {
      session = deps.createSession(withPageInstruction(spec, opened));
      // Opened before its session existed, on the safe side: the layout wait stays only for an agent that reads it.
      opened.setLayoutFlush(session.readsPageLayout !== false);
    }
    logEnvironmentFacts(log, opened);
    // The frame of the last screenshot sent: the executor scales [0,1000] coordinates against it.
    let lastFrame = {
      width: spec.task.viewport.width * spec.task.viewport.deviceScaleFactor,
      height: spec.task.viewport.height * spec.task.viewport.deviceScaleFactor,
    };
    const executor = new Executor({
      env: opened,
      task: spec.task,
      frame: () => lastFrame,
      workspaceDir,
      recordEffect: (type, detail) => deps.target.recordEffect(spec.id, type, detail),
    });
    guard = deps.createGuard?.(spec, opened);
    // The loop's own time limit starts now, and the calls' deadline with it.
    deadline.start(spec.task.limits.seconds * 1000);
    let observations = 0;
    loop = await runLoop({
      task: spec.task,
      deadline,
      observe: async () => {
        const observation = await deadline.around("observing the page", opened.observe());
        lastFrame = { width: observation.width, height: observation.height };
        observations += 1;
        // After the capture, so what the hook reads (or marks in the page) is not in the picture.
        if (deps.onObserved)
          await deadline
            .call("surveying the page's controls", deps.onObserved(spec.id, observations, opened.page))
            .catch(() => undefined);
        return observation;
      },
      session,
      executor,
      log,
      userSignal: deps.signal,
      maxInvalidOutputs: deps.maxInvalidOutputs,
      responseReserve: deps.responseReserve,
      modelSlot: deps.modelSlot,
      guard,
      onTurn: deps.onTurn,
      ...(deps.spendStop ? { spendStop: deps.spendStop } : {}),
      openDialog: () => opened.dialogs.describeOpen(),
      // A benchmark's episode that the environment ended leaves nothing to play: the trial stops there.
      ...(spec.task.checks.some((c) => c.kind === "episode") ? { episodeDone: episodeDoneOf(opened) } : {}),
    });
  } catch (e) {
    if (isStorageFault(e)) {
      // umpire could not record the trial: no verdict at all (the scheduler leaves it for --resume).
      await abandonTrial(spec, deps, env);
      deadline.dispose();
      throw e;
    }
    error = firstLineOf(e);
    log.emit("AgentErrorEvent", { error, trace: e instanceof Error ? (e.stack ?? "") : "", info: {} });
  }
  if (!loop) loop = emptyLoopOutcome("environment_error", error ?? "environment failed");
  try {
    return await concludeTrial(spec, folder, deps, {
      log,
      trialEnv: env,
      loop,
      error,
      started,
      repetition: guard?.metrics() ?? {},
      blocked,
      driver: undefined,
      deadline,
    });
  } finally {
    deadline.dispose();
  }
}

/** What both trial kinds open their environment with: the task and trial, its workspace, the target, the fixture site, the guards' log, the trace. */
export function environmentOptions(
  spec: TrialSpec,
  folder: string,
  deps: Pick<TrialDeps, "target" | "fixtureSiteUrl" | "board" | "trace">,
  blocked: { record: (blocked: BlockedRequest) => void },
): Omit<TrialEnvironmentOptions, "browser"> {
  return {
    task: spec.task,
    trialId: spec.id,
    workspaceDir: join(folder, "workspace"),
    target: deps.target,
    fixtureSiteUrl: deps.fixtureSiteUrl,
    board: deps.board,
    onBlockedRequest: blocked.record,
    repeat: spec.repeat,
    trace: traceSpecFor(deps.trace, folder),
  };
}

/** What of a trial's deps its conclusion reads: the target (effects, endTrial), the board, the checks' secrets, the run's signal. */
export type ConclusionDeps = Pick<TrialDeps, "target" | "board" | "env" | "signal">;

/** A trial umpire could not record (a storage fault): its context closed and its target and board freed, no verdict. */
export async function abandonTrial(
  spec: TrialSpec,
  deps: ConclusionDeps,
  env: TrialEnvironment | undefined,
): Promise<void> {
  await env?.close().catch(() => undefined);
  await deps.target.endTrial(spec.id);
  deps.board?.forget(spec.id);
}

/**
 * What a trial hands to `concludeTrial` once its agent (umpire's loop or an external command) has
 * stopped. Both trial kinds build it, and no field is optional: a field added here does not compile
 * until each kind says what it is (`undefined` where it has none).
 */
export interface TrialEnding {
  log: TrialLog;
  trialEnv: TrialEnvironment | undefined;
  loop: LoopOutcome;
  error: string | null;
  /** performance.now() when the trial started. */
  started: number;
  repetition: Record<string, number>;
  blocked: { finish: () => void };
  /** Who drove the browser: a command agent's trials are judged without what it could forge (untrusted-checks.ts); undefined for umpire's loop. */
  driver: Driver | undefined;
  /** The trial's call deadline: after a stop, the checks and the teardown wait on the browser only briefly. */
  deadline: TrialDeadline | undefined;
}

/**
 * The part every trial shares after its agent stopped, whoever ran the loop: independent checks
 * on the world, teardown of the context and the fixture session, verdict, claim, and the
 * closing events; the one place a `TrialOutcome` is made. Never throws but for a storage fault.
 */
export async function concludeTrial(
  spec: TrialSpec,
  folder: string,
  deps: ConclusionDeps,
  ending: TrialEnding,
): Promise<TrialOutcome> {
  const { log, trialEnv: env, started, repetition } = ending;
  let loop = ending.loop;
  let error = ending.error;
  const checkStarted = performance.now();
  // A page with a native dialog open answers no check; closing the tab would cancel it, so umpire does.
  if (env?.dialogs.open) await bounded(env.dialogs.answer(false, "umpire", "the trial ended with it open"));
  // A page that stopped answering fails the checks at their deadline instead of holding the trial.
  const checksMs = ending.deadline?.conclusionMs(checksDeadlineMs(spec.task)) ?? checksDeadlineMs(spec.task);
  const judged = await withDeadline(
    judgeEndState(spec, folder, deps, ending, loop),
    checksMs,
    "the end-state checks",
  ).catch(
    (e: unknown): Awaited<ReturnType<typeof judgeEndState>> => ({
      checks: [],
      checkError: `checks could not run: ${firstLineOf(e)}`,
    }),
  );
  if (judged.storageFault) {
    // The end state could not be recorded: no verdict (the scheduler leaves the trial for --resume).
    await judged.probes?.close();
    await abandonTrial(spec, deps, env);
    throw judged.storageFault;
  }
  const checks = judged.checks;
  const probes = judged.probes;
  if (judged.checkError) error ??= judged.checkError;
  const checkMs = performance.now() - checkStarted;
  await bounded(probes?.close());
  await bounded(env?.close());
  ending.blocked.finish();
  await deps.target.endTrial(spec.id);
  deps.board?.forget(spec.id);

  // The app's process died under the trial: whatever the agent did, the environment failed it.
  const fault = deps.target.instanceFault?.(spec.id) ?? null;
  if (fault) {
    error = fault;
    loop = { ...loop, stopReason: "environment_error" };
    log.emit("AgentEvent", { kind: "error_event", error: fault, origin: "target", tool_req: null });
  }
  const infraError = INFRASTRUCTURE_STOPS.has(loop.stopReason) || (error !== null && checks.length === 0);
  // Stopped by the user (or its environment torn down by the stop): not the agent's failure, nor the harness's.
  const cancelled =
    loop.stopReason === "cancelled" || loop.stoppedByRunLimit === true || (deps.signal.aborted && infraError);
  let verdict = verdictOf(checks, { infraError, cancelled });
  // A failure on a starved machine whose wall-clock waits ran out is the harness's, not the agent's.
  const starved = verdict === "failed" ? starvedWaits(env) : [];
  if (starved.length > 0) {
    verdict = "error";
    error ??= describeStarvation(starved);
    log.emit("AgentEvent", {
      kind: "error_event",
      error: describeStarvation(starved),
      origin: "machine",
      tool_req: null,
      starved_waits: starved,
    });
  }
  await keepTraceFor(env, verdict, log);
  // For an infeasible task, "it does not exist" is the right answer, not a declared failure.
  const { claimed, verified } = summarizeClaim(loop.answer, checks, {
    infeasible: spec.task.tags.includes("infeasible"),
    infraError: infraError || starved.length > 0,
    cancelled,
  });
  const stopLine = describeStop(loop, checks, verdict, starved);
  // The wall-clock waits: observations that waited for a document (and ran out), deciding waits that ran out.
  const waits = env
    ? { documents: env.documentWaits, ranOut: env.starvation.ranOut, starved: env.starvation.starved.length }
    : undefined;
  log.emit("MetricsUpdateEvent", {
    metrics: {
      steps: loop.turns,
      actions: loop.actions,
      tokens: loop.usage,
      timing: loop.timing,
      repetition,
      ...(loop.invalid ? { invalid: loop.invalid } : {}),
      ...(waits ? { waits } : {}),
    },
  });
  // `reason` is the Agents API's enum; umpire's stop reason and verdict ride along as extra fields.
  log.emit("AgentCompletionEvent", {
    reason: completionReason(loop.stopReason),
    stop_reason: loop.stopReason,
    detail: stopLine,
    verdict,
    claimed,
    verified,
  });
  return {
    loop,
    checks,
    verdict,
    claimed,
    verified,
    stopLine,
    wallMs: performance.now() - started,
    checkMs,
    folder,
    error,
    repetition,
    ...(env?.resetMs !== undefined ? { resetMs: env.resetMs } : {}),
    ...(env && (env.instruction !== undefined || env.facts)
      ? {
          fromEnvironment: { ...(env.instruction !== undefined ? { instruction: env.instruction } : {}), ...env.facts },
        }
      : {}),
    ...(env && (env.dialogs.records.length || env.tabs.length)
      ? { browserEvents: { dialogs: env.dialogs.records, tabs: env.tabs } }
      : {}),
  };
}

/**
 * Runs the task's checks on the world the trial left (files, effects, the page, storage), keeps that
 * evidence for `umpire rejudge`, and adds the forbidden-effects judgement. Checks that could not run
 * are an error of the harness, said in `checkError`. The page probe is closed by the caller.
 */
async function judgeEndState(
  spec: TrialSpec,
  folder: string,
  deps: ConclusionDeps,
  ending: TrialEnding,
  loop: LoopOutcome,
): Promise<{ checks: CheckResult[]; probes?: PageProbeHandle; checkError?: string; storageFault?: unknown }> {
  const env = ending.trialEnv;
  const workspaceDir = join(folder, "workspace");
  let probes: PageProbeHandle | undefined;
  try {
    // Effects are read only where checks or forbiddenEffects need them and the target has a source (a validation rule guarantees the pairing).
    const forbidden = spec.task.permissions.forbiddenEffects;
    const needsEffects = forbidden.length > 0 || spec.task.checks.some((c) => c.kind === "effects");
    const effects = needsEffects && deps.target.hasEffects ? await deps.target.effects(spec.id) : [];
    // A command agent's page checks judge a fresh load in a context it never had (check-probes.ts).
    probes = env ? pageProbeOf(env, deps.target, ending.driver?.external === true) : undefined;
    const recorder = recordEvidence(
      {
        workspaceDir,
        effects,
        answer: loop.answer,
        trialId: spec.id,
        taskFile: spec.task.file,
        env: deps.env,
        target: {
          name: deps.target.name,
          baseUrl: deps.target.baseUrl,
          ...(deps.target.vars ? { vars: deps.target.vars } : {}),
          isAllowedUrl: (url) => env?.isAllowedUrl(url) ?? deps.target.origins.includes(safeOrigin(url)),
        },
        page: probes?.probe,
        storage: env ? storageProbeOf(env.context) : undefined,
      },
      {
        viewport: spec.task.viewport,
        effectsSource: effectsSource(deps.target, spec.id),
        lastPage: () => env?.page,
      },
    );
    let checks = await runChecks(spec.task.checks, recorder.ctx);
    // The end state the checks read, kept so `umpire rejudge` can judge it again without a model turn.
    await keepEvidence(folder, recorder, needsEffects && deps.target.hasEffects ? effects : null);
    if (ending.driver) checks = withoutForgeable(checks, ending.driver, loop.stopReason === "agent_crashed");
    const forbiddenResult = judgeForbiddenEffects(forbidden, effects, effectsSource(deps.target, spec.id));
    if (forbiddenResult) checks.push(forbiddenResult);
    return { checks, probes };
  } catch (e) {
    if (isStorageFault(e)) return { checks: [], probes, storageFault: e };
    return { checks: [], probes, checkError: `checks could not run: ${firstLineOf(e)}` };
  }
}

/** The trial as the agent gets it: with the instruction the start page gave, when the task reads it from there. */
export function withPageInstruction(spec: TrialSpec, env: TrialEnvironment): TrialSpec {
  return env.instruction === undefined ? spec : { ...spec, task: { ...spec.task, instruction: env.instruction } };
}

/** The instruction the page gave and the target's facts (a seed) are part of the trial's record: a step event says them. */
export function logEnvironmentFacts(log: TrialLog, env: TrialEnvironment): void {
  if (env.instruction === undefined && !env.facts) return;
  log.step("flow_event", {
    flow: "environment",
    origin: "target",
    ...(env.instruction !== undefined ? { instruction: env.instruction } : {}),
    ...(env.facts ? { facts: env.facts } : {}),
  });
}

/** A teardown step, given up after TEARDOWN_DEADLINE_MS: a browser that stopped answering must not hold the trial. */
async function bounded(work: Promise<unknown> | undefined): Promise<void> {
  if (work) await withDeadline(work, TEARDOWN_DEADLINE_MS, "a teardown step").catch(() => undefined);
}

/** `--trace retain-on-failure` drops a passed trial's trace; a trace that could not be made is said in the log. */
async function keepTraceFor(env: TrialEnvironment | undefined, verdict: Verdict, log: TrialLog): Promise<void> {
  const trace = env?.trace;
  if (!trace) return;
  await trace.settle(verdict).catch((e) => (trace.problem ??= `the trace could not be removed: ${firstLineOf(e)}`));
  if (trace.problem) log.step("error_event", { error: trace.problem, origin: "trace", tool_req: null });
}

/**
 * Writes the trial's evidence. A full or read-only disk is a storage fault (the run stops, the trial
 * is left for --resume): evidence that silently was not kept is a trial nobody can re-judge. Any
 * other failure to keep it leaves the judgement standing (re-judging says its evidence is missing).
 */
async function keepEvidence(folder: string, recorder: EvidenceRecorder, effects: Effect[] | null): Promise<void> {
  try {
    writeTrialEvidence(folder, await recorder.finish({ effects }));
  } catch (error) {
    if (isStorageFault(error)) throw storageError(error, join(folder, EVIDENCE_FILE), "--out");
  }
}

/**
 * Native dialogs and new tabs are what the agent met on its screen, so each is a step event: a
 * `flow_event` (the Agents API has no dialog event) with `flow` `dialog_opened`, `dialog_answered`
 * (kind, message, answer, by whom and how) or `tab_opened`.
 */
function browserEventLog(log: TrialLog): Pick<TrialEnvironmentOptions, "onDialog" | "onTab"> {
  return {
    onDialog: (event, record) =>
      log.step("flow_event", {
        flow: event === "opened" ? "dialog_opened" : "dialog_answered",
        origin: "browser",
        dialog: { ...record },
      }),
    onTab: (tab) => log.step("flow_event", { flow: "tab_opened", origin: "browser", tab: { ...tab } }),
  };
}

/** Blocked requests logged one by one, up to this many; past it, one summary with the count. */
export const BLOCKED_LOG_LIMIT = 100;

/**
 * Requests the page tried and umpire blocked are evidence of an agent or page going where it
 * should not, so each is written to events.jsonl as it happens. The Agents API schema has no
 * event for it; an `AgentEvent` of kind `error_event` (a recoverable error, origin `browser_guard`)
 * fits its shape, with the request's details in a `blocked_request` field. A page that hammers a
 * foreign origin cannot flood the log: past BLOCKED_LOG_LIMIT only a count is kept.
 */
export function blockedRequestLog(log: TrialLog): { record: (blocked: BlockedRequest) => void; finish: () => void } {
  let count = 0;
  return {
    record(blocked) {
      count += 1;
      if (count > BLOCKED_LOG_LIMIT) return;
      const what = blocked.navigation ? "navigation" : `${blocked.resourceType} request`;
      log.emit("AgentEvent", {
        kind: "error_event",
        error: `blocked ${what} to ${blocked.url}: not an allowed origin for this task`,
        origin: "browser_guard",
        tool_req: null,
        blocked_request: blocked,
      });
    },
    finish() {
      if (count <= BLOCKED_LOG_LIMIT) return;
      log.emit("AgentEvent", {
        kind: "error_event",
        error: `${count - BLOCKED_LOG_LIMIT} more blocked requests were not logged one by one (${count} in all)`,
        origin: "browser_guard",
        tool_req: null,
        blocked_requests_total: count,
      });
    },
  };
}

/**
 * The deciding waits of the trial's observations that ran out on a starved machine. The trial's own
 * time limit is not one of them: a model or agent that is slow (or hangs) on a busy machine is still
 * slow, and a suite's own load must not turn a real timeout into an infrastructure error.
 */
function starvedWaits(env: TrialEnvironment | undefined): StarvedWait[] {
  return env ? env.starvation.starved : [];
}

/** "turn cap reached, notes/BB-042.md missing" / "model finished, all checks passed". */
export function describeStop(
  loop: LoopOutcome,
  checks: CheckResult[],
  verdict: Verdict,
  starved: readonly StarvedWait[] = [],
): string {
  const head = STOP_WORDS[loop.stopReason] + (loop.stopDetail ? ` (${loop.stopDetail})` : "");
  if (verdict === "error" && starved.length > 0)
    return `${head}; not judged: ${describeStarvation(starved)} (infrastructure error)`;
  if (verdict === "error") return `${head}; not judged: infrastructure error`;
  if (verdict === "cancelled") return `${head}; not judged: cancelled (umpire run --resume runs it again)`;
  const failing = checks.find((c) => c.required && !c.pass);
  return failing ? `${head}, ${failing.reason}` : `${head}, all required checks passed`;
}
