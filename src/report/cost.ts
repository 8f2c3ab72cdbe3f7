/**
 * Cost arithmetic. Exact: prices are turned into integer micro-dollars per million tokens and
 * multiplied as BigInt, so 21,166 input + 307 output tokens on holo3-122b-a10b is exactly
 * 0.0093874 (the double nearest to it), not 0.009387400000000001. Round only for display.
 *
 * Token accounting (OpenAI-compatible servers, vLLM included): `outputTokens` is completion_tokens,
 * which already contains the reasoning tokens, and `inputTokens` is prompt_tokens, which already
 * contains the cached ones. So reasoning is billed once, inside output, at the output price, unless
 * the price says otherwise: a separate `reasoning` price re-prices that part of the output, and
 * `reasoningInOutput: false` (a server that reports reasoning outside completion_tokens) adds it.
 */
import type { Usage } from "../vocabulary.js";
import type { ModelPrice } from "./prices.js";

/** Price resolution: one millionth of a dollar per million tokens. */
const PRICE_SCALE = 1_000_000;
/** tokens x (USD per million x PRICE_SCALE) is in units of 1e-12 USD. */
const UNIT_PER_USD = 1e12;

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

/**
 * Sum of costs; null as soon as one is unknown (a partial sum would read as a complete one).
 * Summed in 1e-12 USD units so that adding many exact costs stays exact. Empty -> 0.
 */
export function sumCosts(costs: Iterable<number | null>): number | null {
  let total = 0n;
  for (const c of costs) {
    if (c === null || !Number.isFinite(c)) return null;
    total += BigInt(Math.round(c * UNIT_PER_USD));
  }
  return Number(total) / UNIT_PER_USD;
}

/**
 * Cost per successful trial: total spent over the trials that passed. `unknown` when the total is;
 * `no_success` when nothing passed (the money bought nothing; not a number to average).
 */
export type CostPerSuccess = number | "unknown" | "no_success";

export function costPerSuccess(totalUsd: number | null, successes: number): CostPerSuccess {
  if (totalUsd === null) return "unknown";
  if (successes === 0) return "no_success";
  return totalUsd / successes;
}

/** Usage summed over turns; null when any turn's usage is unknown. */
export function sumUsage(usages: Iterable<Usage | null>): Usage | null {
  const total: Usage = { inputTokens: 0, outputTokens: 0, reasoningTokens: 0, cachedTokens: 0 };
  for (const u of usages) {
    if (!u) return null;
    total.inputTokens += u.inputTokens;
    total.outputTokens += u.outputTokens;
    total.reasoningTokens += u.reasoningTokens;
    total.cachedTokens += u.cachedTokens;
  }
  return total;
}

/** A trial's tokens as a Usage, or null when the trial has none stored. */
export function trialUsage(t: {
  inputTokens: number | null;
  outputTokens: number | null;
  reasoningTokens: number | null;
  cachedTokens: number | null;
}): Usage | null {
  if (t.inputTokens === null || t.outputTokens === null) return null;
  return {
    inputTokens: t.inputTokens,
    outputTokens: t.outputTokens,
    reasoningTokens: t.reasoningTokens ?? 0,
    cachedTokens: t.cachedTokens ?? 0,
  };
}

/**
 * The cost a report shows for a trial: the one stored at run time, unless the user supplied prices
 * (config file or flags), in which case the stored tokens are priced again with them.
 */
export function reportedCost(
  trial: Parameters<typeof trialUsage>[0] & { model: string; costUsd: number | null },
  book: { lookup(model: string): ModelPrice | null; readonly userPrices: boolean },
): number | null {
  if (!book.userPrices) return trial.costUsd;
  return costOfUsage(trialUsage(trial), book.lookup(trial.model));
}
