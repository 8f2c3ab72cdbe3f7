/**
 * The model catalog: what umpire knows about each model id before it sends a request.
 *
 * Figures for H Company's models are the published ones (shared/reference/holo-api-facts.md).
 * An unknown id (a local vLLM, any other OpenAI-compatible server) gets `null` wherever umpire
 * does not know the answer. Prices are not here: the one price list is src/pricing.ts.
 */

export type Provider = "reference" | "hcompany" | "custom";

export interface ModelInfo {
  /** The id sent in requests (`reference:<profile>` keeps its profile suffix). */
  id: string;
  /** Human name, e.g. "Holo3.1". */
  name: string;
  provider: Provider;
  /** Base URL used when `--base-url` is not given; `null` for embedded and custom models. */
  defaultBaseUrl: string | null;
  contextTokens: number | null;
  maxOutputTokens: number | null;
  /** Native OpenAI function calling (`tools` + `tool_choice`). `null`: unknown, allowed. */
  functionCalling: boolean | null;
}

export const HCOMPANY_BASE_URL = "https://api.hcompany.ai/v1";

/** The id of umpire's embedded reference model (the default when no model is given). */
export const REFERENCE_MODEL_ID = "reference";

/** Published H Company models. */
const HCOMPANY_MODELS: readonly ModelInfo[] = [
  {
    id: "holo3-1-35b-a3b",
    name: "Holo3.1",
    provider: "hcompany",
    defaultBaseUrl: HCOMPANY_BASE_URL,
    contextTokens: 65_536,
    maxOutputTokens: 4_096,
    functionCalling: true,
  },
  {
    id: "holo3-122b-a10b",
    name: "Holo3",
    provider: "hcompany",
    defaultBaseUrl: HCOMPANY_BASE_URL,
    contextTokens: 65_536,
    maxOutputTokens: 32_768,
    functionCalling: false,
  },
];

/** Profiles are named by the reference model (src/sim); umpire only checks their spelling. */
const REFERENCE_ID = /^reference(?::([a-z0-9][a-z0-9-]*))?$/;

/** True for `reference` and `reference:<profile>`. */
export function isReferenceModelId(id: string): boolean {
  return REFERENCE_ID.test(id);
}

/** All catalogued H model ids, for help texts and error hints. */
export const HCOMPANY_MODEL_IDS: readonly string[] = HCOMPANY_MODELS.map((m) => m.id);

/**
 * What umpire knows about `id`. Never throws: an id it does not know is a `custom` model with
 * unknown limits, unknown function-calling support and unknown prices.
 */
export function lookupModel(id: string): ModelInfo {
  if (isReferenceModelId(id)) {
    return {
      id,
      name: "umpire reference model",
      provider: "reference",
      defaultBaseUrl: null,
      contextTokens: null,
      maxOutputTokens: null,
      functionCalling: true,
    };
  }
  const known = HCOMPANY_MODELS.find((m) => m.id === id);
  if (known) return { ...known };
  return {
    id,
    name: id,
    provider: "custom",
    defaultBaseUrl: null,
    contextTokens: null,
    maxOutputTokens: null,
    functionCalling: null,
  };
}

/**
 * The protocol a known vendor model id speaks natively, or null (Holo and unknown ids keep Holo's
 * modes): OpenAI's computer-use models (`computer-use-preview*`, gpt-5.4 and later), Anthropic's
 * Claude models, Gemini's computer-use models (`gemini-*computer-use*`), UI-TARS-1.5, Qwen2.5-VL and Qwen3-VL. Used when no mode was chosen; the agent's label then names the protocol.
 */
export function nativeProtocolOf(
  model: string,
): "openai-computer" | "anthropic-computer" | "gemini-computer" | "ui-tars" | "qwen2.5-vl" | "qwen3-vl" | null {
  if (/^computer-use-preview|^gpt-5\.(?:[4-9]|\d{2})|^gpt-(?:[6-9]|\d{2})/.test(model)) return "openai-computer";
  if (/^claude-/.test(model)) return "anthropic-computer";
  if (/^(?:models\/)?gemini-.*computer-use/.test(model)) return "gemini-computer";
  // Open-weight ids as vLLM serves them (Hugging Face names, e.g. ByteDance-Seed/UI-TARS-1.5-7B,
  // Qwen/Qwen2.5-VL-72B-Instruct). UI-TARS before 1.5 answers in thousandths, which umpire does not speak.
  const name = model.split("/").at(-1) ?? model;
  if (/^ui-tars-1\.5/i.test(name)) return "ui-tars";
  if (/^qwen2\.5-vl/i.test(name)) return "qwen2.5-vl";
  if (/^qwen3-vl/i.test(name)) return "qwen3-vl";
  return null;
}
