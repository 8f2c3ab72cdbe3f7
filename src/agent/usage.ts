/**
 * Token usage as the server reported it. Only `prompt_tokens` / `completion_tokens` are
 * certain on H's endpoint; `completion_tokens_details.reasoning_tokens` and
 * `prompt_tokens_details.cached_tokens` are read when present. Anything missing or malformed
 * is `null` ("the server did not say"), never 0.
 */
import { UNKNOWN_USAGE, type ReportedUsage } from "../vocabulary.js";

/** Reads an OpenAI-style `usage` object; tolerates it being absent or partial. */
export function readUsage(usage: unknown): ReportedUsage {
  if (usage === null || typeof usage !== "object") return { ...UNKNOWN_USAGE };
  const u = usage as Record<string, unknown>;
  // Responses API (`input_tokens`, `output_tokens`, `*_tokens_details`) and Anthropic's Messages
  // API (`input_tokens` + cache reads and writes, `output_tokens`) name their fields otherwise.
  // Gemini's usageMetadata: the prompt count includes the cached part; thoughts are billed as output.
  if ("promptTokenCount" in u || "candidatesTokenCount" in u) {
    const candidates = count(u.candidatesTokenCount);
    const thoughts = count(u.thoughtsTokenCount);
    return {
      inputTokens: count(u.promptTokenCount),
      outputTokens: candidates === null ? null : candidates + (thoughts ?? 0),
      reasoningTokens: thoughts,
      cachedTokens: count(u.cachedContentTokenCount),
    };
  }
  if ("input_tokens" in u || "output_tokens" in u) {
    const cacheRead = count(u.cache_read_input_tokens);
    const cacheWrite = count(u.cache_creation_input_tokens);
    const input = count(u.input_tokens);
    const anthropic = cacheRead !== null || cacheWrite !== null;
    return {
      // Anthropic's input_tokens excludes the cached part; the total is what was read.
      inputTokens: anthropic && input !== null ? input + (cacheRead ?? 0) + (cacheWrite ?? 0) : input,
      outputTokens: count(u.output_tokens),
      reasoningTokens: count(field(u.output_tokens_details, "reasoning_tokens")),
      cachedTokens: anthropic ? cacheRead : count(field(u.input_tokens_details, "cached_tokens")),
    };
  }
  return {
    inputTokens: count(u.prompt_tokens),
    outputTokens: count(u.completion_tokens),
    reasoningTokens: count(field(u.completion_tokens_details, "reasoning_tokens")),
    cachedTokens: count(field(u.prompt_tokens_details, "cached_tokens")),
  };
}

function field(container: unknown, name: string): unknown {
  return container !== null && typeof container === "object" ? (container as Record<string, unknown>)[name] : undefined;
}

function count(value: unknown): number | null {
  return typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : null;
}
