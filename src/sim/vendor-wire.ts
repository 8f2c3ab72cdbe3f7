/**
 * The reference model in the vendors' computer-use protocols: a Responses API (OpenAI) or Messages
 * API (Anthropic) request is read as the equivalent Holo tools-mode conversation (observations,
 * assistant calls, results), so the same policies, trajectories and profiles decide the turn; the
 * decided turn is then written back as that vendor's reply (computer_call / tool_use in pixels of
 * the last screenshot, function calls, a final message, a refusal, a cut-off). To a Messages request
 * declaring the computer toolset, each computer action is a call of its member (`toolset_name: "computer"`).
 */
import { EVICTED_PLACEHOLDER } from "../agent/history.js";
import { COMPUTER_TOOLSET_NAME, COMPUTER_TOOLSET_TYPE } from "../agent/protocols/anthropic-toolset.js";
import { imageSize } from "../agent/protocols/image-size.js";
import type { AssistantOutput } from "./output.js";
import { isRecord, type WireMessage } from "./request.js";

export type Vendor = "openai" | "anthropic" | "gemini";
type Item = Record<string, unknown>;

/** The chat form of a vendor request, and the size of its newest screenshot (pixels the reply uses). */
export interface ChatView {
  messages: WireMessage[];
  frame: { width: number; height: number };
  user: string | null;
  tools: string[];
}

const OBSERVATION_OPEN = { type: "text", text: "<observation>\n" };
const OBSERVATION_CLOSE = { type: "text", text: "\n</observation>" };
const COMPUTER_TOOLS = ["click", "double_click", "write", "press", "scroll", "wait"];

function observation(url: string): WireMessage {
  return { role: "user", content: [OBSERVATION_OPEN, { type: "image_url", image_url: { url } }, OBSERVATION_CLOSE] };
}

function sizeOf(url: string): { width: number; height: number } | null {
  const base64 = url.slice(url.indexOf(",") + 1);
  return imageSize(base64);
}

/** Reads a Responses API request (full input) as a chat conversation. */
export function chatFromResponses(body: Item): ChatView {
  const messages: WireMessage[] = [];
  let frame = { width: 1280, height: 800 };
  const input = Array.isArray(body.input) ? (body.input as Item[]) : [];
  const seeImage = (url: string) => {
    frame = sizeOf(url) ?? frame;
    messages.push(observation(url));
  };
  for (const item of input) {
    if (
      item.type !== "reasoning" &&
      item.type !== "message" &&
      item.type !== "computer_call" &&
      item.type !== "function_call"
    ) {
      const last = messages[messages.length - 1];
      if (last) delete last.open;
    }
    if (item.role === "user" && Array.isArray(item.content)) {
      for (const part of item.content as Item[]) {
        if (part.type === "input_text") messages.push({ role: "user", content: String(part.text) });
        if (part.type === "input_image") seeImage(String(part.image_url));
      }
    } else if (item.type === "message" || item.type === "computer_call" || item.type === "function_call") {
      // One reply's output items are one assistant turn (the policy counts turns, not items).
      const last = messages[messages.length - 1];
      const turn: WireMessage =
        last?.role === "assistant" && last.open === true ? last : { role: "assistant", content: null, open: true };
      if (turn !== last) messages.push(turn);
      if (item.type === "message" && Array.isArray(item.content)) {
        turn.content = `${String(turn.content ?? "")}${(item.content as Item[]).map((p) => String(p.text ?? "")).join("")}`;
      } else {
        turn.tool_calls = [...((turn.tool_calls as unknown[]) ?? []), { id: String(item.call_id), type: "function" }];
      }
    } else if (item.type === "computer_call_output") {
      const output = item.output as Item | undefined;
      if (output && typeof output.image_url === "string") seeImage(output.image_url);
    } else if (item.type === "function_call_output") {
      messages.push({ role: "tool", tool_call_id: String(item.call_id), content: String(item.output) });
    }
  }
  for (const m of messages) delete m.open;
  const tools = Array.isArray(body.tools) ? (body.tools as Item[]) : [];
  return {
    messages,
    frame,
    user: typeof body.user === "string" ? body.user : null,
    tools: [...COMPUTER_TOOLS, "answer", ...tools.filter((t) => t.type === "function").map((t) => String(t.name))],
  };
}

