/**
 * Renders a planned turn as the assistant output of one mode, then applies the profile's
 * output-level faults (refuse, truncate, malformed) and the request's token budget.
 * Structured mode: content is `{note, thought, tool_call: {tool_name, ...args}}`.
 * Tools mode: one `tool_calls` entry, with the note (the facts to keep) in `content`.
 */
import { randomBytes } from "node:crypto";
import type { QwenVersion } from "../agent/protocols/qwen-tool.js";
import type { Size } from "../agent/protocols/smart-resize.js";
import type { PlannedTurn } from "./policy.js";
import { malformedKind, type MalformedKind, type ProfileName } from "./profiles.js";
import { qwenCalls, qwenScreen, qwenVersionOf } from "./qwen.js";
import { uiTarsAction, uiTarsMalformed, uiTarsScreen, uiTarsText } from "./ui-tars.js";
import type { RequestMode } from "./request.js";
import { estimateTokens } from "./usage.js";

export interface ToolCallOut {
  id: string;
  name: string;
  arguments: string;
}

export interface AssistantOutput {
  content: string | null;
  refusal: string | null;
  reasoning: string;
  toolCalls: ToolCallOut[];
  finishReason: "stop" | "tool_calls" | "length";
  /** For the log: `action`, `refusal`, `truncated`, `budget-exceeded` or `malformed:<kind>`. */
  kind: string;
}

export const REFUSAL_TEXT = "I can't help with that";

export interface RenderOptions {
  mode: RequestMode;
  profile: ProfileName;
  seed: number;
  /** `max_completion_tokens` / `max_tokens` of the request, if any. */
  maxTokens?: number;
  /** Pixel size of the last screenshot (Qwen2.5-VL's coordinates are on its smart-resized frame). */
  frame?: { width: number; height: number } | null;
}

/** The assistant output for a planned turn under a profile. */
export function renderOutput(plan: PlannedTurn, options: RenderOptions): AssistantOutput {
  const { mode, profile } = options;
  if (profile === "refuse") {
    return {
      content: REFUSAL_TEXT,
      refusal: REFUSAL_TEXT,
      reasoning: "This request is one I will not act on.",
      toolCalls: [],
      finishReason: "stop",
      kind: "refusal",
    };
  }
  const qwen = qwenVersionOf(mode);
  if (profile === "malformed") {
    const kind = malformedKind(options.seed, plan.progress.turn);
    if (mode === "ui-tars") {
      const planned = plan.action.tool === "click" ? plan.action.args : null;
      const content = uiTarsMalformed(kind, planned, uiTarsScreen(options.frame ?? null), plan.reasoning);
      return {
        content,
        refusal: null,
        reasoning: plan.reasoning,
        toolCalls: [],
        finishReason: "stop",
        kind: `malformed:${kind}`,
      };
    }
    return qwen ? malformedQwen(plan, qwen, kind, options.frame ?? null) : malformed(plan, mode, kind);
  }
  const output = qwen
    ? wellFormedQwen(plan, qwen, options.frame ?? null)
    : mode === "ui-tars"
      ? {
          content: uiTarsText(plan.thought, uiTarsAction(plan.action, uiTarsScreen(options.frame ?? null))),
          refusal: null,
          reasoning: plan.reasoning,
          toolCalls: [],
          finishReason: "stop" as const,
          kind: "action",
        }
      : wellFormed(plan, mode);
  if (profile === "truncate") return cutShort(output, "truncated");
  if (
    options.maxTokens !== undefined &&
    estimateTokens(output.reasoning) + completionTextTokens(output) > options.maxTokens
  ) {
    return overBudget(output, options.maxTokens);
  }
  return output;
}

function wellFormed(plan: PlannedTurn, mode: RequestMode): AssistantOutput {
  const { tool, args } = plan.action;
  if (mode === "tools") {
    return {
      content: plan.note ?? plan.thought,
      refusal: null,
      reasoning: plan.reasoning,
      toolCalls: [{ id: newCallId(), name: tool, arguments: JSON.stringify(args) }],
      finishReason: "tool_calls",
      kind: "action",
    };
  }
  return {
    content: JSON.stringify(structuredStep(plan.note, plan.thought, { tool_name: tool, ...args })),
    refusal: null,
    reasoning: plan.reasoning,
    toolCalls: [],
    finishReason: "stop",
    kind: "action",
  };
}

/** Qwen: the action as `computer_use` call(s) in the version's screen, the note (or thought) as content. */
function wellFormedQwen(plan: PlannedTurn, version: QwenVersion, frame: Size | null): AssistantOutput {
  const calls = qwenCalls(plan.action, version, qwenScreen(version, frame));
  return {
    content: plan.note ?? plan.thought,
    refusal: null,
    reasoning: plan.reasoning,
    toolCalls: calls.map((c) => ({ id: newCallId(), name: c.name, arguments: JSON.stringify(c.arguments) })),
    finishReason: "tool_calls",
    kind: "action",
  };
}

/**
 * One kind of invalid Qwen output, on the planned click (else the middle of the screen): each is
 * something umpire must refuse, never run. `<think>` left in the content is reasoning to Qwen, not
 * a fault, so that kind carries no call at all.
 */
