/**
 * One trial, start to finish: environment, loop, independent checks, verdict, teardown.
 * Failures inside are data: this function resolves with an outcome, it does not throw.
 */
import { join } from "node:path";
import type { Browser } from "playwright";
import type { FixtureControlClient } from "../../fixtures-site/client.js";
import { runChecks, summarizeClaim, verdictOf } from "../checks/registry.js";
import type { CheckResult } from "../checks/types.js";
import type { Task } from "../task/schema.js";
import { TrialEnvironment, type BlockedRequest } from "./environment.js";
import { Executor } from "./executor.js";
import { emptyLoopOutcome, messageOf, runLoop, type AgentSessionLike, type LoopOutcome, type RepetitionGuard, type PlayedTurn } from "./loop.js";
import { INFRASTRUCTURE_STOPS, STOP_WORDS } from "./stop-reason.js";
import { completionReason, createTrialLog, startedEventData, writeOrFault, type TrialLog } from "./trial-log.js";
import { isStorageFault } from "../errors.js";
import type { Verdict } from "../vocabulary.js";

export interface TrialSpec {
  id: string;
  task: Task;
  /** The agent config's label, e.g. "reference/structured". */
  agentLabel: string;
  repeat: number;
}

export interface TrialDeps {
  browser: Browser;
  fixtures: { siteUrl: string; client: FixtureControlClient };
  createSession: (trial: TrialSpec) => AgentSessionLike;
  createGuard?: (trial: TrialSpec, env: TrialEnvironment) => RepetitionGuard | undefined;
  modelSlot: <T>(fn: () => Promise<T>) => Promise<T>;
  maxInvalidOutputs: number;
  responseReserve: number;
  signal: AbortSignal;
  onTurn: (turn: PlayedTurn) => void;
  /** An earlier, non-empty folder at this trial's path was moved here before it started. */
  movedAside?: string;
}

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
}

export async function runTrial(spec: TrialSpec, folder: string, deps: TrialDeps): Promise<TrialOutcome> {
  const started = performance.now();
  const log = createTrialLog(folder);
  const workspaceDir = join(folder, "workspace");
  log.emit("AgentStartedEvent", startedEventData({
    trial: spec.id,
    task: spec.task.id,
    agent: spec.agentLabel,
    repeat: spec.repeat,
    // Said in the log so nobody mistakes the moved folder's contents for this trial's.
    ...(deps.movedAside ? { previousFolderMovedTo: deps.movedAside } : {}),
  }));
  let env: TrialEnvironment | undefined;
  let loop: LoopOutcome | undefined;
  let guard: RepetitionGuard | undefined;
  let error: string | null = null;
  const blocked = blockedRequestLog(log);
  try {
    env = await TrialEnvironment.open({
      browser: deps.browser,
      task: spec.task,
      trialId: spec.id,
      workspaceDir,
      fixtures: deps.fixtures,
      onBlockedRequest: blocked.record,
    });
    const opened = env;
    // The frame of the last screenshot sent: the executor scales [0,1000] coordinates against it.
    let lastFrame = { width: spec.task.viewport.width * spec.task.viewport.deviceScaleFactor, height: spec.task.viewport.height * spec.task.viewport.deviceScaleFactor };
    const executor = new Executor({
      env: opened,
      task: spec.task,
      frame: () => lastFrame,
      workspaceDir,
      recordEffect: (type, detail) => deps.fixtures.client.recordEffect(spec.id, type, detail).then(() => undefined),
    });
    guard = deps.createGuard?.(spec, opened);
    loop = await runLoop({
      task: spec.task,
      observe: async () => {
        const observation = await opened.observe();
        lastFrame = { width: observation.width, height: observation.height };
        return observation;
      },
      session: deps.createSession(spec),
      executor,
      log,
      userSignal: deps.signal,
      maxInvalidOutputs: deps.maxInvalidOutputs,
      responseReserve: deps.responseReserve,
      modelSlot: deps.modelSlot,
      guard,
      onTurn: deps.onTurn,
    });
  } catch (e) {
    if (isStorageFault(e)) {
      // umpire could not record the trial: no verdict at all (the scheduler leaves it for --resume).
      await env?.close().catch(() => undefined);
      await deps.fixtures.client.deleteSession(spec.id).catch(() => undefined);
      throw e;
    }
    error = messageOf(e);
    log.emit("AgentErrorEvent", { error, trace: e instanceof Error ? (e.stack ?? "") : "", info: {} });
  }
  if (!loop) loop = emptyLoopOutcome("environment_error", error ?? "environment failed");

  const checkStarted = performance.now();
  let checks: CheckResult[] = [];
  try {
    const effects = await deps.fixtures.client.effects(spec.id);
    const context = env?.context;
    checks = await runChecks(spec.task.checks, {
      workspaceDir,
      effects,
      answer: loop.answer,
      page: env && context
        ? {
            current: async () => env!.page,
            isTaskPage: (url: string) => env!.isAllowedUrl(url),
            open: async (path: string) => {
              const page = await context.newPage();
              await page.goto(new URL(path, deps.fixtures.siteUrl).toString(), { waitUntil: "load" });
              return page;
            },
          }
        : undefined,
    });
  } catch (e) {
    error ??= `checks could not run: ${messageOf(e)}`;
  }
  const checkMs = performance.now() - checkStarted;
  await env?.close();
  blocked.finish();
  await deps.fixtures.client.deleteSession(spec.id).catch(() => undefined);

  const infraError = INFRASTRUCTURE_STOPS.has(loop.stopReason) || (error !== null && checks.length === 0);
  // Stopped by the user (or its environment torn down by the stop): not the agent's failure, nor the harness's.
  const cancelled = loop.stopReason === "cancelled" || (deps.signal.aborted && infraError);
  const verdict = verdictOf(checks, { infraError, cancelled });
  // For an infeasible task, "it does not exist" is the right answer, not a declared failure.
  const { claimed, verified } = summarizeClaim(loop.answer, checks, { infeasible: spec.task.tags.includes("infeasible"), infraError, cancelled });
  const stopLine = describeStop(loop, checks, verdict);
  const repetition = guard?.metrics() ?? {};
  log.emit("MetricsUpdateEvent", { metrics: { steps: loop.turns, actions: loop.actions, tokens: loop.usage, timing: loop.timing, repetition } });
  // `reason` is the Agents API's enum; umpire's stop reason and verdict ride along as extra fields.
  log.emit("AgentCompletionEvent", { reason: completionReason(loop.stopReason), stop_reason: loop.stopReason, detail: stopLine, verdict, claimed, verified });
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
function blockedRequestLog(log: TrialLog): { record: (blocked: BlockedRequest) => void; finish: () => void } {
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

/** "turn cap reached, notes/BB-042.md missing" / "model finished, all checks passed". */
export function describeStop(loop: LoopOutcome, checks: CheckResult[], verdict: Verdict): string {
  const head = STOP_WORDS[loop.stopReason] + (loop.stopDetail ? ` (${loop.stopDetail})` : "");
  if (verdict === "error") return `${head}; not judged: infrastructure error`;
  if (verdict === "cancelled") return `${head}; not judged: cancelled (umpire run --resume runs it again)`;
  const failing = checks.find((c) => c.required && !c.pass);
  return failing ? `${head}, ${failing.reason}` : `${head}, all required checks passed`;
}
