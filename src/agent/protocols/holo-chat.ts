/**
 * The conversation both Holo protocols keep over the Chat Completions API (H's "Agent loop" page):
 * one system message, every observation a `user` message `<observation>\n` + screenshot +
 * `\n</observation>`, all but the image budget's newest screenshots evicted in place, only the
 * parsed output as the assistant message, and H's top-level request fields. What differs between
 * the two (the reply format, the request's output fields, the result layout) is the dialect each
 * protocol module hands in.
 */
import { FIELD_LIMIT, capDeep, capText } from "../../safety/limits.js";
import type { ToolName } from "../../toolbox/tools.js";
import type { ChatMessage } from "../history.js";
import type { CallSlot, ParseContext, ParsedReply, RawReply } from "../parse.js";
import { buildRequestBody } from "../request.js";
import { ChatConversation } from "./chat-conversation.js";
import type { ProtocolSetup } from "./protocol.js";

/** What a Holo protocol's system prompt is written from. */
export interface HoloPromptInput {
  instruction: string;
  tools: readonly ToolName[];
  imageBudget?: number;
  policy?: string;
}

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

export class HoloChatConversation extends ChatConversation {
  constructor(
    setup: ProtocolSetup,
    system: string,
    private readonly dialect: HoloDialect,
  ) {
    // The estimate counts 3 screenshots at most, whatever the budget.
    super(setup, [{ role: "system", content: system }], 3);
  }

  request(): Record<string, unknown> {
    return buildRequestBody({
      config: this.config,
      messages: this.history,
      outputFields: this.dialect.outputFields,
      trialId: this.setup.trialId,
    });
  }

  protected parse(reply: RawReply, turn: number): ParsedReply {
    return this.dialect.parse(reply, { trialId: this.setup.trialId, turn, offered: this.setup.offered });
  }

  protected override kept(assistant: ChatMessage): ChatMessage {
    return capAssistant(assistant);
  }

  answer(slot: CallSlot, text: string): void {
    this.history.push(this.dialect.resultMessage(slot, text));
  }
}

/** A Holo conversation: the system prompt written from the trial's setup by the protocol's `prompt`, then its dialect. */
export function openHoloConversation(
  setup: ProtocolSetup,
  prompt: (input: HoloPromptInput) => string,
  dialect: HoloDialect,
): HoloChatConversation {
  const { config } = setup;
  const system = prompt({
    instruction: setup.instruction,
    tools: setup.offered,
    ...(config.imageBudget !== undefined && { imageBudget: config.imageBudget }),
    ...(config.policy !== undefined && { policy: config.policy }),
  });
  return new HoloChatConversation(setup, system, dialect);
}
