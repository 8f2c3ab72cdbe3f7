/**
 * The reference model in Gemini's computer-use protocol: a `generateContent` request (as the Gemini
 * API receives it from `@google/genai`) is read as the equivalent Holo tools-mode conversation, so
 * the same policies, trajectories and profiles decide the turn; the decided turn is written back as
 * a Gemini response (predefined computer-use functionCalls on the 1000 x 1000 grid, functionCalls of
 * the declared tools, a final text, a SAFETY stop, a MAX_TOKENS cut-off) with `usageMetadata`.
 */
import { EVICTED_PLACEHOLDER } from "../agent/history.js";
import { isPredefined } from "../agent/protocols/gemini-actions.js";
import { imageSize } from "../agent/protocols/image-size.js";
import type { AssistantOutput } from "./output.js";
import { isRecord, type WireMessage } from "./request.js";
import type { ChatView } from "./vendor-wire.js";

type Item = Record<string, unknown>;

/** The header umpire sends the trial id in (src/agent/protocols/gemini-computer.ts). */
const TRIAL_HEADER = "x-umpire-trial";
const COVERED = ["click", "write", "press", "scroll", "wait", "navigate", "go_back"];
const OBSERVATION_OPEN = { type: "text", text: "<observation>\n" };
const OBSERVATION_CLOSE = { type: "text", text: "\n</observation>" };

/** The model id and method of a Gemini path's last segment, e.g. `reference:gold:generateContent`. */
export function geminiCall(segment: string): { model: string; method: string } {
  const cut = segment.lastIndexOf(":");
  return cut < 0 ? { model: segment, method: "" } : { model: segment.slice(0, cut), method: segment.slice(cut + 1) };
}

/** Reads a generateContent request (the whole `contents`) as a chat conversation. */
export function chatFromGenerateContent(body: Item, headers: Record<string, unknown>): ChatView {
  const messages: WireMessage[] = [];
  let frame = { width: 1280, height: 800 };
  const system = isRecord(body.systemInstruction) ? partsOf(body.systemInstruction) : [];
  const systemText = system.map((p) => String(p.text ?? "")).join("\n");
  if (systemText) messages.push({ role: "system", content: systemText });
  const seeImage = (part: Item) => {
    const blob = part.inlineData as Item;
    const url = `data:${String(blob.mimeType)};base64,${String(blob.data)}`;
    frame = imageSize(String(blob.data)) ?? frame;
    messages.push({
      role: "user",
      content: [OBSERVATION_OPEN, { type: "image_url", image_url: { url } }, OBSERVATION_CLOSE],
    });
  };
  const evicted = () =>
    messages.push({
      role: "user",
      content: [OBSERVATION_OPEN, { type: "text", text: EVICTED_PLACEHOLDER }, OBSERVATION_CLOSE],
    });
  for (const content of Array.isArray(body.contents) ? (body.contents as Item[]) : []) {
    const parts = partsOf(content);
    if (content.role === "model") {
      messages.push(assistantTurn(parts, messages.length));
      continue;
    }
    // The responses to a turn's computer-use calls carry that turn's screenshot (on the last of them); once
    // evicted, their `parts` are dropped, as Google's reference agent drops them, so none carries an image.
    const computerResponses = parts.filter((p) => isComputerResponse(p.functionResponse));
    const lastComputer = computerResponses[computerResponses.length - 1];
    const screenshotDropped = computerResponses.length > 0 && !computerResponses.some((p) => hasImage(p));
    for (const part of parts) {
      // A screenshot umpire evicted (its image budget) was still a turn's observation, as on the Anthropic route.
      if (part.text === EVICTED_PLACEHOLDER) evicted();
      else if (typeof part.text === "string") messages.push({ role: "user", content: part.text });
      if (isRecord(part.inlineData)) seeImage(part);
      const response = part.functionResponse as Item | undefined;
      if (!isRecord(response)) continue;
      const result = response.response as Item | undefined;
      const text = String(result?.error ?? result?.output ?? "");
      if (text) messages.push({ role: "user", content: text });
      for (const inner of Array.isArray(response.parts) ? (response.parts as Item[]) : [])
        if (isRecord(inner.inlineData)) seeImage(inner);
        else if (inner.text === EVICTED_PLACEHOLDER) evicted();
      if (part === lastComputer && screenshotDropped) evicted();
    }
  }
  const declared = (Array.isArray(body.tools) ? (body.tools as Item[]) : []).flatMap((t) =>
    Array.isArray(t.functionDeclarations) ? (t.functionDeclarations as Item[]).map((d) => String(d.name)) : [],
  );
  const user = headers[TRIAL_HEADER];
  return { messages, frame, user: typeof user === "string" ? user : null, tools: [...COVERED, "answer", ...declared] };
}

function isComputerResponse(response: unknown): boolean {
  return isRecord(response) && isPredefined(String(response.name));
}

