/**
 * Holo tools: native function calling (H's "Agent loop" page). The `tools` array from the task's
 * tools with `tool_choice: "required"`, no `structured_outputs` (H: never combine them), and NO
 * tool-format example in the prompt: the model renders calls in its own native format from `tools`
 * alone, and a conflicting example degrades quality. Several calls in one reply run in order, each
 * answered by a `tool` message with its `tool_call_id`; the assistant text is where the model keeps
 * facts, since reasoning and old screenshots are not kept.
 */
import { validateToolCall, type InvalidKind } from "../action-validation.js";
import {
  actionId,
  looksLikeRefusal,
  refused,
  splitThink,
  type ParseContext,
  type ParsedReply,
  type RawReply,
} from "../parse.js";
import { buildSystemPrompt } from "../prompt.js";
import { buildFunctionTools } from "../step-schema.js";
import { toolResultMessage } from "./chat-conversation.js";
import { noCallReply, readFunctionCalls } from "./function-calls.js";
import { openHoloConversation, type HoloPromptInput } from "./holo-chat.js";
import type { Protocol, ProtocolSetup } from "./protocol.js";
import { EVERY_TOOL } from "./every-tool.js";

/** The reply-format paragraph of the system prompt (no schema, no tool-format example, no JSON). */
export const TOOLS_REPLY_FORMAT = [
  "Your reasoning and old screenshots are not kept between turns. Write any fact you will need later " +
    "(ids, URLs, values) in the text of your reply, next to your tool call.",
  "You may call several tools in one reply; they run in the order given, and each result comes back to you.",
] as const;

/** The system prompt of a function-calling trial. */
export function toolsSystemPrompt(input: HoloPromptInput): string {
  return buildSystemPrompt({ ...input, replyFormat: TOOLS_REPLY_FORMAT });
}

export const holoTools: Protocol = {
  name: "tools",
  family: "Holo",
  summary: "Holo function calling: the task's tools as `tools`, several calls per reply",
  api: "chat-completions",
  knobs: { imageBudget: true, reasoningEffort: true },
  tools: EVERY_TOOL,
  open(setup: ProtocolSetup) {
    return openHoloConversation(setup, toolsSystemPrompt, {
      outputFields: { tools: buildFunctionTools(setup.offered), tool_choice: "required" },
      parse: parseToolCalls,
      resultMessage: toolResultMessage,
    });
  },
};

/** Reads one function-calling reply. Never throws on bad model output. */
export function parseToolCalls(reply: RawReply, ctx: ParseContext): ParsedReply {
  const { reasoning: leaked, rest } = splitThink(reply.content ?? "");
  const text = rest.trim() === "" ? null : rest.trim();
  if (reply.refusal) return refused(reply.refusal, leaked);
  if (reply.toolCalls.length === 0) {
    if (text !== null && leaked === null && looksLikeRefusal(text)) return refused(text, null);
    const [kind, message]: [InvalidKind, string] =
      leaked !== null
        ? ["think_leak", "your reply held <think> reasoning in its text and no tool call; call one of the tools"]
        : text === null
          ? ["empty_output", "your reply was empty; call one of the tools"]
          : ["no_tool_call", "your reply contained no tool call; every reply must call at least one of the tools"];
    return noCallReply(actionId(ctx.trialId, ctx.turn, 1), kind, message, text, leaked);
  }
  return readFunctionCalls(reply, text, leaked, {
    trialId: ctx.trialId,
    turn: ctx.turn,
    historyArgs: "validated",
    resolve: (name, args, id) => {
      const result = validateToolCall(id, name, args, ctx.offered);
      // Leaked reasoning rejects every call of the reply (each still answered, in order).
      return result.ok && leaked !== null
        ? {
            ok: false,
            kind: "think_leak",
            message: "reasoning (<think>...</think>) appeared in the reply text; no call of this reply was run",
          }
        : result;
    },
  });
}
