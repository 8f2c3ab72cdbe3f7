/**
 * What a model family's computer-use protocol is, as umpire's agent session uses it: what goes into
 * a request, how a reply becomes umpire's actions, how a result goes back, and how history and
 * images are kept. One module per protocol implements it; `registry.ts` lists them all, keyed by
 * name, so a protocol added to the names (`OUTPUT_MODES`, `src/vocabulary.ts`) does not compile
 * until it has an entry.
 *
 * The session (`../session.ts`) owns what every protocol shares: the HTTP client, retries,
 * timing, the turn counter, cut-off detection, and answering every call of a turn in order
 * (merging its own rejections of invalid proposals with the executor's results). A protocol owns
 * the conversation's wire shape and nothing else.
 */
import type { ToolName } from "../../toolbox/tools.js";
import type { OutputMode } from "../../vocabulary.js";
import type { AgentConfig } from "../config.js";
import type { ChatMessage, Observation } from "../history.js";
import type { CallSlot, ParsedReply } from "../parse.js";
import type { ModelReply } from "../reply.js";

/** A protocol's name: what `--mode`, `agents.<name>.mode` and a stored trial's `mode` say. */
export type ProtocolName = OutputMode;

/**
 * Which HTTP API a protocol's requests go to (the session's client picks the SDK call from it):
 * `chat-completions` (POST /chat/completions), `responses` (OpenAI's POST /responses), `messages`
 * (Anthropic's POST /v1/messages, through `@anthropic-ai/sdk`), `generate-content` (Gemini's POST
 * /v1beta/models/{model}:generateContent, through `@google/genai`; the request is that SDK's
 * `generateContent` parameters). The reply reaches the protocol as a `ModelReply` whose `raw` is the
 * whole response body.
 */
export type ProtocolApi = "chat-completions" | "responses" | "messages" | "generate-content";

/** What a protocol is told when a trial's conversation starts. */
export interface ProtocolSetup {
  config: AgentConfig;
  /** The task instruction, verbatim. */
  instruction: string;
  /** The tools offered this trial (the task's, narrowed by the agent), in canonical order. */
  offered: readonly ToolName[];
  trialId: string;
}

export interface Protocol {
  readonly name: ProtocolName;
  /** The model family whose documentation the protocol follows, e.g. "Holo". */
  readonly family: string;
  /** One line for `--help` and the docs. */
  readonly summary: string;
  readonly api: ProtocolApi;
  /**
   * The family's own knobs an `agents:` entry may set for it. The config refuses any other on an
   * agent of this protocol (file, field, fix), so no knob is ever accepted and silently not sent.
   */
  readonly knobs: ProtocolKnobs;
  /**
   * For each of umpire's tools, whether the protocol can offer it to the model (an action of the
   * family's own, or a function beside it). A task whose gold uses a tool this says `false` for is not
   * playable in the protocol (`playable.ts`): the self-test says so and `umpire run` does not play it.
   */
  readonly tools: ProtocolTools;
  /** Starts one trial's conversation (its system prompt written, no observation yet). */
  open(setup: ProtocolSetup): ProtocolConversation;
}

/** Every tool of umpire's toolbox, each with whether a protocol can offer it (a tool added to the toolbox must be decided in each). */
export type ProtocolTools = Readonly<Record<ToolName, boolean>>;

/**
 * Which of the family knobs a protocol reads from its `AgentConfig`, each of which changes what is sent:
 * - `imageBudget`: screenshots kept in context (older ones evicted);
 * - `reasoningEffort`: the request's reasoning effort;
 * - `displaySize`: the screen declared to the model; each screenshot is scaled down to fit it;
 * - `promptCaching`: the documented cache breakpoints, on (the default) or off;
 * - `computerTool`: Anthropic's computer tool, by model id (`auto`) or a named version or toolset;
 * - `pixels`: `minPixels`/`maxPixels`, the smart_resize bounds umpire resizes each screenshot to
 *   before sending (both sides multiples of `factor`), within the family's own bounds [min, max].
 */
export interface ProtocolKnobs {
  readonly imageBudget?: true;
  readonly reasoningEffort?: true;
  readonly displaySize?: true;
  readonly promptCaching?: true;
  readonly computerTool?: true;
  readonly pixels?: { readonly factor: number; readonly min: number; readonly max: number };
}

/** One trial's conversation in a protocol's wire shape. */
export interface ProtocolConversation {
  /** Appends the observation and applies the image budget (older screenshots evicted). */
  observe(observation: Observation): void;
  /** The request body to send now, as the SDK serialises it. */
  request(): Record<string, unknown>;
  /**
   * Reads a reply that arrived whole: the actions, the invalid proposals and the call slots the
   * results will answer. Appends to history what the protocol keeps of it (never the reasoning).
   */
  read(reply: ModelReply, turn: number): ParsedReply;
  /** Answers one call slot of the last reply with the result text the model reads. */
  answer(slot: CallSlot, text: string): void;
  /** Appends a plain user message (reflection prompts). */
  addUserText(text: string): void;
  /** A copy of the conversation as it will be sent. */
  messages(): ChatMessage[];
  /** Input tokens the next request would take with `observation` added, estimated before sending. */
  estimateInputTokens(observation: Observation): number;
}
