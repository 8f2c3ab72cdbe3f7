/**
 * What every Chat Completions protocol's conversation keeps the same way (Holo's two, Qwen's, UI-TARS's):
 * the history opened by the protocol's first messages, every observation appended as a user message
 * with the screenshot and all but the image budget's newest screenshots evicted in place, the kept
 * part of each reply appended, plain user text, a copy of the messages, and the pre-send estimate of
 * the input tokens. Each protocol says what it sends (`request`), how it reads a reply (`parse`) and
 * how a result goes back (`answer`).
 */
import type { AgentConfig } from "../config.js";
import { evictOldImages, observationMessage, userTextMessage, type ChatMessage, type Observation } from "../history.js";
import type { CallSlot, ParsedReply, RawReply } from "../parse.js";
import type { ProtocolConversation, ProtocolSetup } from "./protocol.js";
import { agentPixelBounds, resizedToBounds, screenshotSize, type PixelBounds, type Size } from "./smart-resize.js";

/** A generous per-screenshot allowance for the pre-send estimate (a 1280x800 image is ~1.3k tokens). */
const IMAGE_TOKEN_ESTIMATE = 2_000;

export abstract class ChatConversation implements ProtocolConversation {
  protected readonly history: ChatMessage[];
  protected readonly config: AgentConfig;

  /**
   * `opening`: the system message and whatever the protocol sends before the first observation.
   * `imagesEstimated`: how many screenshots the estimate counts at most (those the budget keeps).
   */
  constructor(
    protected readonly setup: ProtocolSetup,
    opening: ChatMessage[],
    private readonly imagesEstimated: number,
  ) {
    this.config = setup.config;
    this.history = opening;
  }

  observe(observation: Observation): void {
    // With the agent's minPixels/maxPixels, umpire smart-resizes the screenshot itself (the server's resize is then a no-op).
    const family = this.pixelBounds();
    const sent = family ? resizedToBounds(observation, agentPixelBounds(family, this.config)) : observation;
    this.history.push(observationMessage(sent));
    evictOldImages(this.history, this.config.imageBudget);
    const size = family && sent.screenshot ? screenshotSize(sent.screenshot.data) : null;
    if (size) this.sentScreenshot(size);
  }

  /** The family's smart_resize bounds, for a protocol whose model resizes screenshots (Qwen, UI-TARS); else null. */
  protected pixelBounds(): PixelBounds | null {
    return null;
  }

  /** Told the size of each screenshot as sent (protocols with pixel bounds): the frame of the model's coordinates. */
  protected sentScreenshot(_size: Size): void {}

  abstract request(): Record<string, unknown>;

  /** Reads one reply into umpire's actions; `read` appends what history keeps of it. */
  protected abstract parse(reply: RawReply, turn: number): ParsedReply;

  /** The assistant message as history keeps it (as parsed, unless a protocol cuts it). */
  protected kept(assistant: ChatMessage): ChatMessage {
    return assistant;
  }

  read(reply: RawReply, turn: number): ParsedReply {
    const parsed = this.parse(reply, turn);
    if (parsed.assistant) this.history.push(this.kept(parsed.assistant));
    return parsed;
  }

  abstract answer(slot: CallSlot, text: string): void;

  addUserText(text: string): void {
    this.history.push(userTextMessage(text));
  }

  messages(): ChatMessage[] {
    return structuredClone(this.history);
  }

  /**
   * About 4 characters a token for text, a fixed allowance per image: the loop uses it while the
   * server has not reported usage, so a 20 MB instruction is refused instead of sent.
   */
  estimateInputTokens(observation: Observation): number {
    let chars = 0;
    let images = 0;
    for (const message of [...this.history, observationMessage(observation)]) {
      const content = (message as { content?: unknown }).content;
      if (typeof content === "string") chars += content.length;
      else if (Array.isArray(content)) {
        for (const part of content as { type?: string; text?: string }[]) {
          if (part.type === "image_url") images += 1;
          else if (typeof part.text === "string") chars += part.text.length;
        }
      }
    }
    return Math.ceil(chars / 4) + Math.min(images, this.imagesEstimated) * IMAGE_TOKEN_ESTIMATE;
  }
}

/** A function call's result as a `tool` message with the call's id; a slot the assistant message does not carry (text, no call) has no id to answer, so it is a plain user message. */
export function toolResultMessage(slot: CallSlot, text: string): ChatMessage {
  return slot.inAssistantMessage ? { role: "tool", tool_call_id: slot.id, content: text } : userTextMessage(text);
}
