/**
 * The conversation as sent to the model: message shapes, the `<observation>` wrapper, the image
 * budget, and tool results in each mode's layout (H's "Agent loop" page):
 *
 * - observations are always `user` messages: `<observation>\n`, the screenshot, `\n</observation>`;
 * - at most the last IMAGE_BUDGET screenshots stay; older ones become the text
 *   `[screenshot evicted]` in place, so the `<observation>` wrapper survives;
 * - how a result goes back is the protocol's (protocols/holo-structured.ts, protocols/holo-tools.ts).
 */
import type { ActionStatus } from "../vocabulary.js";

/** Screenshots kept in context by default; more degrades accuracy (H's docs). */
export const DEFAULT_IMAGE_BUDGET = 3;
/** The most an agent definition may keep: the conformance lint allows no more images in one request. */
export const MAX_IMAGE_BUDGET = 3;
/** The default budget under its first name. */
export const IMAGE_BUDGET = DEFAULT_IMAGE_BUDGET;
export const EVICTED_PLACEHOLDER = "[screenshot evicted]";

export type TextPart = { type: "text"; text: string };
export type ImagePart = { type: "image_url"; image_url: { url: string } };
export interface AssistantToolCall {
  id: string;
  type: "function";
  function: { name: string; arguments: string };
}
/** A chat message in the OpenAI wire shape (structurally what the openai SDK accepts). */
export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string | Array<TextPart | ImagePart> }
  | { role: "assistant"; content: string | null; tool_calls?: AssistantToolCall[] }
  | { role: "tool"; tool_call_id: string; content: string };

export type ImageMimeType = "image/png" | "image/jpeg" | "image/webp";

/** What the runner saw, turned into one `<observation>` message. */
export interface Observation {
  /** The exact bytes the model's coordinates will be scaled against; a string is base64. */
  screenshot?: { data: Uint8Array | string; mimeType?: ImageMimeType };
  url?: string;
  title?: string;
  /** Visible page text, for tasks observed as "screenshot+text". */
  text?: string;
  /**
   * Device pixels per CSS pixel of `screenshot` as taken (the task's deviceScaleFactor; absent: 1). Only a
   * protocol whose distances are fractions of the viewport reads it (Gemini's scroll magnitude).
   */
  devicePixelRatio?: number;
}

/** The `<observation>` user message; the plain case is exactly H's three-part layout. */
export function observationMessage(observation: Observation): ChatMessage {
  let head = "<observation>\n";
  if (observation.url !== undefined) head += `URL: ${observation.url}\n`;
  if (observation.title !== undefined) head += `Title: ${observation.title}\n`;
  let tail = "\n</observation>";
  if (observation.text !== undefined) tail = `\n<page_text>\n${observation.text}\n</page_text>${tail}`;

  const parts: Array<TextPart | ImagePart> = [{ type: "text", text: head }];
  if (observation.screenshot) {
    const { data, mimeType = "image/png" } = observation.screenshot;
    const base64 = typeof data === "string" ? data : Buffer.from(data).toString("base64");
    parts.push({ type: "image_url", image_url: { url: `data:${mimeType};base64,${base64}` } });
  }
  parts.push({ type: "text", text: tail });
  return { role: "user", content: parts };
}

/**
 * Replaces all but the newest `keep` images in user messages by `[screenshot evicted]` text,
 * in place (H's `trim_to_last_n_images`). Returns how many images it evicted this call.
 */
export function evictOldImages(messages: ChatMessage[], keep = IMAGE_BUDGET): number {
  let seen = 0;
  let evicted = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message.role !== "user" || !Array.isArray(message.content)) continue;
    for (let j = message.content.length - 1; j >= 0; j--) {
      if (message.content[j].type !== "image_url") continue;
      seen += 1;
      if (seen > keep) {
        message.content[j] = { type: "text", text: EVICTED_PLACEHOLDER };
        evicted += 1;
      }
    }
  }
  return evicted;
}

/** The result of one proposed action, matched to it by `id` (the ProposedAction id). */
export interface ToolResult {
  id: string;
  /** How the action ended, as the runner's executor reports it. */
  status: ActionStatus;
  /** What the executor observed, e.g. "Clicked at (512, 300)" or why it refused. */
  output: string;
}

const STATUS_PREFIX: Record<ActionStatus, string> = {
  success: "",
  rejected: "Rejected: ",
  failed: "Failed: ",
  skipped: "Skipped: ",
};

/** The result text the model reads: the output, prefixed by its status unless it succeeded. */
export function resultText(result: Pick<ToolResult, "status" | "output">): string {
  return STATUS_PREFIX[result.status] + result.output;
}

/** A plain user text message (reflection prompts, format corrections). */
export function userTextMessage(text: string): ChatMessage {
  return { role: "user", content: text };
}
