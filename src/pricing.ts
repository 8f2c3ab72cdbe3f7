/**
 * Pricing, in one place for the run (which prices every turn and trial as it stores them) and the
 * report (which re-prices stored tokens when the user supplies prices): the built-in price list,
 * the price schema, the price book over the config file's `prices` and `--price-in` / `--price-out`
 * (both read by the one argument layer, src/cli/args.ts `pricesOf`), and the one cost function.
 * Prices are USD per million tokens. A model with no price has an unknown cost (null), never 0:
 * a free model says so explicitly in the table (the reference model does).
 *
 * Cost arithmetic is exact: prices are turned into integer micro-dollars per million tokens and
 * multiplied as BigInt, so 21,166 input + 307 output tokens on holo3-122b-a10b is exactly
 * 0.0093874 (the double nearest to it), not 0.009387400000000001. Round only for display.
 *
 * Token accounting (OpenAI-compatible servers, vLLM included): `outputTokens` is completion_tokens,
 * which already contains the reasoning tokens, and `inputTokens` is prompt_tokens, which already
 * contains the cached ones. So reasoning is billed once, inside output, at the output price, unless
 * the price says otherwise: a separate `reasoning` price re-prices that part of the output, and
 * `reasoningInOutput: false` (a server that reports reasoning outside completion_tokens) adds it.
 */
import { z } from "zod";
import type { Usage } from "./vocabulary.js";

const usdPerMillion = z.number().finite().min(0);

export const ModelPriceSchema = z
  .object({
    input: usdPerMillion.describe("USD per million input (prompt) tokens"),
    output: usdPerMillion.describe("USD per million output (completion) tokens"),
    cachedInput: usdPerMillion.optional().describe("USD per million cached input tokens; default: the input price"),
    reasoning: usdPerMillion.optional().describe("USD per million reasoning tokens; default: the output price"),
    reasoningInOutput: z
      .boolean()
      .optional()
      .describe(
        "Whether the server's completion_tokens already include reasoning tokens (default true, as on OpenAI-compatible servers)",
      ),
  })
  .strict();
export type ModelPrice = z.infer<typeof ModelPriceSchema>;
export type PriceTable = Record<string, ModelPrice>;

/**
 * The built-in price list (the only one: the model catalog in src/agent/models.ts holds no prices).
 * Holo figures are H Company's published ones (shared/reference/holo-api-facts.md);
 * H publishes no cached-input discount, so cached input is billed at the input price.
 */
export const DEFAULT_PRICES: Readonly<PriceTable> = Object.freeze({
  "holo3-1-35b-a3b": { input: 0.25, output: 1.8 },
  "holo3-122b-a10b": { input: 0.4, output: 3.0 },
  // The reference model runs locally and costs nothing: declared, so its cost is $0, not unknown.
  reference: { input: 0, output: 0 },
});

/** Where a price came from; reports say so next to costs they recomputed. */
export type PriceSource = "built-in" | "config" | "flags";

export interface PriceBook {
  /** The price for a model id; `reference:<profile>` falls back to `reference`. Null when unknown. */
  lookup(model: string): ModelPrice | null;
  /** True when the user supplied prices (config file or flags): reports then re-price stored tokens. */
  readonly userPrices: boolean;
  readonly sources: PriceSource[];
}

export interface PriceOptions {
  /** The `prices` section of the config file, already read and validated by src/config/ (`loadConfig`). */
  config?: PriceTable;
  /** `--price-in`: overrides the input price of every model. */
  priceIn?: number;
  /** `--price-out`: overrides the output price of every model. */
  priceOut?: number;
}

/** Builds the price book: built-in table, then the config file, then the flags. */
export function createPriceBook(opts: PriceOptions = {}): PriceBook {
  const table: PriceTable = { ...DEFAULT_PRICES, ...(opts.config ?? {}) };
  const flags = opts.priceIn !== undefined || opts.priceOut !== undefined;
  const sources: PriceSource[] = ["built-in"];
  if (opts.config && Object.keys(opts.config).length > 0) sources.push("config");
  if (flags) sources.push("flags");
  const lookup = (model: string): ModelPrice | null => {
    const base = table[model] ?? table[model.split(":")[0]] ?? null;
    if (!flags) return base;
    const input = opts.priceIn ?? base?.input;
    const output = opts.priceOut ?? base?.output;
    // With only one flag and no table entry, half a price is no price.
    if (input === undefined || output === undefined) return null;
    return { ...(base ?? {}), input, output };
  };
  return { lookup, userPrices: sources.length > 1, sources };
}

/** Price resolution: one millionth of a dollar per million tokens. */
const PRICE_SCALE = 1_000_000;
/** tokens x (USD per million x PRICE_SCALE) is in units of 1e-12 USD. */
export const UNIT_PER_USD = 1e12;

const scaled = (usdPerMillion: number): bigint => BigInt(Math.round(usdPerMillion * PRICE_SCALE));
const count = (n: number): bigint => BigInt(Math.max(0, Math.round(n)));

/** Cost in units of 1e-12 USD, or null when usage or price is unknown. */
function costUnits(usage: Usage | null, price: ModelPrice | null): bigint | null {
  if (!usage || !price) return null;
  const cached = Math.min(usage.cachedTokens, usage.inputTokens);
  const reasoningPriced = price.reasoning !== undefined;
  const reasoningInOutput = price.reasoningInOutput ?? true;
  let plainOutput = usage.outputTokens;
  let reasoningBilled = 0;
  if (!reasoningInOutput) reasoningBilled = usage.reasoningTokens;
  else if (reasoningPriced) {
    reasoningBilled = Math.min(usage.reasoningTokens, usage.outputTokens);
    plainOutput = usage.outputTokens - reasoningBilled;
  }
  return (
    count(usage.inputTokens - cached) * scaled(price.input) +
    count(cached) * scaled(price.cachedInput ?? price.input) +
    count(plainOutput) * scaled(price.output) +
    count(reasoningBilled) * scaled(price.reasoning ?? price.output)
  );
}

/** USD for one turn's or one trial's usage at a price; null when either is unknown. */
export function costOfUsage(usage: Usage | null, price: ModelPrice | null): number | null {
  const units = costUnits(usage, price);
  return units === null ? null : Number(units) / UNIT_PER_USD;
}
