/**
 * The trial loop: observe -> model -> executor -> results, until exactly one stop reason.
 *
 * Turns and actions are capped separately; the token budget is checked before each request
 * with room reserved for the response; one deadline covers model and browser waits; a user
 * cancellation lets the current action finish and skips the rest, saying why.
 */
import type { MeasuredModelUse } from "./measured-use.js";
import type { ProposedAction } from "../../toolbox/tools.js";
import type { Task } from "../../task/schema.js";
import type { Observation } from "./environment.js";
import { reasonOf, type ActionResult, type Executor } from "./executor.js";
import type { ActionStatus, ReportedUsage, StopReason, TurnOutcome, Usage } from "../../vocabulary.js";
import { logObservation, type TrialLog } from "./trial-log.js";
import { firstLineOf, isStorageFault } from "../../errors.js";
import type { SpendStop } from "./cost-limit.js";
import { isStuckCall, type Expiry, type StuckCall, type TrialDeadline } from "./deadline.js";
import type { InvalidKind } from "../../agent/action-validation.js";

/** The model side's turn, as the agent session returns it (docs/ARCHITECTURE.md). */
export interface AgentTurn {
  outcome: TurnOutcome;
  actions: ProposedAction[];
  /** Proposals not run, each with its kind (action-validation.ts: the model's fault, or a vendor action umpire cannot do). */
  invalid: { id: string; tool?: string; kind: InvalidKind; message: string }[];
  note?: string | null;
  thought?: string | null;
  content?: string | null;
  reasoning?: string | null;
  usage: ReportedUsage;
  timing: { modelMs: number; ttftMs?: number | null; retries: number };
  finishReason?: string | null;
  error?: { code: string; message: string; status?: number };
  /** Failed attempts of this turn's request (retried or final), for the log. */
  failures?: { attempt: number; kind: string; message: string; status?: number; waitMs: number | null }[];
}

export interface AgentSessionLike {
  nextTurn(observation: Observation, signal: AbortSignal): Promise<AgentTurn>;
  addResults(results: { id: string; tool: string; status: ActionStatus; message: string; output?: string }[]): void;
  addUserText(text: string): void;
  /** Input tokens the next request would take, estimated before sending (optional). */
  estimateInputTokens?(observation: Observation): number;
  /**
   * False when the model behind this session never reads the page's layout report, so the
   * observation need not wait for it (environment.ts `layoutFlush`). Unset means it might.
   */
  readsPageLayout?: boolean;
}

export type GuardDecision =
  | { kind: "continue"; warnings?: Map<string, string> }
  | { kind: "pause"; condition: string; message: string }
  | { kind: "stuck"; condition: string; report: string; evidence: string[] };

/** Repetition detection, seen from the loop (src/runner/trial/repetition-guard.ts adapts the detector). */
export interface RepetitionGuard {
  beforeExecute(observation: Observation, screenshotPath: string, actions: ProposedAction[]): Promise<GuardDecision>;
  metrics(): Record<string, number>;
}

/** One turn as the loop played it, with its actions' results (the store's row is `PlayedTurn`). */
export interface PlayedTurn {
  idx: number;
  startedAt: string;
  outcome: AgentTurn["outcome"];
  finishReason: string | null;
  modelMs: number;
  ttftMs: number | null;
  retries: number;
  usage: ReportedUsage;
  note: string | null;
  thought: string | null;
  content: string | null;
  reasoning: string | null;
  screenshot: string;
  width: number;
  height: number;
  flags: Record<string, unknown>;
  actions: (ActionResult & { idx: number; args: Record<string, unknown> })[];
}

