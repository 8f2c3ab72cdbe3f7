/**
 * What reading a model reply yields, whatever the protocol: validated actions, or classified
 * invalid proposals, plus the assistant message that goes back into history (only the parsed
 * output, never the reasoning and never raw text that failed to parse). Each protocol's own
 * reader lives in its module (`protocols/`); the shared pieces are here.
 *
 * Rules, in every Holo protocol:
 * - `<think>` text in `content` (reasoning leaking out of its channel) rejects the whole reply:
 *   what was inside is kept for the log as reasoning and stripped from history.
 * - Actions run in order, so once a call is invalid every later call of the same reply is
 *   `skipped` (reported back, not executed): a `write` must not run when the `click` that was
 *   to focus the field was rejected.
 * - A refusal (`message.refusal`, or refusal text with no action) is `refused`, not invalid.
 * - Empty function-call arguments ("") are read as `{}`: servers send that for tools without
 *   parameters (`go_back`). This and nothing else is coerced; see action-validation.ts for
 *   why `x`/`y` lists are rejected.
 */
import type { ProposedAction, ToolName } from "../toolbox/tools.js";
import type { InvalidKind } from "./action-validation.js";
import type { TurnOutcome } from "../vocabulary.js";
import type { ChatMessage } from "./history.js";

/** One tool call as it arrived (non-streamed or reassembled from stream fragments). */
export interface RawToolCall {
  id: string | null;
  name: string | null;
  arguments: string;
}

/** The parts of a model reply the parser reads. */
export interface RawReply {
  content: string | null;
  refusal: string | null;
  toolCalls: RawToolCall[];
}

export interface InvalidProposal {
  id: string;
  tool?: string;
  kind: InvalidKind;
  message: string;
}

/** One call position in the reply, in order: what `addResults` answers. */
export interface CallSlot {
  id: string;
  tool: string;
  valid: boolean;
  /** True when the assistant message carries this call (tools mode), so its result is a `tool` message. */
  inAssistantMessage: boolean;
}

export interface ParsedReply {
  /** A reply that arrived whole: the other outcomes (truncated, error) are the session's. */
  outcome: Exclude<TurnOutcome, "truncated" | "error">;
  actions: ProposedAction[];
  invalid: InvalidProposal[];
  slots: CallSlot[];
  note: string | null;
  thought: string | null;
  /** Reasoning found inside `content` (`<think>`), kept for the log only. */
  leakedReasoning: string | null;
  /** The message to append to history, or null when nothing parseable was said. */
  assistant: ChatMessage | null;
}

export interface ParseContext {
  trialId: string;
  /** 1-based turn number, part of umpire-assigned action ids. */
  turn: number;
  offered: readonly ToolName[];
}

/** umpire's stable action id: `<trialId>-t<turn>-a<index>` (both 1-based). */
export function actionId(trialId: string, turn: number, index: number): string {
  return `${trialId}-t${turn}-a${index}`;
}

const REFUSAL_OPENING =
  /^\s*(?:(?:i'?m|i am)\s+(?:sorry|afraid)|sorry|i apologi[sz]e|unfortunately)\b[\s\S]*?\b(?:can(?:no|')t|unable|won'?t|will not|not able)\b/i;
const REFUSAL_DIRECT =
  /^\s*i\s+(?:can(?:no|')t|won'?t|will not|must decline|(?:am|'m)\s+(?:unable|not able|not going)\s+to)\s+(?:help|assist|comply|do|complete|perform|continue|carry|proceed|fulfil)/i;

/** True for text that declines the task ("I'm sorry, but I can't help with that."). */
export function looksLikeRefusal(text: string): boolean {
  return REFUSAL_OPENING.test(text) || REFUSAL_DIRECT.test(text);
}

/** Splits `<think>...</think>` (or a bare `...</think>` prefix, or an unclosed `<think>...`) off content. */
export function splitThink(content: string): { reasoning: string | null; rest: string } {
  const close = content.search(/<\/think>/i);
  if (close >= 0) {
    const reasoning = content
      .slice(0, close)
      .replace(/^\s*<think>/i, "")
      .trim();
    return { reasoning, rest: content.slice(close + "</think>".length).trim() };
  }
  const open = content.search(/<think>/i);
  if (open >= 0)
    return { reasoning: content.slice(open + "<think>".length).trim(), rest: content.slice(0, open).trim() };
  return { reasoning: null, rest: content };
}

/** A refusal: nothing to run; the text goes back as the assistant message. */
export function refused(text: string, leaked: string | null): ParsedReply {
  return {
    outcome: "refused",
    actions: [],
    invalid: [],
    slots: [],
    note: null,
    thought: null,
    leakedReasoning: leaked,
    assistant: { role: "assistant", content: text },
  };
}
