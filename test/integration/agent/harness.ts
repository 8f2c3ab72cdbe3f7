/**
 * Shared set-up for the agent integration tests: configs pointed at the recording server,
 * sessions, and small fake screenshots (the model side never decodes them).
 */
import { createAgentSession, type AgentSession } from "../../../src/agent/session.js";
import { resolveAgentConfigs, type AgentOptions } from "../../../src/agent/config.js";
import type { ToolName } from "../../../src/toolbox/tools.js";

export const INSTRUCTION = "Open match BB-042 and save a note notes/BB-042.md with both scores and the result.";
export const TOOLS: ToolName[] = ["click", "write", "press", "scroll", "answer"];

/** Retries without real waiting: 1-5 ms backoff. */
export const FAST_RETRY = { maxRetries: 3, baseDelayMs: 1, maxDelayMs: 5, retryAfterCapMs: 5_000 };

export function fakePng(n: number): Buffer {
  return Buffer.from(`fake-png-bytes-of-screenshot-${n}`);
}

export function b64(n: number): string {
  return fakePng(n).toString("base64");
}

export function session(
  baseUrl: string,
  options: AgentOptions & { trialId?: string; apiKey?: string; tools?: ToolName[] } = {},
): AgentSession {
  const { trialId = "trial-1", apiKey, tools = TOOLS, ...agent } = options;
  const [config] = resolveAgentConfigs({ model: "reference", env: {}, retry: FAST_RETRY, ...agent });
  return createAgentSession({
    config,
    instruction: INSTRUCTION,
    tools,
    trialId,
    baseUrl,
    ...(apiKey !== undefined && { apiKey }),
    random: () => 0.5,
  });
}
