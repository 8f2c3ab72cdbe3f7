/**
 * Holo tools: native function calling (H's "Agent loop" page). The `tools` array from the task's
 * tools with `tool_choice: "required"`, no `structured_outputs` (H: never combine them), and NO
 * tool-format example in the prompt: the model renders calls in its own native format from `tools`
 * alone, and a conflicting example degrades quality. Several calls in one reply run in order, each
 * answered by a `tool` message with its `tool_call_id`; the assistant text is where the model keeps
 * facts, since reasoning and old screenshots are not kept.
 */
import { messageOf } from "../../errors.js";
import type { ProposedAction, ToolName } from "../../toolbox/tools.js";
import { validateToolCall } from "../action-validation.js";
import type { InvalidKind } from "../action-validation.js";
import { userTextMessage, type AssistantToolCall, type ChatMessage } from "../history.js";
import {
  actionId,
  looksLikeRefusal,
  refused,
  splitThink,
  type CallSlot,
  type InvalidProposal,
  type ParseContext,
  type ParsedReply,
  type RawReply,
} from "../parse.js";
import { buildSystemPrompt } from "../prompt.js";
import { buildFunctionTools } from "../step-schema.js";
import { HoloChatConversation } from "./holo-chat.js";
import type { Protocol, ProtocolSetup } from "./protocol.js";

/** The reply-format paragraph of the system prompt (no schema, no tool-format example, no JSON). */
export const TOOLS_REPLY_FORMAT = [
  "Your reasoning and old screenshots are not kept between turns. Write any fact you will need later " +
    "(ids, URLs, values) in the text of your reply, next to your tool call.",
  "You may call several tools in one reply; they run in the order given, and each result comes back to you.",
] as const;

/** The system prompt of a function-calling trial. */
export function toolsSystemPrompt(input: {
  instruction: string;
  tools: readonly ToolName[];
  imageBudget?: number;
  policy?: string;
}): string {
  return buildSystemPrompt({ ...input, replyFormat: TOOLS_REPLY_FORMAT });
}

/**
 * One result: a `tool` message with the call's id; a slot the assistant message does not carry
 * (a reply with text and no call) has no id to answer, so it is a plain user message.
 */
function resultMessage(slot: CallSlot, text: string): ChatMessage {
  return slot.inAssistantMessage ? { role: "tool", tool_call_id: slot.id, content: text } : userTextMessage(text);
}

export const holoTools: Protocol = {
  name: "tools",
  family: "Holo",
  summary: "Holo function calling: the task's tools as `tools`, several calls per reply",
  api: "chat-completions",
  knobs: { imageBudget: true, reasoningEffort: true },
  open(setup: ProtocolSetup) {
    const { config } = setup;
    const system = toolsSystemPrompt({
      instruction: setup.instruction,
      tools: setup.offered,
      ...(config.imageBudget !== undefined && { imageBudget: config.imageBudget }),
      ...(config.policy !== undefined && { policy: config.policy }),
    });
    return new HoloChatConversation(setup, system, {
      outputFields: { tools: buildFunctionTools(setup.offered), tool_choice: "required" },
      parse: parseToolCalls,
      resultMessage,
    });
  },
};

/** Reads one function-calling reply. Never throws on bad model output. */
export function parseToolCalls(reply: RawReply, ctx: ParseContext): ParsedReply {
  const { reasoning: leaked, rest } = splitThink(reply.content ?? "");
  const text = rest.trim() === "" ? null : rest.trim();
  if (reply.refusal) return refused(reply.refusal, leaked);
  if (reply.toolCalls.length === 0) {
    const id = actionId(ctx.trialId, ctx.turn, 1);
    if (text !== null && leaked === null && looksLikeRefusal(text)) return refused(text, null);
    const [kind, message]: [InvalidKind, string] =
      leaked !== null
        ? ["think_leak", "your reply held <think> reasoning in its text and no tool call; call one of the tools"]
        : text === null
          ? ["empty_output", "your reply was empty; call one of the tools"]
          : ["no_tool_call", "your reply contained no tool call; every reply must call at least one of the tools"];
    return {
      outcome: "invalid",
      actions: [],
      invalid: [{ id, kind, message }],
      slots: [{ id, tool: "none", valid: false, inAssistantMessage: false }],
      note: text,
      thought: null,
      leakedReasoning: leaked,
      assistant: text === null ? null : { role: "assistant", content: text },
    };
  }

  const actions: ProposedAction[] = [];
  const invalid: InvalidProposal[] = [];
  const slots: CallSlot[] = [];
  const rebuilt: AssistantToolCall[] = [];
  const usedIds = new Set<string>();
  let firstRejected: string | null = null;

  reply.toolCalls.forEach((call, index) => {
    const id = call.id && !usedIds.has(call.id) ? call.id : actionId(ctx.trialId, ctx.turn, index + 1);
    usedIds.add(id);
    const tool = call.name ?? "";
    let args: unknown;
    let argsJson = call.arguments;
    let result: ReturnType<typeof validateToolCall>;
    try {
      args = call.arguments.trim() === "" ? {} : JSON.parse(call.arguments);
      argsJson = JSON.stringify(args);
      result = validateToolCall(id, call.name, args, ctx.offered);
    } catch (error) {
      result = {
        ok: false,
        kind: "invalid_json",
        message: `${tool || "call"}: the arguments are not valid JSON (${messageOf(error)})`,
      };
    }
    if (result.ok && leaked !== null) {
      result = {
        ok: false,
        kind: "think_leak",
        message: "reasoning (<think>...</think>) appeared in the reply text; no call of this reply was run",
      };
    }
    if (result.ok && firstRejected !== null) {
      result = {
        ok: false,
        kind: "skipped",
        message: `not run: call ${firstRejected} before it in the same reply was rejected, and calls run in order`,
      };
    }
    if (result.ok) {
      actions.push(result.action);
      argsJson = JSON.stringify(result.action.args);
    } else {
      firstRejected ??= id;
      invalid.push({ id, ...(tool !== "" && { tool }), kind: result.kind, message: result.message });
    }
    slots.push({ id, tool: tool || "unknown", valid: result.ok, inAssistantMessage: true });
    rebuilt.push({ id, type: "function", function: { name: tool, arguments: argsJson } });
  });

  return {
    outcome: actions.length > 0 ? "actions" : "invalid",
    actions,
    invalid,
    slots,
    note: text,
    thought: null,
    leakedReasoning: leaked,
    assistant: { role: "assistant", content: text, tool_calls: rebuilt },
  };
}