function hasImage(part: Item): boolean {
  const inner = (part.functionResponse as Item).parts;
  return (
    Array.isArray(inner) && inner.some((p) => isRecord(p) && (isRecord(p.inlineData) || p.text === EVICTED_PLACEHOLDER))
  );
}

function partsOf(content: unknown): Item[] {
  const parts = isRecord(content) ? content.parts : undefined;
  return Array.isArray(parts) ? (parts.filter(isRecord) as Item[]) : [];
}

/** One model content as one assistant turn (the policy counts turns, not parts). */
function assistantTurn(parts: Item[], index: number): WireMessage {
  const text = parts.filter((p) => typeof p.text === "string" && p.thought !== true).map((p) => String(p.text));
  const calls = parts
    .filter((p) => isRecord(p.functionCall))
    .map((_, i) => ({ id: `call_${index}_${i}`, type: "function" }));
  return { role: "assistant", content: text.join("\n") || null, ...(calls.length > 0 && { tool_calls: calls }) };
}

/** The point of the newest click or typing in the conversation (type_text_at types where it clicks). */
export function lastPoint(body: Item): { x: number; y: number } | null {
  let point: { x: number; y: number } | null = null;
  for (const content of Array.isArray(body.contents) ? (body.contents as Item[]) : []) {
    if (content.role !== "model") continue;
    for (const part of partsOf(content)) {
      const call = part.functionCall as Item | undefined;
      const args = isRecord(call?.args) ? call.args : null;
      if ((call?.name === "click_at" || call?.name === "type_text_at") && args && typeof args.x === "number")
        point = { x: args.x, y: Number(args.y) };
    }
  }
  return point;
}

/**
 * One planned call as a predefined function (on the 1000 grid), or null for a declared tool. A scroll's
 * notches (100 CSS px each) become a magnitude on the grid of the viewport's CSS size (`viewport`).
 */
function predefinedCall(
  name: string,
  args: Item,
  viewport: ChatView["frame"],
  point: { x: number; y: number } | null,
): Item | null {
  switch (name) {
    case "click":
      return { name: "click_at", args: { x: args.x, y: args.y } };
    case "write": {
      const at = point ?? { x: 500, y: 500 };
      const enter = args.press_enter === true;
      return {
        name: "type_text_at",
        args: { ...at, text: args.content, press_enter: enter, clear_before_typing: false },
      };
    }
    case "press":
      return { name: "key_combination", args: { keys: (args.keys as string[]).join("+") } };
    case "wait":
      return { name: "wait_5_seconds", args: {} };
    case "navigate":
      return { name: "navigate", args: { url: args.url } };
    case "go_back":
      return { name: "go_back", args: {} };
    case "scroll": {
      const vertical = args.direction === "up" || args.direction === "down";
      const side = vertical ? viewport.height : viewport.width;
      const magnitude = Math.round(((Number(args.amount) * 100) / side) * 1000);
      const at = args.x === undefined ? { x: 500, y: 500 } : { x: args.x, y: args.y };
      return { name: "scroll_at", args: { ...at, direction: args.direction, magnitude } };
    }
    default:
      return null;
  }
}

/** The planned turn as a generateContent response; `viewport` is the page's, in CSS pixels. */
export function generateContentBody(
  output: AssistantOutput,
  viewport: ChatView["frame"],
  model: string,
  usage: Item,
  point: { x: number; y: number } | null,
): Item {
  const parts: Item[] = [];
  if (output.reasoning) parts.push({ text: output.reasoning, thought: true });
  let answer: string | null = null;
  for (const call of output.toolCalls) {
    const args = safeJson(call.arguments);
    const predefined = args ? predefinedCall(call.name, args, viewport, point) : null;
    if (predefined) {
      parts.push({ functionCall: predefined });
      if (call.name === "click") point = { x: Number(args!.x), y: Number(args!.y) };
    } else if (call.name === "answer" && args) answer = String(args.content);
    else parts.push({ functionCall: { name: call.name, args: args ?? {} } });
  }
  if (output.kind.startsWith("malformed"))
    parts.push({ functionCall: { name: "drag_and_drop", args: { x: 1, y: 1, destination_x: 2, destination_y: 2 } } });
  if (answer !== null) parts.splice(0, parts.length, { text: answer });
  else if (output.content) parts.unshift({ text: output.content });
  const finishReason = output.refusal ? "SAFETY" : output.finishReason === "length" ? "MAX_TOKENS" : "STOP";
  const kept = finishReason === "STOP" ? parts : [];
  return {
    candidates: [
      {
        content: { role: "model", parts: kept },
        finishReason,
        index: 0,
        ...(output.refusal && { finishMessage: output.refusal }),
      },
    ],
    usageMetadata: usage,
    modelVersion: model,
    responseId: Math.random().toString(36).slice(2, 12),
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
