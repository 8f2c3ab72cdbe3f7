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