export interface LoopOptions {
  task: Task;
  observe: () => Promise<Observation>;
  session: AgentSessionLike;
  executor: Executor;
  log: TrialLog;
  userSignal: AbortSignal;
  /** Consecutive invalid outputs that stop the trial with `invalid_output`. */
  maxInvalidOutputs: number;
  /** The response allowance reserved before each request (the agent's max_tokens). */
  responseReserve: number;
  /** Runs a model request under the run-wide model concurrency limit. */
  modelSlot: <T>(fn: () => Promise<T>) => Promise<T>;
  guard?: RepetitionGuard;
  onTurn: (turn: PlayedTurn) => void;
  /** Money limits (src/runner/trial/cost-limit.ts), asked before each request with the trial's usage so far. */
  spendStop?: (usage: Usage, turns: number) => SpendStop | null;
  /** Words naming a native dialog still open, if any: a stop says it was left unanswered. */
  openDialog?: () => string | undefined;
  /**
   * The trial's call deadline (deadline.ts): the model's turn and the guard's page read run under it,
   * and its watchdog ends a loop stuck past the time limit plus grace, whatever it waits for.
   */
  deadline?: TrialDeadline;
  /**
   * Whether the environment has ended its episode (a benchmark's page set its done flag, read from umpire's
   * own episode capture): words saying so, or null while it runs. Asked after each action and before each
   * request; an ended episode stops the trial `episode_done`, the rest of the turn's actions skipped.
   */
  episodeDone?: () => Promise<string | null>;
}

export interface LoopOutcome {
  stopReason: StopReason;
  /** Words beside the stop reason, e.g. "Save stayed covered after 3 attempts". */
  stopDetail: string;
  answer: string | null;
  turns: number;
  actions: number;
  /** Summed over turns; `reported` is false when some turn's usage was not reported. */
  usage: Usage & { reported: boolean };
  timing: { modelMs: number; executorMs: number; captureMs: number; ttftMs: number[] };
  lastScreenshot: string | null;
  /** Screenshots attached to a stuck report. */
  evidence: string[];
  /** Set when the run's --max-cost stopped the trial: not the agent's doing, so it is not judged. */
  stoppedByRunLimit?: boolean;
  /** A command agent's model calls as umpire's model proxy measured them (its usage is then this, not its claim). */
  measured?: MeasuredModelUse;
  /**
   * Umpire's own loop: the model's proposals it refused, counted by kind (action-validation.ts); `skipped`
   * calls (valid, after a refused one) are not refusals and not counted. Absent for other loops.
   */
  invalid?: InvalidCounts;
}

/** Refused proposals by kind: stored with a turn (`flags.invalid`) and a trial (`metrics.invalid`). */
export type InvalidCounts = Partial<Record<InvalidKind, number>>;

/** A turn's refusals counted by kind (`skipped` left out), added to `into`. */
export function countInvalid(invalid: AgentTurn["invalid"], into: InvalidCounts = {}): InvalidCounts {
  for (const { kind } of invalid) if (kind !== "skipped") into[kind] = (into[kind] ?? 0) + 1;
  return into;
}

/** The trial's summed tokens, or null when no turn reported usage (its cost is then unknown, not zero). */
export function loopUsage(outcome: LoopOutcome): Usage | null {
  const { reported, ...tokens } = outcome.usage;
  return reported ? tokens : null;
}

/** An outcome with nothing done yet; also what a trial that never reached its loop reports. */
export function emptyLoopOutcome(stopReason: StopReason, stopDetail: string): LoopOutcome {
  return {
    stopReason,
    stopDetail,
    answer: null,
    turns: 0,
    actions: 0,
    usage: { inputTokens: 0, outputTokens: 0, reasoningTokens: 0, cachedTokens: 0, reported: false },
    timing: { modelMs: 0, executorMs: 0, captureMs: 0, ttftMs: [] },
    lastScreenshot: null,
    evidence: [],
  };
}

export async function runLoop(options: LoopOptions): Promise<LoopOutcome> {
  const loop = new TrialLoop(options);
  const watchdog = options.deadline?.watchdog();
  try {
    if (!watchdog) return await loop.run();
    const running = loop.run();
    const first = await Promise.race([running, watchdog.expired]);
    if (!("why" in first)) return first;
    // Stuck in something no call deadline covered: the loop is abandoned where it stands.
    running.catch(() => undefined);
    return loop.abandon(first);
  } finally {
    watchdog?.dispose();
    loop.dispose();
  }
}

