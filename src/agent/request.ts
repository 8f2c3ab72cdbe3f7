/**
 * The chat completion request body, as it goes on the wire.
 *
 * H's extra fields (`structured_outputs`, `chat_template_kwargs`) and `reasoning_effort` are
 * TOP-LEVEL keys of this object: the openai SDK serialises the body as given, so they land at
 * the top level of the JSON. (Python's `extra_body=` is a client-side merge; a literal
 * `"extra_body"` key in the JSON is silently ignored by the API, so it is never written.)
 * The protocol's own output fields (`structured_outputs`, or `tools` + `tool_choice`; never both)
 * come from the protocol module and are written after the common ones, before the stream options.
 */
import type { AgentConfig } from "./config.js";
import type { ChatMessage } from "./history.js";

export interface RequestInput {
  config: AgentConfig;
  messages: ChatMessage[];
  /** The protocol's output fields, in the order they are written. */
  outputFields: Record<string, unknown>;
  /** Sent as `user`: the reference model reads the fixture session id from it. */
  trialId: string;
  /**
   * H's top-level fields (`reasoning_effort`, `chat_template_kwargs`), written unless false: Holo's
   * protocols send them, the other families' (Qwen, UI-TARS) do not.
   */
  holoFields?: boolean;
}

/** Builds the JSON body for `POST /chat/completions`. */
export function buildRequestBody(input: RequestInput): Record<string, unknown> {
  const { config } = input;
  const body: Record<string, unknown> = {
    model: config.model,
    messages: input.messages,
    temperature: config.temperature,
    max_tokens: config.maxTokens,
    ...(input.holoFields === false
      ? {}
      : { reasoning_effort: config.reasoningEffort, chat_template_kwargs: { enable_thinking: true } }),
    user: input.trialId,
    ...input.outputFields,
  };
  if (config.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}
