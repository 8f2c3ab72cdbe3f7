/**
 * Turning one model reply into validated actions, or classified invalid proposals, plus the
 * assistant message that goes back into history (only the parsed output, never the reasoning
 * and never raw text that failed to parse).
 *
 * Rules, in both modes:
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
import { preview, validateToolCall, type InvalidKind } from "./action-validation.js";
import type { OutputMode, TurnOutcome } from "../vocabulary.js";
import type { AssistantToolCall, ChatMessage } from "./history.js";
import { messageOf } from "../errors.js";

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
  mode: OutputMode;
  trialId: string;
  /** 1-based turn number, part of umpire-assigned action ids. */
  turn: number;
  offered: readonly ToolName[];
}

/** umpire's stable action id: `<trialId>-t<turn>-a<index>` (both 1-based). */
export function actionId(trialId: string, turn: number, index: number): string {
  return `${trialId}-t${turn}-a${index}`;
}

/** Parses a reply in the context's mode. Never throws on bad model output. */
export function parseReply(reply: RawReply, ctx: ParseContext): ParsedReply {
  return ctx.mode === "structured" ? parseStructured(reply, ctx) : parseToolCalls(reply, ctx);
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

function parseStructured(reply: RawReply, ctx: ParseContext): ParsedReply {
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

function parseToolCalls(reply: RawReply, ctx: ParseContext): ParsedReply {
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

function refused(text: string, leaked: string | null): ParsedReply {
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
