/**
 * One trial's conversation with the model (ARCHITECTURE.md, "Agent (model side) contract").
 *
 * Per turn: the protocol (`protocols/`, chosen by `config.mode`) adds the observation and keeps
 * the image budget, the session calls the model, the protocol reads the reply (reasoning from its
 * own channel, never put back into history) and keeps only the parsed output. After execution
 * `addResults()` answers every call of the turn in order, in the protocol's layout, merging the
 * session's own rejections of invalid proposals with the executor's results.
 *
 * Outcomes: `actions` (at least one valid action), `invalid` (none), `refused`, `truncated`
 * (`finish_reason: "length"`, or a stream that ended without a finish reason: a cut-off, never
 * "done"), `error` (the endpoint failed after retries, or a stream broke off). Consecutive
 * invalid turns are counted by the caller from `Turn.outcome`.
 */
import { UmpireError } from "../errors.js";
import type { ProposedAction, ToolName } from "../toolbox/tools.js";
import type { InvalidKind } from "./action-validation.js";
import { ModelClient, type AttemptFailure } from "./client.js";
import type { FetchFunction } from "./http-fetch.js";
import type { AgentConfig } from "./config.js";
import { resultText, type ChatMessage, type Observation, type ToolResult } from "./history.js";
import type { CallSlot, InvalidProposal, RawToolCall } from "./parse.js";
import type { ProtocolConversation } from "./protocols/protocol.js";
import { PROTOCOLS } from "./protocols/registry.js";
import type { FailureKind } from "./retry.js";
import { offeredTools } from "./step-schema.js";
import { readUsage } from "./usage.js";
import type { ReportedUsage, TurnOutcome } from "../vocabulary.js";

export interface TurnError {
  /** The stop reason the runner records. */
  code: "model_error";
  kind: FailureKind;
  message: string;
  status?: number;
}

export interface Turn {
  /** 1-based turn number. */
  turn: number;
  outcome: TurnOutcome;
  actions: ProposedAction[];
  invalid: Array<{ id: string; tool?: string; kind: InvalidKind; message: string }>;
  /** Structured: the step's note. Tools: the assistant text (where the model keeps facts). */
  note: string | null;
  /** Structured: the step's thought. Tools: null (planning lives in reasoning). */
  thought: string | null;
  /** `content` exactly as received (for the log), or what arrived before a failure. */
  content: string | null;
  reasoning: string | null;
  /** Tool calls exactly as received (tools mode). */
  toolCalls: RawToolCall[];
  usage: ReportedUsage;
  timing: { modelMs: number; ttftMs?: number; retries: number };
  /** Failed attempts, retried or final, for the log. */
  failures: AttemptFailure[];
  finishReason: string | null;
  error?: TurnError;
}

export interface AgentSessionOptions {
  config: AgentConfig;
  /** The API key, in memory only; required when `config.apiKeyEnv` is set. */
  apiKey?: string;
  instruction: string;
  /** The task's allowed tools. */
  tools: readonly ToolName[];
  trialId: string;
  fetch?: FetchFunction;
  /** Base URL of the endpoint; required for `embedded` endpoints (the runner started it). */
  baseUrl?: string;
  /** Jitter source for retry backoff (tests). */
  random?: () => number;
}

export interface AgentSession {
  readonly config: AgentConfig;
  /**
   * Runs one turn. Rejects only when `signal` aborts (with the signal's reason); every model
   * or endpoint failure is a `Turn` with outcome `error`.
   */
  nextTurn(observation: Observation, signal?: AbortSignal): Promise<Turn>;
  /** Answers the last turn's calls, in call order (missing valid ones are reported as skipped). */
  addResults(results: ToolResult[]): void;
  /** Appends a plain user message (e.g. `<reflection>...</reflection>`). */
  addUserText(text: string): void;
  /** A copy of the conversation as it will be sent. */
  messages(): ChatMessage[];
  /** Estimated input tokens of the next request with `observation` (before any usage is reported). */
  estimateInputTokens(observation: Observation): number;
}

/** Creates a session. Throws UmpireError `config` when the endpoint or key is missing. */
export function createAgentSession(options: AgentSessionOptions): AgentSession {
  return new Session(options);
}

interface PendingTurn {
  slots: CallSlot[];
  invalid: Map<string, InvalidProposal>;
}

class Session implements AgentSession {
  readonly config: AgentConfig;
  private readonly conversation: ProtocolConversation;
  private readonly client: ModelClient;
  private readonly offered: ToolName[];
  private turnNumber = 0;
  private pending: PendingTurn | null = null;
  private inFlight = false;

