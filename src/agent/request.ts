/**
 * The chat completion request body, as it goes on the wire.
 *
 * H's extra fields (`structured_outputs`, `chat_template_kwargs`) and `reasoning_effort` are
 * TOP-LEVEL keys of this object: the openai SDK serialises the body as given, so they land at
 * the top level of the JSON. (Python's `extra_body=` is a client-side merge; a literal
 * `"extra_body"` key in the JSON is silently ignored by the API, so it is never written.)
 * `tools` + `tool_choice: "required"` appear only in tools mode and never together with
 * `structured_outputs`.
 */
import type { AgentConfig } from "./config.js";
import type { ChatMessage } from "./history.js";
import type { FunctionTool, JsonSchema } from "./step-schema.js";

export interface RequestInput {
  config: AgentConfig;
  messages: ChatMessage[];
  /** Structured mode: the step schema. */
  stepSchema: JsonSchema | null;
  /** Tools mode: the function declarations. */
  functionTools: FunctionTool[] | null;
  /** Sent as `user`: the reference model reads the fixture session id from it. */
  trialId: string;
}

/** Builds the JSON body for `POST /chat/completions`. */
export function buildRequestBody(input: RequestInput): Record<string, unknown> {
  const { config } = input;
  const body: Record<string, unknown> = {
    model: config.model,
    messages: input.messages,
    temperature: config.temperature,
    max_tokens: config.maxTokens,
    reasoning_effort: config.reasoningEffort,
    chat_template_kwargs: { enable_thinking: true },
    user: input.trialId,
  };
  if (config.mode === "structured") {
    if (!input.stepSchema) throw new Error("buildRequestBody: structured mode needs the step schema");
    body.structured_outputs = { json: input.stepSchema };
  } else {
    if (!input.functionTools) throw new Error("buildRequestBody: tools mode needs the function declarations");
    body.tools = input.functionTools;
    body.tool_choice = "required";
  }
  if (config.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  return body;
}
