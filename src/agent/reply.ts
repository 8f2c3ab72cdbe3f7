/**
 * One model reply, reduced to what umpire reads, whether it came as one JSON body or as a
 * stream (stream.ts). Reasoning is read from `reasoning` or `reasoning_content`: H's pages
 * and servers use both names.
 */
import type { RawReply, RawToolCall } from "./parse.js";

export interface ModelReply extends RawReply {
  reasoning: string | null;
  finishReason: string | null;
  /** The server's `usage` object as sent (read by usage.ts), or undefined. */
  usage: unknown;
  /** The whole response, for protocols that read their own items (Responses API output, Messages content). */
  raw?: unknown;
}

/** The first string among `values` that is not empty. */
export function firstText(...values: unknown[]): string | null {
  for (const value of values) if (typeof value === "string" && value !== "") return value;
  return null;
}

/** Reads a non-streamed chat completion body. Tolerates missing pieces; never throws. */
export function replyFromCompletion(completion: unknown): ModelReply {
  const body = (completion ?? {}) as Record<string, unknown>;
  const choices = Array.isArray(body.choices) ? body.choices : [];
  const choice = (choices[0] ?? {}) as Record<string, unknown>;
  const message = (choice.message ?? {}) as Record<string, unknown>;
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  return {
    content: typeof message.content === "string" ? message.content : null,
    reasoning: firstText(message.reasoning, message.reasoning_content),
    refusal: firstText(message.refusal),
    toolCalls: calls.map(toolCallFrom),
    finishReason: typeof choice.finish_reason === "string" ? choice.finish_reason : null,
    usage: body.usage,
  };
}

function toolCallFrom(raw: unknown): RawToolCall {
  const call = (raw ?? {}) as Record<string, unknown>;
  const fn = (call.function ?? {}) as Record<string, unknown>;
  const args = fn.arguments;
  return {
    id: firstText(call.id),
    name: firstText(fn.name),
    // Some servers send arguments as an object rather than a JSON string.
    arguments: typeof args === "string" ? args : args === undefined || args === null ? "" : JSON.stringify(args),
  };
}

/**
 * Reads a Responses API body (`POST /responses`). The computer and function calls stay in `raw`
 * for the protocol; the finish reason is told in Chat Completions words, so the session's cut-off
 * and content-filter rules hold: `incomplete` for `max_output_tokens` is `length`.
 */
export function replyFromResponse(response: unknown): ModelReply {
  const body = (response ?? {}) as Record<string, unknown>;
  const output = Array.isArray(body.output) ? (body.output as Record<string, unknown>[]) : [];
  const texts: string[] = [];
  const refusals: string[] = [];
  const reasoning: string[] = [];
  for (const item of output) {
    if (item?.type === "message" && Array.isArray(item.content)) {
      for (const part of item.content as Record<string, unknown>[]) {
        if (part?.type === "output_text" && typeof part.text === "string") texts.push(part.text);
        if (part?.type === "refusal" && typeof part.refusal === "string") refusals.push(part.refusal);
      }
    }
    if (item?.type === "reasoning" && Array.isArray(item.summary)) {
      for (const part of item.summary as Record<string, unknown>[])
        if (typeof part?.text === "string") reasoning.push(part.text);
    }
  }
  const incomplete = (body.incomplete_details as { reason?: unknown } | null | undefined)?.reason;
  const finishReason =
    body.status === "incomplete"
      ? incomplete === "max_output_tokens"
        ? "length"
        : incomplete === "content_filter"
          ? "content_filter"
          : String(incomplete ?? "incomplete")
      : typeof body.status === "string"
        ? body.status
        : null;
  return {
    content: texts.join("\n") || null,
    reasoning: reasoning.join("\n") || null,
    refusal: refusals.join("\n") || null,
    toolCalls: [],
    finishReason,
    usage: body.usage,
    raw: body,
  };
}

/** Anthropic's stop reasons in Chat Completions words (the session's cut-off and refusal rules). */
const MESSAGE_STOP_WORDS: Record<string, string> = {
  end_turn: "stop",
  stop_sequence: "stop",
  tool_use: "tool_calls",
  max_tokens: "length",
  model_context_window_exceeded: "length",
  refusal: "content_filter",
};

/** Reads a Messages API body: text and thinking blocks; tool_use blocks stay in `raw` for the protocol. */
export function replyFromMessage(message: unknown): ModelReply {
  const body = (message ?? {}) as Record<string, unknown>;
  const content = Array.isArray(body.content) ? (body.content as Record<string, unknown>[]) : [];
  const text = content.filter((b) => b?.type === "text").map((b) => String(b.text ?? ""));
  const thinking = content.filter((b) => b?.type === "thinking").map((b) => String(b.thinking ?? ""));
  const stop = typeof body.stop_reason === "string" ? body.stop_reason : null;
  return {
    content: text.join("\n") || null,
    reasoning: thinking.join("\n") || null,
    refusal: stop === "refusal" ? text.join("\n") || "the model refused (stop_reason: refusal)" : null,
    toolCalls: [],
    finishReason: stop === null ? null : (MESSAGE_STOP_WORDS[stop] ?? stop),
    usage: body.usage,
    raw: body,
  };
}

/** Gemini's finish reasons in Chat Completions words: a cut-off is `length`, a safety stop `content_filter`. */
const GEMINI_STOP_WORDS: Record<string, string> = {
  STOP: "stop",
  MAX_TOKENS: "length",
  SAFETY: "content_filter",
  RECITATION: "content_filter",
  BLOCKLIST: "content_filter",
  PROHIBITED_CONTENT: "content_filter",
  SPII: "content_filter",
  IMAGE_SAFETY: "content_filter",
  IMAGE_PROHIBITED_CONTENT: "content_filter",
};

/**
 * Reads a Gemini `generateContent` body: the first candidate's text parts (`thought: true` ones are
 * the reasoning); its functionCall parts stay in `raw` for the protocol. A prompt blocked before any
 * candidate (`promptFeedback.blockReason`) is a refusal.
 */
export function replyFromGenerateContent(response: unknown): ModelReply {
  const body = (response ?? {}) as Record<string, unknown>;
  const candidates = Array.isArray(body.candidates) ? (body.candidates as Record<string, unknown>[]) : [];
  const candidate = candidates[0] ?? {};
  const content = (candidate.content ?? {}) as { parts?: unknown };
  const parts = Array.isArray(content.parts) ? (content.parts as Record<string, unknown>[]) : [];
  const text = (thought: boolean) =>
    parts
      .filter((p) => typeof p?.text === "string" && (p.thought === true) === thought)
      .map((p) => String(p.text))
      .join("\n") || null;
  const blocked = (body.promptFeedback as { blockReason?: unknown } | undefined)?.blockReason;
  const finish = typeof candidate.finishReason === "string" ? candidate.finishReason : null;
  const finishReason =
    blocked !== undefined && candidates.length === 0
      ? "content_filter"
      : finish === null
        ? null
        : (GEMINI_STOP_WORDS[finish] ?? finish.toLowerCase());
  const refusal =
    finishReason === "content_filter"
      ? `the model stopped for ${String(blocked ?? finish)}${candidate.finishMessage ? `: ${String(candidate.finishMessage)}` : ""}`
      : null;
  return {
    content: text(false),
    reasoning: text(true),
    refusal,
    toolCalls: [],
    finishReason,
    usage: body.usageMetadata,
    raw: body,
  };
}