/** Reads a Messages API request as a chat conversation. */
export function chatFromMessages(body: Item): ChatView {
  const messages: WireMessage[] = [];
  let frame = { width: 1280, height: 800 };
  const system = Array.isArray(body.system) ? (body.system as Item[]).map((b) => String(b.text ?? "")).join("\n") : "";
  if (system) messages.push({ role: "system", content: system });
  const visit = (blocks: Item[]) => {
    for (const block of blocks) {
      // A screenshot umpire evicted (its image budget) was still a turn's observation: counted as one,
      // or every turn past the budget would read as the same turn and the log would misname its step.
      if (block.type === "text" && block.text === EVICTED_PLACEHOLDER)
        messages.push({ role: "user", content: [OBSERVATION_OPEN, block, OBSERVATION_CLOSE] });
      else if (block.type === "text") messages.push({ role: "user", content: String(block.text) });
      if (block.type === "image" && isRecord(block.source)) {
        const url = `data:${String(block.source.media_type)};base64,${String(block.source.data)}`;
        frame = sizeOf(url) ?? frame;
        messages.push(observation(url));
      }
      if (block.type === "tool_result" && Array.isArray(block.content)) visit(block.content as Item[]);
    }
  };
  for (const message of Array.isArray(body.messages) ? (body.messages as Item[]) : []) {
    const content = Array.isArray(message.content) ? (message.content as Item[]) : [];
    if (message.role === "user") visit(content);
    else {
      const text = content.filter((b) => b.type === "text").map((b) => String(b.text));
      const calls = content.filter((b) => b.type === "tool_use").map((b) => ({ id: String(b.id), type: "function" }));
      messages.push({
        role: "assistant",
        content: text.join("\n") || null,
        ...(calls.length > 0 && { tool_calls: calls }),
      });
    }
  }
  const tools = Array.isArray(body.tools) ? (body.tools as Item[]) : [];
  const metadata = isRecord(body.metadata) ? body.metadata : {};
  return {
    messages,
    frame,
    user: typeof metadata.user_id === "string" ? metadata.user_id : null,
    tools: [
      ...COMPUTER_TOOLS,
      "answer",
      ...tools.filter((t) => !String(t.type ?? "").startsWith("computer_")).map((t) => String(t.name)),
    ],
  };
}

/** The screenshot's size in pixels and, when known, the page's viewport in CSS px. */
type WireFrame = { width: number; height: number; viewport?: { width: number; height: number } };

/**
 * One planned call in the vendor's computer vocabulary, in pixels of `frame`; null for a non-computer
 * tool. `write` with `press_enter` is typing and then the Enter key, as both vendors spell it.
 */
function computerActions(vendor: Vendor, name: string, args: Item, frame: WireFrame): Item[] | null {
  const one = computerAction(vendor, name, args, frame);
  if (!one) return null;
  if (name !== "write" || args.press_enter !== true) return [one];
  return [one, vendor === "openai" ? { type: "keypress", keys: ["ENTER"] } : { action: "key", text: "Return" }];
}

/** One planned call as one vendor action (pixels of `frame`), or null for a tool outside the computer. */
function computerAction(vendor: Vendor, name: string, args: Item, frame: WireFrame): Item | null {
  const px = (v: unknown, size: number) => Math.round(((v as number) / 1000) * size);
  const x = px(args.x, frame.width);
  const y = px(args.y, frame.height);
  const openai = vendor === "openai";
  switch (name) {
    case "click":
      return openai ? { type: "click", button: "left", x, y } : { action: "left_click", coordinate: [x, y] };
    case "double_click":
      return openai ? { type: "double_click", x, y } : { action: "double_click", coordinate: [x, y] };
    case "write":
      return openai ? { type: "type", text: args.content } : { action: "type", text: args.content };
    case "press":
      return openai
        ? { type: "keypress", keys: args.keys }
        : { action: "key", text: (args.keys as string[]).join("+") };
    case "wait":
      return openai ? { type: "wait" } : { action: "wait", duration: args.seconds };
    case "scroll": {
      const at = args.x === undefined ? { x: Math.round(frame.width / 2), y: Math.round(frame.height / 2) } : { x, y };
      // OpenAI's scroll_x/scroll_y are in the screenshot's pixels: a notch of 100 CSS px is more of them at DPR 2.
      const css = Number(args.amount) * 100;
      const dy = Math.round(css * (frame.height / (frame.viewport?.height ?? frame.height)));
      const dx = Math.round(css * (frame.width / (frame.viewport?.width ?? frame.width)));
      const [sx, sy] = { up: [0, -dy], down: [0, dy], left: [-dx, 0], right: [dx, 0] }[String(args.direction)] ?? [
        0,
        dy,
      ];
      return openai
        ? { type: "scroll", ...at, scroll_x: sx, scroll_y: sy }
        : { action: "scroll", coordinate: [at.x, at.y], scroll_direction: args.direction, scroll_amount: args.amount };
    }
    default:
      return null;
  }
}

/** A malformed turn in a vendor protocol: an action umpire must refuse (its vocabulary has no drag). */
function malformedAction(vendor: Vendor): Item {
  return vendor === "openai"
    ? {
        type: "drag",
        path: [
          { x: 1, y: 1 },
          { x: 2, y: 2 },
        ],
      }
    : { action: "triple_click", coordinate: [1, 1] };
}