/** What the loop looks at: the latest observation and its screenshot in the trial log. */
interface Current {
  observation: Observation;
  path: string;
}

/**
 * One trial's loop, step by step. Every step that may end the trial returns the outcome when it
 * did (`stop` sets exactly one stop reason) and null when the loop goes on.
 */
class TrialLoop {
  private readonly out: LoopOutcome = { ...emptyLoopOutcome("answered", ""), invalid: {} };
  private readonly deadline = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private readonly signal: AbortSignal;
  private current!: Current;
  private lastInput = 0;
  private inputGrowth = 0;
  private consecutiveInvalid = 0;
  /** Set once the watchdog ended the trial: a step still running then may not change the outcome. */
  private abandoned = false;

  constructor(private readonly options: LoopOptions) {
    const { seconds } = options.task.limits;
    this.timer = setTimeout(() => this.deadline.abort(new Error(`time limit of ${seconds} s reached`)), seconds * 1000);
    this.signal = AbortSignal.any([options.userSignal, this.deadline.signal]);
  }

  dispose(): void {
    clearTimeout(this.timer);
  }

  async run(): Promise<LoopOutcome> {
    const unobserved = await this.observeOrStop({ rethrowStorage: true, checkAborted: false });
    if (unobserved) return unobserved;
    for (;;) {
      const ended = this.checkBeforeRequest() ?? (await this.episodeStop()) ?? (await this.playTurn());
      if (ended) return ended;
    }
  }

  /** Words saying the environment ended its episode, or null while it runs (or without an episode). */
  private async episodeEnded(): Promise<string | null> {
    const { episodeDone, deadline } = this.options;
    if (!episodeDone) return null;
    const read = episodeDone();
    return (deadline?.call("reading whether the episode ended", read) ?? read).catch((error: unknown) => {
      if (isStuckCall(error)) throw error;
      // A page that cannot be read now is no ended episode; the checks read it again at the end.
      return null;
    });
  }

  /** Before a request: an episode the environment ended (its time limit, say) stops the trial. */
  private async episodeStop(): Promise<LoopOutcome | null> {
    try {
      const done = await this.episodeEnded();
      return done === null ? null : this.stop("episode_done", done);
    } catch (error) {
      if (isStuckCall(error)) return this.stuck(error);
      throw error;
    }
  }

  /** The watchdog fired: the outcome so far, stopped by what the trial was stuck in. Later steps change nothing. */
  abandon(expiry: Expiry): LoopOutcome {
    const outcome = this.stuckStop(
      expiry.why === "cancelled" ? "cancelled" : expiry.stuck?.waiter === "agent" ? "agent" : "umpire",
      expiry.stuck
        ? `umpire was stuck: ${expiry.stuck.what} did not answer in ${(expiry.stuck.waitedMs / 1000).toFixed(1)} s (${expiry.stuck.untracked ? "in no call a deadline covers; " : ""}the trial's watchdog ended it)`
        : "umpire was stuck past the trial's time limit plus grace, in no call it tracks (the trial's watchdog ended it)",
    );
    this.abandoned = true;
    return { ...outcome, usage: { ...outcome.usage }, timing: { ...outcome.timing }, invalid: { ...outcome.invalid } };
  }

  /** A call abandoned at its deadline (deadline.ts) ends the trial: error when umpire was stuck, timeout when the agent was. */
  private stuck(error: StuckCall): LoopOutcome {
    const who = error.why === "cancelled" ? "cancelled" : error.waiter;
    return this.stuckStop(who, error.message);
  }

