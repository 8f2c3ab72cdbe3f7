/**
 * Token accounting of the reference model. Not a tokenizer: a stable estimate that grows with
 * what is sent, so budgets, cost tables and the image budget have real numbers to work with.
 * Text costs one token per 4 characters; an image costs one token per 28x28 pixel patch
 * (the Qwen2.5-VL family's merge size) plus 2, so a 1280x800 screenshot costs 1309 tokens.
 */
import { dataUriImageInfo } from "./image.js";
import { imagesOf, isRecord, textOf, type WireMessage } from "./request.js";

const CHARS_PER_TOKEN = 4;
const PATCH_PIXELS = 28 * 28;
const IMAGE_OVERHEAD_TOKENS = 2;
/** What an image costs when its size cannot be read (a remote URL). */
const UNKNOWN_IMAGE_TOKENS = 1_024;
/** Role markers and separators of the chat template, per message. */
const MESSAGE_OVERHEAD_TOKENS = 4;

export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

/** Tokens one image costs, from its pixel count. */
export function imageTokens(width: number, height: number): number {
  return Math.ceil((width * height) / PATCH_PIXELS) + IMAGE_OVERHEAD_TOKENS;
}

/** Prompt tokens of a request: message text, tool calls, tool definitions and images. */
export function promptTokens(body: unknown, messages: readonly WireMessage[]): number {
  let tokens = 0;
  for (const message of messages) {
    tokens += MESSAGE_OVERHEAD_TOKENS + estimateTokens(textOf(message.content));
    if (Array.isArray(message.tool_calls)) tokens += estimateTokens(JSON.stringify(message.tool_calls));
  }
  for (const image of imagesOf(messages)) {
    const info = dataUriImageInfo(image.url);
    tokens += info ? imageTokens(info.width, info.height) : UNKNOWN_IMAGE_TOKENS;
  }
  // Tool definitions are rendered into the prompt by the chat template.
  if (isRecord(body) && Array.isArray(body.tools)) tokens += estimateTokens(JSON.stringify(body.tools));
  return tokens;
}
