/**
 * Holo structured: one JSON step `{note, thought, tool_call}` per reply, constrained by
 * `structured_outputs.json` and shown again under `<output_format>` in the system prompt (H's
 * "Structured outputs" page: the model was trained with the schema visible in both; dropping either
 * copy hurts reliability). No `tools`, no `tool_choice` (H: never combine them). One action per
 * reply, under umpire's stable id; each result goes back as a `user` message
 * `<tool_output tool="...">`. The note is the model's only memory between turns.
 */
import { messageOf } from "../../errors.js";
import { preview, validateToolCall, type InvalidKind } from "../action-validation.js";
import type { ChatMessage } from "../history.js";
import {
  actionId,
  looksLikeRefusal,
  refused,
  splitThink,
  type CallSlot,
  type ParseContext,
  type ParsedReply,
  type RawReply,
} from "../parse.js";
import { buildSystemPrompt, outputFormatBlock } from "../prompt.js";
import { buildStepSchema } from "../step-schema.js";
import { openHoloConversation, type HoloPromptInput } from "./holo-chat.js";
import type { Protocol, ProtocolSetup } from "./protocol.js";
import { EVERY_TOOL } from "./every-tool.js";

/** The reply-format paragraph of the system prompt. */
export const STRUCTURED_REPLY_FORMAT = [
  "Reply with one JSON object in the format below, with three fields:",
  "- note: your only memory between turns. Write in it anything from the current screen you will need " +
    "later (ids, URLs, values). null when there is nothing new.",
  "- thought: a one-line plan for this action.",
  "- tool_call: the one action to take now.",
] as const;

/** The system prompt of a structured trial: umpire's prompt, then the schema block. */
export function structuredSystemPrompt(input: HoloPromptInput): string {
  return buildSystemPrompt({
    ...input,
    replyFormat: STRUCTURED_REPLY_FORMAT,
    suffix: outputFormatBlock(buildStepSchema(input.tools)),
  });
}

/** `<tool_output tool="...">` around one result (H's structured layout). */
export function toolOutputMessage(tool: string, text: string): ChatMessage {
  return { role: "user", content: `<tool_output tool="${escapeAttribute(tool)}">\n${text}\n</tool_output>` };
}

