/**
 * Agent configuration: turning the CLI's model options into one `AgentConfig` per output mode,
 * and refusing, before any trial starts, every configuration that cannot work.
 *
 * An `AgentConfig` never holds an API key. It names the environment variable the key comes
 * from (`apiKeyEnv`); the CLI reads the key and hands it to the session in memory. So a config
 * can be stored and printed as it is; `redactConfig()` additionally strips credentials someone
 * may have put inside a base URL.
 */
import { z } from "zod";
import { UmpireError } from "../errors.js";
import { HOLO_MODES, OUTPUT_MODES, type OutputMode } from "../vocabulary.js";
import { TOOL_NAMES, type ToolName } from "../toolbox/tools.js";
import { definitionHash } from "../definition-hash.js";
import { DEFAULT_IMAGE_BUDGET, MAX_IMAGE_BUDGET } from "./history.js";
import { COMPUTER_TOOL_CHOICES } from "./protocols/anthropic-toolset.js";
import { HCOMPANY_BASE_URL, HCOMPANY_MODEL_IDS, REFERENCE_MODEL_ID, lookupModel } from "./models.js";

export const REASONING_EFFORTS = ["low", "medium", "high"] as const;
export type ReasoningEffort = (typeof REASONING_EFFORTS)[number];

export const DEFAULT_API_KEY_ENV = "HAI_API_KEY";
/** Room for ~1.5k reasoning tokens before the JSON step (H saw 250 reasoning tokens eat max_tokens 300). */
export const DEFAULT_MAX_TOKENS = 2048;
export const DEFAULT_TEMPERATURE = 0.8;

const RetryPolicySchema = z
  .object({
    /** Retries after the first attempt (so `maxRetries + 1` requests at most). */
    maxRetries: z.number().int().min(0).max(20),
    /** First backoff delay; doubles on each retry, with jitter. */
    baseDelayMs: z.number().int().min(0),
    /** Upper bound of one computed backoff delay. */
    maxDelayMs: z.number().int().min(0),
    /** Upper bound of a server-requested `retry-after` wait. */
    retryAfterCapMs: z.number().int().min(0),
  })
  .strict();
export type RetryPolicy = z.infer<typeof RetryPolicySchema>;

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 4,
  baseDelayMs: 1_000,
  maxDelayMs: 30_000,
  retryAfterCapMs: 60_000,
};

const Endpoint = z.discriminatedUnion("kind", [
  /** The reference model, started by the runner, which supplies its URL to the session. */
  z.object({ kind: z.literal("embedded") }).strict(),
  z.object({ kind: z.literal("url"), baseUrl: z.string().url() }).strict(),
]);
export type Endpoint = z.infer<typeof Endpoint>;

