/**
 * Costs as a report sums them: totals, cost per success, a trial's stored tokens, and re-pricing
 * stored tokens when the user supplied prices. Pricing one usage is src/pricing.ts's `costOfUsage`,
 * the same function the run used when it stored the cost.
 */
import { UNIT_PER_USD, costOfUsage, type ModelPrice } from "../pricing.js";
import type { Usage } from "../vocabulary.js";

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
  trial: Parameters<typeof trialUsage>[0] & { model: string; costUsd: number | null; metrics?: unknown },
  book: { lookup(model: string): ModelPrice | null; readonly userPrices: boolean },
): number | null {
  if (!book.userPrices) return trial.costUsd;
  const measured = measuredCalls(trial.metrics);
  if (measured) return repriceCalls(measured, trial.model, book);
  return costOfUsage(trialUsage(trial), book.lookup(trial.model));
}

interface StoredCall {
  route: string;
  model: string | null;
  status: number;
  usage: Parameters<typeof trialUsage>[0];
}

/**
 * The calls a command agent's model proxy measured (metrics.modelProxy), when every one is stored: each
 * was priced by the model it asked for, so it is re-priced the same way. Null otherwise (the trial's
 * tokens are then re-priced as a whole, by the trial's model).
 */
function measuredCalls(metrics: unknown): StoredCall[] | null {
  const proxy = (metrics as { modelProxy?: { requests?: unknown; calls?: unknown } } | null | undefined)?.modelProxy;
  if (!proxy || !Array.isArray(proxy.calls) || proxy.calls.length !== proxy.requests) return null;
  return proxy.calls as StoredCall[];
}

/** The same rule as the run's (src/runner/external/model-measure.ts): successful chat completions bill tokens. */
function repriceCalls(
  calls: readonly StoredCall[],
  fallbackModel: string,
  book: { lookup(model: string): ModelPrice | null },
): number | null {
  const billed = calls.filter((c) => c.route === "chat/completions" && c.status >= 200 && c.status < 300);
  return sumCosts(billed.map((c) => costOfUsage(trialUsage(c.usage), book.lookup(c.model ?? fallbackModel))));
}