function malformedQwen(
  plan: PlannedTurn,
  version: QwenVersion,
  kind: MalformedKind,
  frame: Size | null,
): AssistantOutput {
  const screen = qwenScreen(version, frame);
  const planned = plan.action.tool === "click" ? plan.action.args : { x: 500, y: 500 };
  const [x, y] = qwenCalls({ tool: "click", args: planned }, version, screen)[0]!.arguments.coordinate as number[];
  let name = "computer_use";
  let args: Record<string, unknown> = { action: "left_click", coordinate: [x, y] };
  const base: AssistantOutput = {
    content: plan.note,
    refusal: null,
    reasoning: plan.reasoning,
    toolCalls: [],
    finishReason: "tool_calls",
    kind: `malformed:${kind}`,
  };
  switch (kind) {
    case "empty-content":
      return { ...base, content: "", finishReason: "stop" };
    case "think-in-content":
      return { ...base, content: `<think>${plan.reasoning}</think>`, finishReason: "stop" };
    case "unknown-tool":
      name = "teleport";
      break;
    case "missing-field":
      args = { action: "left_click" };
      break;
    case "extra-field":
      args = { action: "right_click", coordinate: [x, y] };
      break;
    case "wrong-type":
      args = { action: "left_click", coordinate: `${x}, ${y}` };
      break;
    case "coordinate-out-of-range":
      args = { action: "left_click", coordinate: [screen.width + 500, y] };
      break;
    case "xy-as-list":
      args = { action: "left_click", coordinate: [[x, y]] };
      break;
    default:
      break;
  }
  const text = kind === "invalid-json" ? singleQuoted(JSON.stringify(args)) : JSON.stringify(args);
  return { ...base, toolCalls: [{ id: newCallId(), name, arguments: text }] };
}

function structuredStep(note: string | null, thought: string, toolCall: Record<string, unknown>) {
  return { note, thought, tool_call: toolCall };
}

/** Cuts the output in the middle of its JSON, as a generation stopped by `max_tokens` would. */
function cutShort(output: AssistantOutput, kind: string): AssistantOutput {
  const half = (text: string) => text.slice(0, Math.max(1, Math.floor(text.length / 2)));
  if (output.toolCalls.length > 0) {
    return {
      ...output,
      toolCalls: output.toolCalls.map((c) => ({ ...c, arguments: half(c.arguments) })),
      finishReason: "length",
      kind,
    };
  }
  return { ...output, content: half(output.content ?? ""), finishReason: "length", kind };
}

/** Reasoning ate the budget: the trace is cut to it and no action is emitted. */
function overBudget(output: AssistantOutput, maxTokens: number): AssistantOutput {
  const reasoning = output.reasoning.slice(0, Math.max(0, maxTokens * 4));
  return { content: "", refusal: null, reasoning, toolCalls: [], finishReason: "length", kind: "budget-exceeded" };
}

/**
 * One kind of invalid output. The base is the planned click when there is one (so the fault
 * is the only thing wrong), otherwise a click at the middle of the screen.
 */
function malformed(plan: PlannedTurn, mode: RequestMode, kind: MalformedKind): AssistantOutput {
  const planned = plan.action.tool === "click" ? plan.action.args : null;
  const element = typeof planned?.element === "string" ? planned.element : "the middle of the page";
  const x = typeof planned?.x === "number" ? planned.x : 500;
  const y = typeof planned?.y === "number" ? planned.y : 500;
  let name = "click";
  let args: Record<string, unknown> = { element, x, y };
  switch (kind) {
    case "unknown-tool":
      name = "teleport";
      break;
    case "missing-field":
      args = { element, x };
      break;
    case "extra-field":
      args = { element, x, y, button: "left" };
      break;
    case "wrong-type":
      args = { element, x: String(x), y };
      break;
    case "coordinate-out-of-range":
      args = { element, x: 1500, y };
      break;
    case "xy-as-list":
      args = { element, x: [x, y] };
      break;
    default:
      break;
  }
  const note = plan.note;
  const thought = "Click the target.";
  const base: AssistantOutput = {
    content: null,
    refusal: null,
    reasoning: plan.reasoning,
    toolCalls: [],
    finishReason: "stop",
    kind: `malformed:${kind}`,
  };
  if (mode === "tools") {
    const call = (argumentsText: string): ToolCallOut[] => [{ id: newCallId(), name, arguments: argumentsText }];
    if (kind === "empty-content") return { ...base, content: "" };
    if (kind === "invalid-json")
      return {
        ...base,
        content: note,
        toolCalls: call(singleQuoted(JSON.stringify(args))),
        finishReason: "tool_calls",
      };
    if (kind === "think-in-content") {
      return {
        ...base,
        content: `<think>${plan.reasoning}</think>${note ?? ""}`,
        toolCalls: call(JSON.stringify(args)),
        finishReason: "tool_calls",
      };
    }
    return { ...base, content: note, toolCalls: call(JSON.stringify(args)), finishReason: "tool_calls" };
  }
  const json = JSON.stringify(structuredStep(note, thought, { tool_name: name, ...args }));
  if (kind === "empty-content") return { ...base, content: "" };
  if (kind === "invalid-json") return { ...base, content: singleQuoted(json) };
  if (kind === "think-in-content") return { ...base, content: `<think>${plan.reasoning}</think>\n${json}` };
  return { ...base, content: json };
}

/** JSON with single quotes: what a model imitating Python dicts writes; no JSON parser accepts it. */
function singleQuoted(json: string): string {
  return json.replace(/"/g, "'");
}

function completionTextTokens(output: AssistantOutput): number {
  const calls = output.toolCalls.map((c) => c.name + c.arguments).join("");
  return estimateTokens(
    (output.content ?? "") + (output.refusal && output.refusal !== output.content ? output.refusal : "") + calls,
  );
}

/** Completion and reasoning token counts of an output. */
export function completionUsage(output: AssistantOutput): { completionTokens: number; reasoningTokens: number } {
  const reasoningTokens = estimateTokens(output.reasoning);
  return { completionTokens: reasoningTokens + completionTextTokens(output), reasoningTokens };
}

function newCallId(): string {
  return `call_${randomBytes(9).toString("base64url")}`;
}

export type { MalformedKind };