export const AgentConfigSchema = z
  .object({
    /** Short name used in tables, e.g. `reference/structured`, `holo3-1-35b-a3b/tools`. */
    label: z.string().min(1),
    model: z.string().min(1),
    provider: z.enum(["reference", "hcompany", "custom"]),
    mode: z.enum(OUTPUT_MODES),
    endpoint: Endpoint,
    /** Name of the environment variable holding the key; `null` when no key is sent. */
    apiKeyEnv: z.string().nullable(),
    temperature: z.number().min(0).max(2),
    reasoningEffort: z.enum(REASONING_EFFORTS),
    maxTokens: z.number().int().positive(),
    stream: z.boolean(),
    requestTimeoutMs: z.number().int().positive(),
    retry: RetryPolicySchema,
    /** The agent's name from the config file's `agents:`; absent for an agent made of --model/--mode. */
    name: z.string().min(1).optional(),
    /** Screenshots kept in context (default DEFAULT_IMAGE_BUDGET); never above the lint's limit. */
    imageBudget: z.number().int().min(1).max(MAX_IMAGE_BUDGET).optional(),
    /** The screen declared to the model (OpenAI, Anthropic, Gemini computer tools); each screenshot is scaled down to fit it. */
    displaySize: z
      .object({ width: z.number().int().min(64).max(8192), height: z.number().int().min(64).max(8192) })
      .strict()
      .optional(),
    /** Qwen and UI-TARS: the smart_resize bounds umpire resizes each screenshot to before sending it. */
    minPixels: z.number().int().positive().optional(),
    maxPixels: z.number().int().positive().optional(),
    /** Anthropic: the documented prompt-caching breakpoints (default on). */
    promptCaching: z.boolean().optional(),
    /** Anthropic: the computer tool sent (`auto`: the single tool's version by model id). */
    computerTool: z.enum(COMPUTER_TOOL_CHOICES).optional(),
    /** The system prompt's policy text (replaces umpire's default policy lines); the protocol parts stay generated. */
    policy: z.string().min(1).optional(),
    /** The tools this agent may use; each trial offers their intersection with the task's. */
    tools: z
      .array(z.enum(TOOL_NAMES as [ToolName, ...ToolName[]]))
      .min(1)
      .optional(),
    /** The loop's knobs for this agent; unset ones come from the run's options. */
    loop: z
      .object({
        repetitionWindow: z.number().int().min(2).max(20).optional(),
        recoveryLimit: z.number().int().min(0).max(10).optional(),
        maxInvalidOutputs: z.number().int().min(1).max(20).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();
export type AgentConfig = z.infer<typeof AgentConfigSchema>;

/** The model options as the CLI collected them (strings are accepted for numbers). */
export interface AgentOptions {
  model?: string;
  baseUrl?: string;
  mode?: string;
  apiKeyEnv?: string;
  temperature?: number | string;
  reasoningEffort?: string;
  maxTokens?: number | string;
  stream?: boolean;
  requestTimeoutMs?: number;
  retry?: Partial<RetryPolicy>;
  /** Where API keys are looked up to check they exist; defaults to `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * One `AgentConfig` per requested mode (`--mode both` gives structured then tools).
 * @throws UmpireError `usage` for malformed values, `config` for a configuration that cannot
 *   work: tools mode on a model without function calling, an unknown model id without
 *   `--base-url`, a missing API key, `--max-tokens` above the model's output limit.
 */
export function resolveAgentConfigs(options: AgentOptions = {}): AgentConfig[] {
  const env = options.env ?? process.env;
  const model = (options.model ?? REFERENCE_MODEL_ID).trim();
  if (model === "") throw new UmpireError("usage", "--model: empty model id", `Use e.g. --model ${REFERENCE_MODEL_ID}`);
  const info = lookupModel(model);
  const modes = parseModes(options.mode);

  if (info.functionCalling === false && modes.includes("tools")) {
    throw new UmpireError(
      "config",
      `${model} (${info.name}) has no native function calling, so --mode ${options.mode ?? "tools"} cannot run on it`,
      "Use --mode structured (structured outputs work on every Holo model).",
    );
  }

  const endpoint = resolveEndpoint(model, info.defaultBaseUrl, info.provider, options.baseUrl);
  const apiKeyEnv = resolveApiKeyEnv(endpoint, options.apiKeyEnv);
  if (apiKeyEnv !== null && !env[apiKeyEnv]) {
    const where = endpoint.kind === "url" ? withoutCredentials(endpoint.baseUrl) : "the embedded endpoint";
    throw new UmpireError(
      "config",
      `${model} at ${where} needs an API key, but the environment variable ${apiKeyEnv} is not set`,
      `Export ${apiKeyEnv}=<your key>, or name the variable that holds it with --api-key-env.`,
    );
  }

  const maxTokens = resolveMaxTokens(options.maxTokens, info.maxOutputTokens, model);
  const common = {
    model,
    provider: info.provider,
    endpoint,
    apiKeyEnv,
    temperature: parseNumberOption("--temperature", options.temperature, DEFAULT_TEMPERATURE, 0, 2),
    reasoningEffort: parseEffort(options.reasoningEffort),
    maxTokens,
    stream: options.stream ?? false,
    requestTimeoutMs: options.requestTimeoutMs ?? 120_000,
    retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
  };
  return modes.map((mode) => AgentConfigSchema.parse({ ...common, mode, label: `${model}/${mode}` }));
}

/**
 * The hash of an agent's resolved definition: everything that changes what the agent does (model,
 * endpoint, mode, sampling, image budget, policy text, tools, loop knobs, family knobs), and nothing that only
 * names it (label, name) or prices it. Two runs of an agent of the same name with different hashes
 * are not like-for-like; `compare` says so. Endpoints are hashed without credentials.
 */
export function agentDefinitionHash(config: AgentConfig): string {
  const c = redactConfig(config);
  return definitionHash({
    model: c.model,
    endpoint: c.endpoint,
    mode: c.mode,
    temperature: c.temperature,
    reasoningEffort: c.reasoningEffort,
    maxTokens: c.maxTokens,
    imageBudget: c.imageBudget ?? DEFAULT_IMAGE_BUDGET,
    policy: c.policy ?? null,
    tools: c.tools ? [...c.tools].sort() : null,
    loop: c.loop ?? {},
    // The family knobs only when set, so an agent without them keeps the hash it had before they existed.
    ...(c.displaySize && { displaySize: c.displaySize }),
    ...(c.minPixels !== undefined && { minPixels: c.minPixels }),
    ...(c.maxPixels !== undefined && { maxPixels: c.maxPixels }),
    ...(c.promptCaching !== undefined && { promptCaching: c.promptCaching }),
    ...(c.computerTool !== undefined && { computerTool: c.computerTool }),
  });
}

/** The key for `config`, read from `env`; `undefined` when the config needs none. */
export function readApiKey(
  config: AgentConfig,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string | undefined {
  return config.apiKeyEnv === null ? undefined : env[config.apiKeyEnv] || undefined;
}

/**
 * A copy of `config` safe to store or print. `AgentConfig` carries no key by construction; this
 * also drops user info and query strings from the base URL, where people sometimes put tokens.
 */
export function redactConfig(config: AgentConfig): AgentConfig {
  const copy: AgentConfig = structuredClone(config);
  if (copy.endpoint.kind === "url") copy.endpoint = { kind: "url", baseUrl: withoutCredentials(copy.endpoint.baseUrl) };
  return copy;
}

/** `baseUrl` without user info, query or fragment (where tokens hide), for storage and messages. */
export function withoutCredentials(baseUrl: string): string {
  const url = new URL(baseUrl);
  url.username = "";
  url.password = "";
  url.search = "";
  url.hash = "";
  return url.toString().replace(/\/$/, "");
}

function parseModes(mode: string | undefined): OutputMode[] {
  const m = mode ?? "structured";
  if (m === "both") return [...HOLO_MODES];
  if ((OUTPUT_MODES as readonly string[]).includes(m)) return [m as OutputMode];
  throw new UmpireError(
    "usage",
    `--mode: unknown mode '${m}'`,
    `Use --mode ${[...OUTPUT_MODES, "both"].join(", --mode ")}.`,
  );
}

function resolveEndpoint(
  model: string,
  defaultBaseUrl: string | null,
  provider: string,
  baseUrl: string | undefined,
): Endpoint {
  if (baseUrl !== undefined) return { kind: "url", baseUrl: normaliseBaseUrl(baseUrl) };
  if (provider === "reference") return { kind: "embedded" };
  if (defaultBaseUrl !== null) return { kind: "url", baseUrl: defaultBaseUrl };
  throw new UmpireError(
    "config",
    `model '${model}' is not one umpire knows, so it has no default endpoint`,
    `Give its OpenAI-compatible endpoint with --base-url (e.g. http://localhost:8000/v1 for a local vLLM), ` +
      `or use one of: ${[REFERENCE_MODEL_ID, ...HCOMPANY_MODEL_IDS].join(", ")}.`,
  );
}

function normaliseBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UmpireError("usage", `--base-url: '${raw}' is not a URL`, "Use e.g. --base-url http://localhost:8000/v1");
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new UmpireError("usage", `--base-url: only http and https are supported, got ${url.protocol}`);
  }
  return url.toString().replace(/\/+$/, "");
}

/**
 * Which environment variable holds the key, or `null` when none is sent. H's endpoint always
 * needs one. A custom endpoint gets a key only when `--api-key-env` names one explicitly:
 * otherwise H's key (HAI_API_KEY) would be sent to whatever server `--base-url` points at.
 */
function resolveApiKeyEnv(endpoint: Endpoint, explicit: string | undefined): string | null {
  const problem = explicit === undefined ? null : apiKeyEnvProblem(explicit);
  if (problem !== null) {
    // Never echo the value: people paste the key itself here.
    throw new UmpireError(
      "usage",
      `--api-key-env: ${problem}`,
      `Put the key in an environment variable and pass its name, e.g. --api-key-env ${DEFAULT_API_KEY_ENV}.`,
    );
  }
  if (endpoint.kind === "embedded") return null;
  if (isHCompanyHost(endpoint.baseUrl)) return explicit ?? DEFAULT_API_KEY_ENV;
  return explicit ?? null;
}

function isHCompanyHost(baseUrl: string): boolean {
  const host = new URL(baseUrl).hostname;
  return host === new URL(HCOMPANY_BASE_URL).hostname || host.endsWith(".hcompany.ai");
}

function resolveMaxTokens(raw: number | string | undefined, modelMax: number | null, model: string): number {
  const fallback = modelMax === null ? DEFAULT_MAX_TOKENS : Math.min(DEFAULT_MAX_TOKENS, modelMax);
  const value = parseNumberOption("--max-tokens", raw, fallback, 1, Number.MAX_SAFE_INTEGER);
  if (!Number.isInteger(value)) throw new UmpireError("usage", `--max-tokens: expected a whole number, got ${value}`);
  if (modelMax !== null && value > modelMax) {
    throw new UmpireError(
      "config",
      `--max-tokens ${value} is above ${model}'s maximum output of ${modelMax} tokens`,
      `Use --max-tokens ${modelMax} or less.`,
    );
  }
  return value;
}

function parseNumberOption(
  flag: string,
  raw: number | string | undefined,
  fallback: number,
  min: number,
  max: number,
): number {
  if (raw === undefined) return fallback;
  const value = typeof raw === "number" ? raw : Number(raw.trim() === "" ? NaN : raw);
  if (!Number.isFinite(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `in [${min}, ${max}]`;
    throw new UmpireError("usage", `${flag}: expected a number ${range}, got '${raw}'`);
  }
  return value;
}

function parseEffort(raw: string | undefined): ReasoningEffort {
  if (raw === undefined) return "medium";
  if ((REASONING_EFFORTS as readonly string[]).includes(raw)) return raw as ReasoningEffort;
  throw new UmpireError("usage", `--reasoning-effort: unknown value '${raw}'`, "Use low, medium or high.");
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Why `value` cannot be the NAME of the variable that holds a key, or null when it can. The
 * message never contains the value: people paste the key itself where its variable's name belongs.
 * A key is told from a name by its shape, not by a prefix: a name is words joined by `_`
 * (`HAI_API_KEY`, `HF_TOKEN`, `XAI_API_KEY`: the `hf_`/`xai_` of a key's prefix is also a word of a
 * name, issue #38), a key holds a long random run: a part between `_` of 16 or more characters with
 * letters and digits, or of 24 or more in mixed case (`hf_AbC...`, `gsk_...`), or anything of 16 or
 * more characters that is no variable name at all (`sk-...`, `xai-...`).
 */
export function apiKeyEnvProblem(value: string): string | null {
  const randomRun = (part: string) =>
    (part.length >= 16 && /[A-Za-z]/.test(part) && /\d/.test(part)) ||
    (part.length >= 24 && /[a-z]/.test(part) && /[A-Z]/.test(part));
  const keyLike = VARIABLE_NAME.test(value)
    ? value.split("_").some(randomRun)
    : value.length >= 16 || /^(?:sk|pk|rk|hf|gsk|xai|hai|key)-/i.test(value);
  if (keyLike)
    return "looks like a key, not a variable name (its value is not shown): put the key in an environment variable and give that variable's NAME";
  if (!VARIABLE_NAME.test(value)) return "expected the NAME of an environment variable (letters, digits, '_')";
  return null;
}