  private stuckStop(who: "cancelled" | "agent" | "umpire", detail: string): LoopOutcome {
    if (who === "cancelled" || this.options.userSignal.aborted)
      return this.stop("cancelled", `${reasonOf(this.options.userSignal)}; ${detail}`);
    if (who === "agent") return this.stop("timeout", `${reasonOf(this.deadline.signal)}; the model had not answered`);
    return this.stop("environment_error", detail);
  }

  private stop(reason: StopReason, detail = ""): LoopOutcome {
    if (this.abandoned) return this.out;
    const dialog = reason === "answered" ? undefined : this.options.openDialog?.();
    if (dialog) detail = detail ? `${detail}; ${dialog}` : dialog;
    this.out.stopReason = reason;
    this.out.stopDetail = detail;
    this.options.log.step("flow_event", { flow: "stop", origin: "loop", reason, detail });
    return this.out;
  }

  private abortedStop(): LoopOutcome {
    const { userSignal } = this.options;
    return userSignal.aborted
      ? this.stop("cancelled", reasonOf(userSignal))
      : this.stop("timeout", reasonOf(this.deadline.signal));
  }

  private async observe(): Promise<Current> {
    const { log, task } = this.options;
    const observation = await this.options.observe();
    this.out.timing.captureMs += observation.captureMs;
    const path = log.screenshot(observation.png, observation.sha256);
    this.out.lastScreenshot = path;
    logObservation(log, path, {
      url: observation.url ?? null,
      title: observation.title ?? null,
      text: observation.text ?? "",
      viewport_size: [task.viewport.width, task.viewport.height],
      image_size: [observation.width, observation.height],
      captured_at: observation.capturedAt,
      capture_ms: Math.round(observation.captureMs),
      // What the capture waited for: the start page's requests, animations, a moving layout (page-settle.ts).
      ...(observation.settle ? { settle: observation.settle } : {}),
    });
    return { observation, path };
  }

  /**
   * A new observation; a page that cannot be observed ends the trial as environment_error. A full
   * or unwritable disk (umpire's, not the page's) stops the run instead where `rethrowStorage`.
   */
  private async observeOrStop(how: { rethrowStorage: boolean; checkAborted: boolean }): Promise<LoopOutcome | null> {
    try {
      this.current = await this.observe();
      return null;
    } catch (error) {
      if (how.rethrowStorage && isStorageFault(error)) throw error;
      if (isStuckCall(error)) return this.stuck(error);
      if (how.checkAborted && this.signal.aborted) return this.abortedStop();
      return this.stop("environment_error", `could not observe the page: ${firstLineOf(error)}`);
    }
  }

  /** The limits checked before each model request: cancellation, turns, tokens (with room for the response), money. */
  private checkBeforeRequest(): LoopOutcome | null {
    const { task, responseReserve, session } = this.options;
    const { out } = this;
    if (this.signal.aborted) return this.abortedStop();
    if (out.turns >= task.limits.turns) return this.stop("turn_limit", `${task.limits.turns} turns used`);
    const used = out.usage.inputTokens + out.usage.outputTokens;
    const nextInput = this.lastInput + Math.max(this.inputGrowth, 0);
    if (out.turns > 0 && used + nextInput + responseReserve > task.limits.tokens) {
      return this.stop(
        "token_budget",
        `${used} of ${task.limits.tokens} tokens used; the next request (~${nextInput} in + ${responseReserve} reserved) would not fit`,
      );
    }
    const spend = this.options.spendStop?.(out.usage, out.turns);
    if (spend) {
      if (spend.scope === "run") out.stoppedByRunLimit = true;
      return this.stop("cost_limit", spend.detail);
    }
    if (!out.usage.reported && session.estimateInputTokens) {
      // No usage reported yet (the first turn, or a server that never says): estimate before sending.
      const estimate = session.estimateInputTokens(this.current.observation);
      if (estimate + responseReserve > task.limits.tokens) {
        return this.stop(
          "token_budget",
          `the next request is estimated at ~${estimate} input tokens + ${responseReserve} reserved, over the budget of ${task.limits.tokens}; not sent`,
        );
      }
    }
    return null;
  }

