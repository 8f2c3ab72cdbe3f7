/**
 * The model catalog: what umpire knows about each model id before it sends a request.
 *
 * Figures for H Company's models are the published ones (shared/reference/holo-api-facts.md).
 * An unknown id (a local vLLM, any other OpenAI-compatible server) gets `null` wherever umpire
 * does not know the answer: a price of `null` means "unknown", never "free", so reports can say
 * "cost unavailable" instead of printing a misleading $0.
 */

export type Provider = "reference" | "hcompany" | "custom";

/** USD per one million tokens. `null`: the price is not known. */
export interface ModelPricing {
  inputPerMillion: number | null;
  outputPerMillion: number | null;
  /** Price of prompt tokens served from the provider's cache; `null` when unknown. */
  cachedInputPerMillion: number | null;
}

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
  pricing: ModelPricing;
}

export const HCOMPANY_BASE_URL = "https://api.hcompany.ai/v1";

/** The id of umpire's embedded reference model (the default when no model is given). */
export const REFERENCE_MODEL_ID = "reference";

const UNKNOWN_PRICING: ModelPricing = { inputPerMillion: null, outputPerMillion: null, cachedInputPerMillion: null };

/** Published H Company models. Cached-input prices are not published, hence `null`. */
const HCOMPANY_MODELS: readonly ModelInfo[] = [
  {
    id: "holo3-1-35b-a3b",
    name: "Holo3.1",
    provider: "hcompany",
    defaultBaseUrl: HCOMPANY_BASE_URL,
    contextTokens: 65_536,
    maxOutputTokens: 4_096,
    functionCalling: true,
    pricing: { inputPerMillion: 0.25, outputPerMillion: 1.8, cachedInputPerMillion: null },
  },
  {
    id: "holo3-122b-a10b",
    name: "Holo3",
    provider: "hcompany",
    defaultBaseUrl: HCOMPANY_BASE_URL,
    contextTokens: 65_536,
    maxOutputTokens: 32_768,
    functionCalling: false,
    pricing: { inputPerMillion: 0.4, outputPerMillion: 3.0, cachedInputPerMillion: null },
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
      // The reference model runs inside umpire: it really costs nothing.
      pricing: { inputPerMillion: 0, outputPerMillion: 0, cachedInputPerMillion: 0 },
    };
  }
  const known = HCOMPANY_MODELS.find((m) => m.id === id);
  if (known) return { ...known, pricing: { ...known.pricing } };
  return {
    id,
    name: id,
    provider: "custom",
    defaultBaseUrl: null,
    contextTokens: null,
    maxOutputTokens: null,
    functionCalling: null,
    pricing: { ...UNKNOWN_PRICING },
  };
}

/** Token counts a cost is computed from; `null` fields are "the server did not say". */
export interface CostableUsage {
  inputTokens: number | null;
  outputTokens: number | null;
  cachedTokens: number | null;
}

/**
 * USD cost of one request, or `null` when a needed price or count is unknown.
 * Reasoning tokens are part of `outputTokens` (OpenAI convention), so they are not added again.
 * Cached prompt tokens are billed at the cached price when one is known, else at the input price.
 *
 * Example (H's docs): 21,166 in + 307 out on holo3-122b-a10b = 0.0093874 USD.
 */
export function requestCostUsd(usage: CostableUsage, pricing: ModelPricing): number | null {
  const { inputPerMillion, outputPerMillion } = pricing;
  if (inputPerMillion === null || outputPerMillion === null) return null;
  if (usage.inputTokens === null || usage.outputTokens === null) return null;
  const cached = Math.min(usage.cachedTokens ?? 0, usage.inputTokens);
  const cachedPrice = pricing.cachedInputPerMillion ?? inputPerMillion;
  const micro =
    (usage.inputTokens - cached) * inputPerMillion + cached * cachedPrice + usage.outputTokens * outputPerMillion;
  // Round to 1e-10 USD so sums of many turns do not print floating-point noise.
  return Math.round((micro / 1_000_000) * 1e10) / 1e10;
}
