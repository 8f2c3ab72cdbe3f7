/**
 * One trial's conversation with the model (ARCHITECTURE.md, "Agent (model side) contract").
 *
 * Per turn: push the `<observation>`, evict all but the agent's image budget of screenshots (3 by default), call the model,
 * read reasoning from its own channel (never put back into history), parse and validate, and
 * push only the parsed output as the assistant message. After execution `addResults()` answers
 * every call of the turn in order, in the mode's layout, merging the session's own rejections
 * of invalid proposals with the executor's results.
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
import {
  evictOldImages,
  observationMessage,
  resultMessage,
  resultText,
  userTextMessage,
  type ChatMessage,
  type Observation,
  type ToolResult,
} from "./history.js";
import { parseReply, type CallSlot, type InvalidProposal, type RawToolCall } from "./parse.js";
import { buildSystemPrompt } from "./prompt.js";
import { buildRequestBody } from "./request.js";
import type { FailureKind } from "./retry.js";
import {
  buildFunctionTools,
  buildStepSchema,
  offeredTools,
  type FunctionTool,
  type JsonSchema,
} from "./step-schema.js";
import { readUsage } from "./usage.js";
import type { ReportedUsage, TurnOutcome } from "../vocabulary.js";
import { FIELD_LIMIT, capDeep, capText } from "../safety/limits.js";

/** A generous per-screenshot allowance for the pre-send estimate (a 1280x800 image is ~1.3k tokens). */
const IMAGE_TOKEN_ESTIMATE = 2_000;

/**
 * The assistant message as it goes back to the model: a 10 MB note is not echoed whole on every
 * turn. Structured steps keep their JSON shape with each long field cut; text is cut as text.
 */
function capAssistant(message: ChatMessage): ChatMessage {
  const content = (message as { content?: unknown }).content;
  if (typeof content !== "string" || content.length <= FIELD_LIMIT) return message;
  let capped: string;
  try {
    capped = JSON.stringify(capDeep(JSON.parse(content), FIELD_LIMIT).value);
  } catch {
    capped = capText(content, FIELD_LIMIT);
  }
  return { ...message, content: capped } as ChatMessage;
}

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
  private readonly history: ChatMessage[];
  private readonly client: ModelClient;
  private readonly offered: ToolName[];
  private readonly stepSchema: JsonSchema | null;
  private readonly functionTools: FunctionTool[] | null;
  private turnNumber = 0;
  private pending: PendingTurn | null = null;
  private inFlight = false;

  constructor(private readonly options: AgentSessionOptions) {
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
    this.stepSchema = config.mode === "structured" ? buildStepSchema(this.offered) : null;
    this.functionTools = config.mode === "tools" ? buildFunctionTools(this.offered) : null;
    const system = buildSystemPrompt({
      instruction: options.instruction,
      tools: this.offered,
      mode: config.mode,
      ...(this.stepSchema && { stepSchema: this.stepSchema }),
      ...(config.imageBudget !== undefined && { imageBudget: config.imageBudget }),
      ...(config.policy !== undefined && { policy: config.policy }),
    });
    this.history = [{ role: "system", content: system }];
    this.client = new ModelClient({
      baseUrl,
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
    this.history.push(observationMessage(observation));
    evictOldImages(this.history, this.config.imageBudget);
    const body = buildRequestBody({
      config: this.config,
      messages: this.history,
      stepSchema: this.stepSchema,
      functionTools: this.functionTools,
      trialId: this.options.trialId,
    });
    const call = await this.client.complete(body, signal);
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

    const parsed = parseReply(call.reply, {
      mode: this.config.mode,
      trialId: this.options.trialId,
      turn,
      offered: this.offered,
    });
    if (parsed.assistant) this.history.push(capAssistant(parsed.assistant));
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
    this.history.push(userTextMessage(text));
  }

  /**
   * Input tokens the next request would take with `observation` added, estimated before sending
   * (about 4 characters a token for text, a fixed allowance per image): the loop uses it while the
   * server has not reported usage, so a 20 MB instruction is refused instead of sent.
   */
  estimateInputTokens(observation: Observation): number {
    let chars = 0;
    let images = 0;
    for (const message of [...this.history, observationMessage(observation)]) {
      const content = (message as { content?: unknown }).content;
      if (typeof content === "string") chars += content.length;
      else if (Array.isArray(content)) {
        for (const part of content as { type?: string; text?: string }[]) {
          if (part.type === "image_url") images += 1;
          else if (typeof part.text === "string") chars += part.text.length;
        }
      }
    }
    images = Math.min(images, 3); // all but the last 3 are evicted before sending
    return Math.ceil(chars / 4) + images * IMAGE_TOKEN_ESTIMATE;
  }

  messages(): ChatMessage[] {
    return structuredClone(this.history);
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
      if (this.config.mode === "structured" || slot.inAssistantMessage) {
        this.history.push(resultMessage(this.config.mode, slot.id, slot.tool, text));
      } else {
        // Tools mode without a call to answer: no tool_call_id exists, so a user message.
        this.history.push(userTextMessage(text));
      }
    }
  }
}