function escapeAttribute(value: string): string {
  return value.replace(/[&"<>]/g, (c) => ({ "&": "&amp;", '"': "&quot;", "<": "&lt;", ">": "&gt;" })[c] as string);
}

export const holoStructured: Protocol = {
  name: "structured",
  family: "Holo",
  summary: "Holo structured outputs: one JSON step {note, thought, tool_call} per reply",
  api: "chat-completions",
  knobs: { imageBudget: true, reasoningEffort: true },
  tools: EVERY_TOOL,
  open(setup: ProtocolSetup) {
    return openHoloConversation(setup, structuredSystemPrompt, {
      outputFields: { structured_outputs: { json: buildStepSchema(setup.offered) } },
      parse: parseStructured,
      resultMessage: (slot: CallSlot, text: string) => toolOutputMessage(slot.tool, text),
    });
  },
};

/** Reads one structured reply. Never throws on bad model output. */
export function parseStructured(reply: RawReply, ctx: ParseContext): ParsedReply {
  const id = actionId(ctx.trialId, ctx.turn, 1);
  const content = reply.content ?? "";
  const { reasoning: leaked, rest } = splitThink(content);
  const base = { leakedReasoning: leaked, note: null, thought: null };
  const reject = (
    kind: InvalidKind,
    message: string,
    tool?: string,
    assistant: ChatMessage | null = null,
  ): ParsedReply => ({
    ...base,
    outcome: "invalid",
    actions: [],
    invalid: [{ id, ...(tool !== undefined && { tool }), kind, message }],
    slots: [{ id, tool: tool ?? "invalid", valid: false, inAssistantMessage: false }],
    assistant,
  });

  if (reply.refusal) return refused(reply.refusal, leaked);
  if (rest.trim() === "" && leaked === null) {
    return reject("empty_output", "your reply was empty; reply with one JSON object {note, thought, tool_call}");
  }
  let step: unknown;
  try {
    step = JSON.parse(rest);
  } catch (error) {
    if (leaked === null && looksLikeRefusal(rest)) return refused(rest, null);
    if (leaked !== null && rest.trim() === "") {
      return reject("think_leak", "your reply held only <think> reasoning and no JSON step");
    }
    return reject(
      "invalid_json",
      `your reply is not valid JSON (${messageOf(error)}); it began ${preview(rest.slice(0, 60))}. ` +
        "Reply with one JSON object {note, thought, tool_call} and nothing around it.",
    );
  }
  if (step === null || typeof step !== "object" || Array.isArray(step)) {
    return reject("wrong_type", `the reply must be a JSON object {note, thought, tool_call}, got ${preview(step)}`);
  }
  const record = step as Record<string, unknown>;
  const history: ChatMessage = { role: "assistant", content: JSON.stringify(record) };
  const toolCall = record.tool_call;
  const toolName =
    toolCall !== null &&
    typeof toolCall === "object" &&
    typeof (toolCall as Record<string, unknown>).tool_name === "string"
      ? ((toolCall as Record<string, unknown>).tool_name as string)
      : undefined;
  const problem = stepEnvelopeProblem(record);
  if (problem) return reject(problem.kind, problem.message, toolName, history);
  if (leaked !== null) {
    return reject(
      "think_leak",
      "reasoning (<think>...</think>) appeared in the reply text; it must stay out of the JSON reply",
      toolName,
      history,
    );
  }

  const { tool_name: name, ...args } = toolCall as Record<string, unknown>;
  const checked = validateToolCall(id, name, args, ctx.offered);
  const note = typeof record.note === "string" ? record.note : null;
  const thought = record.thought as string;
  if (!checked.ok) return { ...reject(checked.kind, checked.message, toolName, history), note, thought };

  const parsedStep = { note, thought, tool_call: { tool_name: checked.action.tool, ...checked.action.args } };
  return {
    outcome: "actions",
    actions: [checked.action],
    invalid: [],
    slots: [{ id, tool: checked.action.tool, valid: true, inAssistantMessage: false }],
    note,
    thought,
    leakedReasoning: null,
    assistant: { role: "assistant", content: JSON.stringify(parsedStep) },
  };
}

/** Checks the `{note, thought, tool_call}` envelope around the tool call. */
function stepEnvelopeProblem(step: Record<string, unknown>): { kind: InvalidKind; message: string } | null {
  const extra = Object.keys(step).filter((k) => k !== "note" && k !== "thought" && k !== "tool_call");
  const missing = ["thought", "tool_call"].filter((k) => !(k in step));
  if (missing.length > 0) {
    return { kind: "missing_fields", message: `the step is missing ${missing.map((k) => `'${k}'`).join(" and ")}` };
  }
  if (extra.length > 0) {
    return {
      kind: "extra_fields",
      message: `unexpected field(s) ${extra.map((k) => `'${k}'`).join(", ")} in the step; only note, thought and tool_call are allowed`,
    };
  }
  if (typeof step.thought !== "string")
    return { kind: "wrong_type", message: `'thought' must be a string, got ${preview(step.thought)}` };
  if (step.note !== undefined && step.note !== null && typeof step.note !== "string") {
    return { kind: "wrong_type", message: `'note' must be a string or null, got ${preview(step.note)}` };
  }
  const call = step.tool_call;
  if (call === null || typeof call !== "object" || Array.isArray(call)) {
    return { kind: "wrong_type", message: `'tool_call' must be an object with a 'tool_name', got ${preview(call)}` };
  }
  if (!("tool_name" in call)) return { kind: "missing_fields", message: "'tool_call' has no 'tool_name'" };
  return null;
}