  /** One turn: the model's request, then its actions (or what its outcome means for the trial). */
  private async playTurn(): Promise<LoopOutcome | null> {
    const { options, out } = this;
    const startedAt = new Date().toISOString();
    let turn: AgentTurn;
    try {
      const request = options.modelSlot(() => options.session.nextTurn(this.current.observation, this.signal));
      turn = await (options.deadline?.call("the model's turn", request, "agent") ?? request);
    } catch (error) {
      if (isStuckCall(error)) return this.stuck(error);
      if (this.signal.aborted) return this.abortedStop();
      return this.stop("model_error", firstLineOf(error));
    }
    out.turns += 1;
    addUsage(out, turn);
    if (turn.usage.inputTokens !== null) {
      this.inputGrowth = this.lastInput ? turn.usage.inputTokens - this.lastInput : 0;
      this.lastInput = turn.usage.inputTokens;
    }
    this.logPolicy(turn);
    const record = this.turnRecord(turn, startedAt);
    // Refusals by kind, on the turn (its stored flags) and summed over the trial.
    const refused = countInvalid(turn.invalid);
    if (Object.keys(refused).length > 0) record.flags.invalid = refused;
    countInvalid(turn.invalid, (out.invalid ??= {}));
    const ended = this.endOnOutcome(turn, record);
    if (ended) return ended;
    for (const invalid of turn.invalid) {
      // A ToolRequest needs a tool name: an output whose tool could not be read has no request.
      options.log.step("error_event", {
        error: invalid.message,
        origin: "validation",
        tool_req: invalid.tool ? { tool_name: invalid.tool, id: invalid.id } : null,
        call_id: invalid.id,
        // The schema's ErrorEvent has no field for it (its `kind` is the event's): umpire's own, beside it.
        invalid_kind: invalid.kind,
      });
    }
    if (turn.outcome === "invalid" || turn.actions.length === 0) return this.afterInvalid(turn, record);
    this.consecutiveInvalid = 0;
    return this.act(turn, record);
  }

  private logPolicy(turn: AgentTurn): void {
    this.options.log.step("policy_event", {
      turn: this.out.turns,
      reasoning_content: turn.reasoning ?? null,
      content: turn.content ?? null,
      note: turn.note ?? null,
      thought: turn.thought ?? null,
      tool_reqs: turn.actions.map((a) => ({ tool_name: a.tool, args: a.args, id: a.id })),
      // The schema's validation_errors are strings; which call each one was about rides along.
      validation_errors: turn.invalid.map((i) => i.message),
      validation_details: turn.invalid,
      outcome: turn.outcome,
      finish_reason: turn.finishReason ?? null,
      usage: turn.usage,
      timing: turn.timing,
      attempt_failures: turn.failures ?? [],
    });
  }

  private turnRecord(turn: AgentTurn, startedAt: string): PlayedTurn {
    return {
      idx: this.out.turns,
      startedAt,
      outcome: turn.outcome,
      finishReason: turn.finishReason ?? null,
      modelMs: turn.timing.modelMs,
      ttftMs: turn.timing.ttftMs ?? null,
      retries: turn.timing.retries,
      usage: turn.usage,
      note: turn.note ?? null,
      thought: turn.thought ?? null,
      content: turn.content ?? null,
      reasoning: turn.reasoning ?? null,
      screenshot: this.current.path,
      width: this.current.observation.width,
      height: this.current.observation.height,
      flags: {},
      actions: [],
    };
  }

