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