/** The planned turn as a Responses API body; `frame` is the screenshot's, with the page's CSS viewport when known. */
export function responsesBody(output: AssistantOutput, frame: WireFrame, model: string, usage: Item): Item {
  const items: Item[] = [];
  if (output.reasoning)
    items.push({ type: "reasoning", id: `rs_${rand()}`, summary: [{ type: "summary_text", text: output.reasoning }] });
  const text = output.content ?? "";
  const actions: Item[] = [];
  for (const call of output.toolCalls) {
    const args = safeJson(call.arguments);
    const batch = args ? computerActions("openai", call.name, args, frame) : null;
    if (batch) actions.push(...batch);
    else if (call.name === "answer" && args) items.push(message(String(args.content)));
    else
      items.push({
        type: "function_call",
        id: `fc_${rand()}`,
        call_id: call.id,
        name: call.name,
        arguments: call.arguments,
        status: "completed",
      });
  }
  if (output.kind.startsWith("malformed")) actions.push(malformedAction("openai"));
  if (text && !output.toolCalls.some((c) => c.name === "answer")) items.unshift(message(text));
  if (output.refusal)
    items.push({
      type: "message",
      id: `msg_${rand()}`,
      role: "assistant",
      status: "completed",
      content: [{ type: "refusal", refusal: output.refusal }],
    });
  if (actions.length > 0) {
    items.push({
      type: "computer_call",
      id: `cu_${rand()}`,
      call_id: `call_${rand()}`,
      status: "completed",
      pending_safety_checks: [],
      actions,
    });
  }
  const cut = output.finishReason === "length";
  return {
    id: `resp_${rand()}`,
    object: "response",
    created_at: Math.floor(Date.now() / 1000),
    model,
    status: cut ? "incomplete" : "completed",
    incomplete_details: cut ? { reason: "max_output_tokens" } : null,
    output: cut ? items.filter((i) => i.type === "reasoning") : items,
    usage,
  };
}

/** Whether a Messages API request declares Anthropic's computer toolset (its members are then the computer's tools). */
export function declaresComputerToolset(body: Item): boolean {
  return Array.isArray(body.tools) && (body.tools as Item[]).some((t) => t.type === COMPUTER_TOOLSET_TYPE);
}

/**
 * One computer action as a tool_use block: the single tool's `computer` with the action in its input,
 * or, to a request declaring the toolset, the member of the action's name with the rest as its input.
 */
function computerUse(action: Item, toolset: boolean): Item {
  const id = `toolu_${rand()}`;
  if (!toolset) return { type: "tool_use", id, name: "computer", input: action };
  const { action: name, ...input } = action;
  return { type: "tool_use", id, name, input, toolset_name: COMPUTER_TOOLSET_NAME };
}

/** The planned turn as a Messages API body; `toolset` when the request declared the computer toolset. */
export function messagesBody(
  output: AssistantOutput,
  frame: ChatView["frame"],
  model: string,
  usage: Item,
  toolset = false,
): Item {
  const content: Item[] = [];
  let answer: string | null = null;
  if (output.content) content.push({ type: "text", text: output.content });
  for (const call of output.toolCalls) {
    const args = safeJson(call.arguments);
    const batch = args ? computerActions("anthropic", call.name, args, frame) : null;
    for (const input of batch ?? []) content.push(computerUse(input, toolset));
    if (batch) continue;
    if (call.name === "answer" && args) answer = String(args.content);
    else content.push({ type: "tool_use", id: `toolu_${rand()}`, name: call.name, input: args ?? {} });
  }
  // To the toolset, the triple click is a member umpire switched off, called anyway.
  if (output.kind.startsWith("malformed")) content.push(computerUse(malformedAction("anthropic"), toolset));
  if (answer !== null) {
    content.splice(0, content.length, { type: "text", text: answer });
  }
  const stop = output.refusal
    ? "refusal"
    : output.finishReason === "length"
      ? "max_tokens"
      : content.some((b) => b.type === "tool_use")
        ? "tool_use"
        : "end_turn";
  return {
    id: `msg_${rand()}`,
    type: "message",
    role: "assistant",
    model,
    content: stop === "max_tokens" ? [] : content,
    stop_reason: stop,
    stop_sequence: null,
    usage,
  };
}

function message(text: string): Item {
  return {
    type: "message",
    id: `msg_${rand()}`,
    role: "assistant",
    status: "completed",
    content: [{ type: "output_text", text, annotations: [] }],
  };
}

function safeJson(text: string): Item | null {
  try {
    const value = JSON.parse(text) as unknown;
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

function rand(): string {
  return Math.random().toString(36).slice(2, 12);
}
