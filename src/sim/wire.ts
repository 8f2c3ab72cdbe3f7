/**
 * The OpenAI chat-completions wire format of an assistant output: the JSON body of a
 * non-streamed response and the chunk sequence of a streamed one (`data: {chunk}\n\n` ...
 * `data: [DONE]\n\n`), as api.openai.com and vLLM send them.
 */
import { randomBytes } from "node:crypto";
import type { AssistantOutput } from "./output.js";

/** The OpenAI wire shape of `usage` (snake_case), as the reference model sends it; umpire reads it into `ReportedUsage`. */
export interface WireUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

export function makeUsage(promptTokens: number, completionTokens: number, reasoningTokens: number): WireUsage {
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
    prompt_tokens_details: { cached_tokens: 0 },
    completion_tokens_details: { reasoning_tokens: reasoningTokens },
  };
}

export interface CompletionMeta {
  id: string;
  created: number;
  model: string;
}

export function completionMeta(model: string): CompletionMeta {
  return { id: `chatcmpl-${randomBytes(12).toString("hex")}`, created: Math.floor(Date.now() / 1000), model };
}

const FINGERPRINT = "umpire-reference";

/** The body of a non-streamed response. Reasoning is sent as both `reasoning` and `reasoning_content`. */
export function completionBody(
  output: AssistantOutput,
  meta: CompletionMeta,
  usage: WireUsage,
): Record<string, unknown> {
  const message: Record<string, unknown> = {
    role: "assistant",
    content: output.content,
    refusal: output.refusal,
    reasoning: output.reasoning,
    reasoning_content: output.reasoning,
  };
  if (output.toolCalls.length > 0) {
    message.tool_calls = output.toolCalls.map((c) => ({
      id: c.id,
      type: "function",
      function: { name: c.name, arguments: c.arguments },
    }));
  }
  return {
    id: meta.id,
    object: "chat.completion",
    created: meta.created,
    model: meta.model,
    system_fingerprint: FINGERPRINT,
    choices: [{ index: 0, message, logprobs: null, finish_reason: output.finishReason }],
    usage,
  };
}

/** Size of each streamed text fragment, in characters. */
const PIECE = 24;

/**
 * The chunks of a streamed response, in order: the role, reasoning deltas, content (or refusal)
 * deltas, tool-call fragments (the first carries index, id, type and name; the rest carry
 * argument pieces), the finish reason, and a usage chunk when `include_usage` was asked for.
 */
export function completionChunks(
  output: AssistantOutput,
  meta: CompletionMeta,
  usage: WireUsage,
  includeUsage: boolean,
): Record<string, unknown>[] {
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): Record<string, unknown> => ({
    id: meta.id,
    object: "chat.completion.chunk",
    created: meta.created,
    model: meta.model,
    system_fingerprint: FINGERPRINT,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    ...(includeUsage ? { usage: null } : {}),
  });
  const chunks = [chunk({ role: "assistant", content: "", refusal: null })];
  for (const piece of pieces(output.reasoning)) chunks.push(chunk({ reasoning: piece }));
  if (output.refusal !== null) {
    for (const piece of pieces(output.refusal)) chunks.push(chunk({ refusal: piece }));
  }
  if (output.content) {
    for (const piece of pieces(output.content)) chunks.push(chunk({ content: piece }));
  }
  output.toolCalls.forEach((call, index) => {
    chunks.push(
      chunk({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.name, arguments: "" } }] }),
    );
    for (const piece of pieces(call.arguments))
      chunks.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  chunks.push(chunk({}, output.finishReason));
  if (includeUsage) {
    chunks.push({
      id: meta.id,
      object: "chat.completion.chunk",
      created: meta.created,
      model: meta.model,
      system_fingerprint: FINGERPRINT,
      choices: [],
      usage,
    });
  }
  return chunks;
}

export function sseEvent(data: unknown): string {
  return `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`;
}

export const SSE_DONE = "data: [DONE]\n\n";

function pieces(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += PIECE) out.push(text.slice(i, i + PIECE));
  return out;
}

/** An OpenAI-style error body. */
export function errorBody(
  message: string,
  type: string,
  code: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { error: { message, type, param: null, code, ...extra } };
}