  /** A turn the model did not answer with actions (refused, truncated, failed) ends the trial. */
  private endOnOutcome(turn: AgentTurn, record: PlayedTurn): LoopOutcome | null {
    if (turn.outcome === "error" && this.signal.aborted) {
      this.options.onTurn(record);
      return this.abortedStop();
    }
    if (turn.outcome === "actions" || turn.outcome === "invalid") return null;
    this.options.onTurn(record);
    const detail = turn.error?.message ?? turn.finishReason ?? "";
    this.options.log.step("error_event", { error: detail || turn.outcome, origin: "model", tool_req: null });
    if (turn.outcome === "refused") return this.stop("model_refused", detail);
    if (turn.outcome === "truncated") return this.stop("model_truncated", detail || "finish_reason length");
    return this.stop("model_error", detail);
  }

  /** An invalid output (or no action): the model tries again on a new observation, up to maxInvalidOutputs in a row. */
  private async afterInvalid(turn: AgentTurn, record: PlayedTurn): Promise<LoopOutcome | null> {
    this.consecutiveInvalid += 1;
    this.options.onTurn(record);
    if (this.consecutiveInvalid >= this.options.maxInvalidOutputs) {
      return this.stop(
        "invalid_output",
        `${this.consecutiveInvalid} invalid outputs in a row; last: ${turn.invalid.at(-1)?.message ?? "no action"}`,
      );
    }
    this.options.session.addResults([]);
    // Guarded like every other capture: a failed screenshot is the environment's failure and
    // must not discard the turns and tokens this trial already spent.
    return this.observeOrStop({ rethrowStorage: false, checkAborted: true });
  }

  /** The turn's actions, through the repetition guard and the caps; then the answer, a stuck stop, or the next observation. */
  private async act(turn: AgentTurn, record: PlayedTurn): Promise<LoopOutcome | null> {
    const { options, out } = this;
    const { log, session, task } = options;
    let decision: GuardDecision = { kind: "continue" };
    if (options.guard) {
      const read = options.guard.beforeExecute(this.current.observation, this.current.path, turn.actions);
      try {
        decision = await (options.deadline?.call("reading what lies under the actions' points", read) ?? read);
      } catch (error) {
        if (!isStuckCall(error)) throw error;
        options.onTurn(record);
        return this.stuck(error);
      }
    }
    const { results, answer, hitActionLimit, stuck, episodeDone } = await this.execute(turn, decision);
    this.logResults(turn, results);
    record.actions = results.map((r, idx) => ({
      ...r,
      idx,
      args: turn.actions.find((a) => a.id === r.id)?.args ?? {},
    }));
    if (stuck) {
      options.onTurn(record);
      return this.stuck(stuck);
    }
    if (decision.kind !== "continue") record.flags = { repetition: decision.kind, condition: decision.condition };
    if (answer !== null) {
      options.onTurn(record);
      out.answer = answer;
      // `outcome` is the agent's own assessment (success|partial|infeasible|blocked); Holo's answer
      // tool carries none, so it is null. umpire's judgement is in the completion event and checks.
      log.step("answer_event", { answer, outcome: null });
      return this.stop("answered", "");
    }
    session.addResults(
      results.map((r) => ({
        id: r.id,
        tool: r.tool,
        status: r.status,
        message: r.message,
        ...(r.output !== undefined ? { output: r.output } : {}),
      })),
    );
    if (decision.kind === "stuck") {
      options.onTurn(record);
      out.evidence = decision.evidence;
      log.step("flow_event", {
        flow: "stuck",
        origin: "repetition",
        condition: decision.condition,
        evidence: decision.evidence,
      });
      return this.stop("stuck", decision.report);
    }
    if (decision.kind === "pause") {
      record.flags.reflection = true;
      session.addUserText(decision.message);
      log.step("flow_event", { flow: "pause", origin: "repetition", condition: decision.condition });
      log.step("flow_event", { flow: "reflection", origin: "repetition", message: decision.message });
    }
    options.onTurn(record);
    if (episodeDone !== null) return this.stop("episode_done", episodeDone);
    if (hitActionLimit) return this.stop("action_limit", `${task.limits.actions} actions used`);
    if (this.signal.aborted) return this.abortedStop();
    return this.observeOrStop({ rethrowStorage: true, checkAborted: true });
  }

