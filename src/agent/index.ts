/**
 * umpire's model side: configuration, the two Holo protocols (structured outputs and native
 * function calling), prompt and message layout, image budget, parsing, client, usage.
 * The runner and the CLI import from here; see ARCHITECTURE.md "Agent (model side) contract".
 */
export { agentDefinitionHash } from "./config.js";
export {
  AgentConfigSchema,
  DEFAULT_API_KEY_ENV,
  DEFAULT_MAX_TOKENS,
  DEFAULT_RETRY_POLICY,
  DEFAULT_TEMPERATURE,
  REASONING_EFFORTS,
  readApiKey,
  redactConfig,
  resolveAgentConfigs,
  withoutCredentials,
  apiKeyEnvProblem,
  type AgentConfig,
  type AgentOptions,
  type Endpoint,
  type ReasoningEffort,
  type RetryPolicy,
} from "./config.js";
export {
  HCOMPANY_BASE_URL,
  HCOMPANY_MODEL_IDS,
  REFERENCE_MODEL_ID,
  isReferenceModelId,
  lookupModel,
  type ModelInfo,
  type Provider,
} from "./models.js";
export { createAgentSession, type AgentSession, type AgentSessionOptions, type Turn, type TurnError } from "./session.js";
export {
  EVICTED_PLACEHOLDER,
  DEFAULT_IMAGE_BUDGET,
  IMAGE_BUDGET,
  MAX_IMAGE_BUDGET,
  evictOldImages,
  observationMessage,
  type ChatMessage,
  type Observation,
  type ToolResult,
} from "./history.js";
export { INVALID_KINDS, validateToolCall, type InvalidKind } from "./action-validation.js";
export { actionId, looksLikeRefusal, parseReply, splitThink, type InvalidProposal, type RawToolCall } from "./parse.js";
export { buildSystemPrompt, outputFormatBlock } from "./prompt.js";
export { buildFunctionTools, buildStepSchema, toolParametersSchema, type FunctionTool, type JsonSchema } from "./step-schema.js";
export { buildRequestBody } from "./request.js";
export { readUsage } from "./usage.js";
export type { AttemptFailure, FetchFunction } from "./client.js";
export type { FailureKind } from "./retry.js";
export { preflight, type PreflightResult, type PreflightTarget } from "./preflight.js";
export { createEndpointFetch, ConnectTimeoutError, DEFAULT_CONNECT_TIMEOUT_MS } from "./http-fetch.js";
