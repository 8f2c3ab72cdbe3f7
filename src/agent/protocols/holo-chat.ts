/**
 * The conversation both Holo protocols keep over the Chat Completions API (H's "Agent loop" page):
 * one system message, every observation a `user` message `<observation>\n` + screenshot +
 * `\n</observation>`, all but the image budget's newest screenshots evicted in place, only the
 * parsed output as the assistant message, and H's top-level request fields. What differs between
 * the two (the reply format, the request's output fields, the result layout) is the dialect each
 * protocol module hands in.
 */
import { FIELD_LIMIT, capDeep, capText } from "../../safety/limits.js";
import type { AgentConfig } from "../config.js";
import { evictOldImages, observationMessage, userTextMessage, type ChatMessage, type Observation } from "../history.js";
import type { CallSlot, ParseContext, ParsedReply, RawReply } from "../parse.js";
import { buildRequestBody } from "../request.js";
import type { ProtocolConversation, ProtocolSetup } from "./protocol.js";

/** A generous per-screenshot allowance for the pre-send estimate (a 1280x800 image is ~1.3k tokens). */
const IMAGE_TOKEN_ESTIMATE = 2_000;

/** What one Holo protocol adds to the shared conversation. */
export interface HoloDialect {
  /** The protocol's own request fields (`structured_outputs`, or `tools` + `tool_choice`). */
  outputFields: Record<string, unknown>;
  parse(reply: RawReply, ctx: ParseContext): ParsedReply;
  /** The message that carries one result back. */
  resultMessage(slot: CallSlot, text: string): ChatMessage;
}

/**
 * The assistant message as it goes back to the model: a 10 MB note is not echoed whole on every
 * turn. Structured steps keep their JSON shape with each long field cut; text is cut as text.
 */
function capAssistant(message: ChatMessage): ChatMessage {
  const content = (message as { content?: unknown }).content;
  if (typeof content !== "string" || content.length <= FIELD_LIMIT) return message;
  let capped: string;
  try {
    capped = JSON.stringify(capDeep(JSON.parse(content), FIELD_LIMIT).value);
  } catch {
    capped = capText(content, FIELD_LIMIT);
  }
  return { ...message, content: capped } as ChatMessage;
}

export class HoloChatConversation implements ProtocolConversation {
  private readonly history: ChatMessage[];
  private readonly config: AgentConfig;

  constructor(
    private readonly setup: ProtocolSetup,
    system: string,
    private readonly dialect: HoloDialect,
  ) {
    this.config = setup.config;
    this.history = [{ role: "system", content: system }];
  }

  observe(observation: Observation): void {
    this.history.push(observationMessage(observation));
    evictOldImages(this.history, this.config.imageBudget);
  }

  request(): Record<string, unknown> {
    return buildRequestBody({
      config: this.config,
      messages: this.history,
      outputFields: this.dialect.outputFields,
      trialId: this.setup.trialId,
    });
  }

  read(reply: RawReply, turn: number): ParsedReply {
    const parsed = this.dialect.parse(reply, { trialId: this.setup.trialId, turn, offered: this.setup.offered });
    if (parsed.assistant) this.history.push(capAssistant(parsed.assistant));
    return parsed;
  }

  answer(slot: CallSlot, text: string): void {
    this.history.push(this.dialect.resultMessage(slot, text));
  }

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
    images = Math.min(images, 3); // all but the last 3 are evicted before sending
    return Math.ceil(chars / 4) + images * IMAGE_TOKEN_ESTIMATE;
  }
}