  constructor(readonly options: AgentSessionOptions) {
    const { config } = options;
    this.config = config;
    // A named agent may narrow the task's tools; it can never widen them.
    const allowed = config.tools ? options.tools.filter((t) => config.tools!.includes(t)) : options.tools;
    this.offered = offeredTools(allowed);
    if (this.offered.length === 0) {
      throw new UmpireError(
        "config",
        config.tools
          ? `${config.label}: none of its tools (${config.tools.join(", ")}) is one the task allows (${options.tools.join(", ")})`
          : "the task offers no tools the model could call",
        config.tools
          ? `add one of the task's tools to agents.${config.name ?? config.label}.tools in the config file`
          : undefined,
      );
    }
    const baseUrl = options.baseUrl ?? (config.endpoint.kind === "url" ? config.endpoint.baseUrl : undefined);
    if (baseUrl === undefined) {
      throw new UmpireError(
        "config",
        `${config.label}: the embedded endpoint needs its base URL`,
        "Start the reference model and pass its baseUrl to createAgentSession.",
      );
    }
    if (config.apiKeyEnv !== null && !options.apiKey) {
      throw new UmpireError(
        "config",
        `${config.label}: no API key given (expected from ${config.apiKeyEnv})`,
        `Export ${config.apiKeyEnv}=<your key>.`,
      );
    }
    this.conversation = PROTOCOLS[config.mode].open({
      config,
      instruction: options.instruction,
      offered: this.offered,
      trialId: options.trialId,
    });
    this.client = new ModelClient({
      baseUrl,
      api: PROTOCOLS[config.mode].api,
      ...(options.apiKey !== undefined && config.apiKeyEnv !== null && { apiKey: options.apiKey }),
      requestTimeoutMs: config.requestTimeoutMs,
      retry: config.retry,
      ...(options.fetch && { fetch: options.fetch }),
      ...(options.random && { random: options.random }),
    });
  }

  async nextTurn(observation: Observation, signal?: AbortSignal): Promise<Turn> {
    if (this.inFlight) throw new Error("nextTurn: the previous turn has not finished");
    this.inFlight = true;
    try {
      return await this.runTurn(observation, signal);
    } finally {
      this.inFlight = false;
    }
  }

  private async runTurn(observation: Observation, signal?: AbortSignal): Promise<Turn> {
    this.flushPending();
    const turn = ++this.turnNumber;
    this.conversation.observe(observation);
    const call = await this.client.complete(this.conversation.request(), signal);
    const reply = call.ok ? call.reply : call.partial;
    const base: Turn = {
      turn,
      outcome: "error",
      actions: [],
      invalid: [],
      note: null,
      thought: null,
      content: reply?.content ?? null,
      reasoning: reply?.reasoning ?? null,
      toolCalls: reply?.toolCalls ?? [],
      usage: readUsage(reply?.usage),
      timing: { modelMs: call.modelMs, ...(call.ttftMs !== null && { ttftMs: call.ttftMs }), retries: call.retries },
      failures: call.failures,
      finishReason: reply?.finishReason ?? null,
    };
    if (!call.ok) {
      const { failure } = call;
      return {
        ...base,
        error: {
          code: "model_error",
          kind: failure.kind,
          message: failure.message,
          ...(failure.status !== undefined && { status: failure.status }),
        },
      };
    }
    // A cut-off is never "done": nothing of it is parsed into actions or added to history.
    // A stream that ended without any finish reason was cut off too; a plain JSON body
    // without one is accepted (some servers omit it).
    const cutOff = call.reply.finishReason === "length" || (this.config.stream && call.reply.finishReason === null);
    if (cutOff) return { ...base, outcome: "truncated" };

    const parsed = this.conversation.read(call.reply, turn);
    const reasoning =
      [base.reasoning, parsed.leakedReasoning].filter((r): r is string => r !== null).join("\n") || null;
    const outcome =
      call.reply.finishReason === "content_filter" && parsed.outcome !== "actions" ? "refused" : parsed.outcome;
    if (outcome === "actions" || outcome === "invalid") {
      this.pending = { slots: parsed.slots, invalid: new Map(parsed.invalid.map((p) => [p.id, p])) };
    }
    return {
      ...base,
      outcome,
      actions: parsed.actions,
      invalid: parsed.invalid,
      note: parsed.note,
      thought: parsed.thought,
      reasoning,
    };
  }

  addResults(results: ToolResult[]): void {
    const pending = this.pending;
    if (!pending) throw new Error("addResults: no turn is waiting for results");
    const byId = new Map(results.map((r) => [r.id, r]));
    const known = new Set(pending.slots.map((s) => s.id));
    const stray = results.filter((r) => !known.has(r.id)).map((r) => r.id);
    if (stray.length > 0) throw new Error(`addResults: no call with id ${stray.join(", ")} in turn ${this.turnNumber}`);
    this.answer(pending, byId);
  }

  addUserText(text: string): void {
    this.flushPending();
    this.conversation.addUserText(text);
  }

  /** Input tokens the next request would take with `observation` added (before any usage is reported). */
  estimateInputTokens(observation: Observation): number {
    return this.conversation.estimateInputTokens(observation);
  }

  messages(): ChatMessage[] {
    return this.conversation.messages();
  }

  /** Answers a turn the caller did not answer (every valid call reported as not run). */
  private flushPending(): void {
    if (this.pending) this.answer(this.pending, new Map());
  }

  private answer(pending: PendingTurn, results: Map<string, ToolResult>): void {
    this.pending = null;
    for (const slot of pending.slots) {
      let text: string;
      const rejection = pending.invalid.get(slot.id);
      if (rejection) {
        text = resultText({ status: rejection.kind === "skipped" ? "skipped" : "rejected", output: rejection.message });
      } else {
        text = resultText(results.get(slot.id) ?? { status: "skipped", output: "the action was not run" });
      }
      this.conversation.answer(slot, text);
    }
  }
}