  /** Runs the actions in order; after an answer, a pause, a cancellation or the cap the rest are skipped, saying why. */
  private async execute(
    turn: AgentTurn,
    decision: GuardDecision,
  ): Promise<{
    results: ActionResult[];
    answer: string | null;
    hitActionLimit: boolean;
    stuck?: StuckCall;
    episodeDone: string | null;
  }> {
    const { executor, task, userSignal } = this.options;
    const results: ActionResult[] = [];
    let answer: string | null = null;
    let hitActionLimit = false;
    let stuck: StuckCall | undefined;
    let episodeDone: string | null = null;
    for (const action of turn.actions) {
      const skip = (why: string) =>
        results.push({ id: action.id, tool: action.tool, status: "skipped", message: `not run: ${why}`, ms: 0 });
      if (stuck) skip("umpire was stuck in the action before");
      else if (episodeDone !== null) skip("the environment ended its episode before this action");
      else if (answer !== null) skip("the trial ended with the answer before this action");
      else if (action.tool === "answer") answer = String(action.args.content ?? "");
      else if (decision.kind !== "continue") skip(`paused: ${decision.condition}`);
      else if (this.signal.aborted) skip(reasonOf(userSignal.aborted ? userSignal : this.deadline.signal));
      else if (this.out.actions >= task.limits.actions) {
        hitActionLimit = true;
        skip(`the action cap of ${task.limits.actions} was reached`);
      } else {
        this.out.actions += 1;
        const started = performance.now();
        const running = executor.execute(action, this.signal);
        // Labelled for the watchdog: a hang in no covered call is still named by its action.
        const what = `executing ${action.tool} (action ${this.out.actions} of the trial)`;
        const result = await (this.options.deadline?.during(what, running) ?? running).catch((error: unknown) => {
          // The action hung in a browser call past the deadline: it is recorded, then the loop ends the trial.
          if (!isStuckCall(error)) throw error;
          stuck = error;
          const failed: ActionResult = {
            id: action.id,
            tool: action.tool,
            status: "failed",
            message: error.message,
            ms: 0,
          };
          failed.ms = performance.now() - started;
          return failed;
        });
        const warning = decision.warnings?.get(action.id);
        if (warning) result.message += ` Warning: ${warning}`;
        this.out.timing.executorMs += result.ms;
        results.push(result);
        if (!stuck)
          episodeDone = await this.episodeEnded().catch((error: unknown) => {
            if (!isStuckCall(error)) throw error;
            stuck = error;
            return null;
          });
      }
    }
    return { results, answer, hitActionLimit, episodeDone, ...(stuck ? { stuck } : {}) };
  }

  private logResults(turn: AgentTurn, results: readonly ActionResult[]): void {
    for (const result of results) {
      const action = turn.actions.find((a) => a.id === result.id)!;
      this.options.log.step("tool_result", {
        tool_req: { tool_name: action.tool, args: action.args, id: action.id },
        result: {
          status: result.status,
          message: result.message,
          ...(result.output !== undefined ? { output: result.output } : {}),
          ...(result.point ? { point: result.point } : {}),
        },
        truncated: false,
        output_artifact_path: null,
      });
    }
  }
}

function addUsage(out: LoopOutcome, turn: AgentTurn): void {
  const u = turn.usage;
  if (u.inputTokens !== null || u.outputTokens !== null) out.usage.reported = true;
  out.usage.inputTokens += u.inputTokens ?? 0;
  out.usage.outputTokens += u.outputTokens ?? 0;
  out.usage.reasoningTokens += u.reasoningTokens ?? 0;
  out.usage.cachedTokens += u.cachedTokens ?? 0;
  out.timing.modelMs += turn.timing.modelMs;
  if (turn.timing.ttftMs != null) out.timing.ttftMs.push(turn.timing.ttftMs);
}
