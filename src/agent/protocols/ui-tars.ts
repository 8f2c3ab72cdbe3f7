/**
 * UI-TARS-1.5 computer use, as bytedance/UI-TARS documents it, over an OpenAI-compatible endpoint
 * (vLLM serving the model, as the repository's README_deploy.md does): no tools, no response format.
 *
 * Sent: `You are a helpful assistant.` as the system message (OSWorld's `uitars_agent.py`, which the
 * repository points to for the full loop), the computer-use prompt with the instruction as the first
 * user message (`ui-tars-prompt.ts`), every observation a user message with the screenshot (the
 * original bytes, the server resizing them; or with the agent's minPixels/maxPixels, smart-resized by
 * umpire within them), the image budget applied, and each reply kept as the model
 * wrote it (`Thought: ...\nAction: ...`, reasoning outside it never). There is no tool-result turn in
 * this format: the next screenshot is the feedback, so a successful action adds nothing; a refused
 * or failed one is told in a user message, since the model cannot see why nothing happened.
 *
 * Parsed: `ui-tars-parse.ts`, a port of the repository's parser; points are pixels of the
 * smart-resized screenshot (factor 28, min 100x28x28, max 16384x28x28), mapped to umpire's
 * thousandths of the screenshot sent.
 */
import type { ProposedAction } from "../../toolbox/tools.js";
import { validateToolCall } from "../action-validation.js";
import { userTextMessage, type ChatMessage } from "../history.js";
import {
  actionId,
  looksLikeRefusal,
  refused,
  splitThink,
  type CallSlot,
  type InvalidProposal,
  type ParsedReply,
  type RawReply,
} from "../parse.js";
import { buildRequestBody } from "../request.js";
import { ChatConversation } from "./chat-conversation.js";
import type { Protocol, ProtocolSetup, ProtocolTools } from "./protocol.js";
import { QWEN_SYSTEM } from "./qwen.js";
import { mapUiTarsCall, parseUiTarsText } from "./ui-tars-parse.js";
import { UI_TARS_FACTOR, UI_TARS_MAX_PIXELS, UI_TARS_MIN_PIXELS, uiTarsPrompt } from "./ui-tars-prompt.js";
import { smartResize, type PixelBounds, type Size } from "./smart-resize.js";

const UI_TARS_PIXELS: PixelBounds = { factor: UI_TARS_FACTOR, min: UI_TARS_MIN_PIXELS, max: UI_TARS_MAX_PIXELS };
/**
 * What the published action space can say (`mapUiTarsCall`): click, left_double, type, hotkey, scroll,
 * wait and finished. The prompt is verbatim, so no function can be added beside it: no navigation, no
 * HTTP read, no note writer.
 */
const UI_TARS_TOOLS: ProtocolTools = {
  click: true,
  double_click: true,
  write: true,
  press: true,
  scroll: true,
  wait: true,
  navigate: false,
  go_back: false,
  answer: true,
  http_get: false,
  write_note: false,
};
const UNSUCCESSFUL_PREFIXES = ["Rejected: ", "Failed: ", "Skipped: "];

export class UiTarsConversation extends ChatConversation {
  private screen: Size = { width: 1000, height: 1000 };

  constructor(setup: ProtocolSetup) {
    const instruction = setup.config.policy ? `${setup.instruction}\n${setup.config.policy}` : setup.instruction;
    super(
      setup,
      [{ role: "system", content: QWEN_SYSTEM }, userTextMessage(uiTarsPrompt(instruction))],
      setup.config.imageBudget ?? 3,
    );
  }

  protected override pixelBounds(): PixelBounds {
    return UI_TARS_PIXELS;
  }

  protected override sentScreenshot(size: Size): void {
    this.screen = smartResize(size, UI_TARS_FACTOR, UI_TARS_MIN_PIXELS, UI_TARS_MAX_PIXELS);
  }

  request(): Record<string, unknown> {
    return buildRequestBody({
      config: this.config,
      messages: this.history,
      outputFields: {},
      trialId: this.setup.trialId,
      holoFields: false,
    });
  }

  protected parse(reply: RawReply, turn: number): ParsedReply {
    return parseUiTars(reply, this.setup.trialId, turn, this.setup.offered, this.screen);
  }

  /** Only what did not simply succeed is told: the screenshot shows the rest. */
  answer(_slot: CallSlot, text: string): void {
    if (UNSUCCESSFUL_PREFIXES.some((p) => text.startsWith(p))) this.history.push(userTextMessage(text));
  }
}

/** Reads one UI-TARS reply. Never throws on bad model output. */
export function parseUiTars(
  reply: RawReply,
  trialId: string,
  turn: number,
  offered: ProtocolSetup["offered"],
  screen: Size,
): ParsedReply {
  const { reasoning: leaked, rest } = splitThink(reply.content ?? "");
  const text = rest.trim();
  if (reply.refusal) return refused(reply.refusal, leaked);
  const base = { note: null, leakedReasoning: leaked };
  const firstId = actionId(trialId, turn, 1);
  const invalidReply = (
    kind: InvalidProposal["kind"],
    message: string,
    assistant: ChatMessage | null,
  ): ParsedReply => ({
    ...base,
    outcome: "invalid",
    actions: [],
    invalid: [{ id: firstId, kind, message }],
    slots: [{ id: firstId, tool: "none", valid: false, inAssistantMessage: false }],
    thought: null,
    assistant,
  });
  if (text === "")
    return invalidReply("empty_output", "your reply was empty; answer Thought: ... then Action: ...", null);
  const assistant: ChatMessage = { role: "assistant", content: text };
  const read = parseUiTarsText(text);
  if ("error" in read) {
    if (read.error === "no_tool_call" && looksLikeRefusal(text)) return refused(text, leaked);
    return invalidReply(read.error, read.message, assistant);
  }
  const actions: ProposedAction[] = [];
  const invalid: InvalidProposal[] = [];
  const slots: CallSlot[] = [];
  let firstRejected: string | null = null;
  read.calls.forEach((call, index) => {
    const id = actionId(trialId, turn, index + 1);
    const mapped = mapUiTarsCall(call, screen);
    let result = mapped.ok ? validateToolCall(id, mapped.tool, mapped.args, offered) : mapped;
    if (result.ok && firstRejected !== null) {
      result = { ok: false, kind: "skipped", message: `not run: action ${firstRejected} before it was rejected` };
    }
    if (result.ok) actions.push(result.action);
    else {
      firstRejected ??= id;
      invalid.push({ id, tool: call.name, kind: result.kind, message: result.message });
    }
    slots.push({ id, tool: call.name, valid: result.ok, inAssistantMessage: false });
  });
  return {
    ...base,
    outcome: actions.length > 0 ? "actions" : "invalid",
    actions,
    invalid,
    slots,
    thought: read.thought,
    assistant,
  };
}

export const uiTars: Protocol = {
  name: "ui-tars",
  family: "UI-TARS",
  summary: "UI-TARS-1.5 text actions (Thought / Action), pixels of the smart-resized screenshot",
  api: "chat-completions",
  knobs: { imageBudget: true, pixels: UI_TARS_PIXELS },
  tools: UI_TARS_TOOLS,
  open: (setup: ProtocolSetup) => new UiTarsConversation(setup),
};
