/**
 * Which model family, and so which API, each lint rule belongs to (`umpire lint --rules`). A
 * `Record` over the rules: a rule added to LINT_RULES without its families does not compile.
 */
import type { ProtocolApi } from "../agent/protocols/protocol.js";
import type { LintRule } from "./lint.js";

/** The families whose documented requests the lint checks, each with the API its requests go to. */
export const LINT_FAMILY_API = {
  Holo: "chat-completions",
  Qwen: "chat-completions",
  "UI-TARS": "chat-completions",
  OpenAI: "responses",
  Anthropic: "messages",
  Gemini: "generate-content",
} as const satisfies Record<string, ProtocolApi>;
export type LintFamily = keyof typeof LINT_FAMILY_API;

const CHAT: readonly LintFamily[] = ["Holo", "Qwen", "UI-TARS"];

/** The families each rule is checked for. */
export const LINT_RULE_FAMILIES: Record<LintRule, readonly LintFamily[]> = {
  // The server lints every body; a body that is no JSON object breaks it whatever the API.
  "body-shape": Object.keys(LINT_FAMILY_API) as LintFamily[],
  "no-extra-body": CHAT,
  "enable-thinking": ["Holo"],
  "reasoning-effort": ["Holo"],
  "output-format": ["Holo"],
  "schema-in-both-places": ["Holo"],
  "no-structured-with-tools": CHAT,
  "tool-choice-required": ["Holo"],
  "no-tool-format-examples": ["Holo"],
  "tool-result-layout": ["Holo", "Qwen"],
  "tool-call-ids": ["Holo", "Qwen"],
  "image-budget": CHAT,
  "observation-wrapper": CHAT,
  "no-reasoning-in-history": CHAT,
  "qwen-computer-use": ["Qwen"],
  "qwen-screen": ["Qwen"],
  "ui-tars-prompt": ["UI-TARS"],
  "image-decodes": CHAT,
  "auth-header": CHAT,
  "openai-computer-tool": ["OpenAI"],
  "openai-preview-truncation": ["OpenAI"],
  "openai-call-outputs": ["OpenAI"],
  "openai-safety-acknowledged": ["OpenAI"],
  "anthropic-computer-tool": ["Anthropic"],
  "anthropic-computer-tool-version": ["Anthropic"],
  "anthropic-screenshot-scaling": ["Anthropic"],
  "anthropic-tool-results": ["Anthropic"],
  "anthropic-computer-toolset": ["Anthropic"],
  "anthropic-toolset-results": ["Anthropic"],
  "anthropic-alternation": ["Anthropic"],
  "anthropic-cache-breakpoints": ["Anthropic"],
  "gemini-computer-tool": ["Gemini"],
  "gemini-contents": ["Gemini"],
  "gemini-function-responses": ["Gemini"],
  "gemini-screenshot": ["Gemini"],
  "gemini-safety-acknowledged": ["Gemini"],
};

/** The APIs a rule is checked on, in LINT_FAMILY_API's order. */
export function ruleApis(rule: LintRule): ProtocolApi[] {
  return [...new Set(LINT_RULE_FAMILIES[rule].map((family) => LINT_FAMILY_API[family]))];
}
