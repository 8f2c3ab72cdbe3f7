/**
 * What a trial's model proxy measured (src/runner/external/model-proxy.ts), as the trial's usage, model time and
 * cost. These replace whatever the agent reports about itself: the store marks the trial's usage
 * `measured` (metrics.modelProxy), and a usage in its result file is logged as its claim, not stored.
 */
import { costOfUsage, type ModelPrice } from "../../pricing.js";
import { knownUsage, type Usage } from "../../vocabulary.js";
import type { LoopOutcome } from "../trial/loop.js";
import type { MeasuredModelUse, ModelCall } from "../trial/measured-use.js";

/** A call that bills tokens: a chat completion the upstream answered with success. */
const billed = (call: ModelCall) => call.route === "chat/completions" && call.status >= 200 && call.status < 300;

/**
 * The trial's tokens: the sum over billed calls, or null (unknown) when one of them reported no usage.
 * No billed call at all is zero tokens: the agent made no model call through umpire.
 */
export function measuredUsage(calls: readonly ModelCall[]): Usage | null {
  const total: Usage = { inputTokens: 0, outputTokens: 0, reasoningTokens: 0, cachedTokens: 0 };
  for (const call of calls.filter(billed)) {
    const usage = knownUsage(call.usage);
    if (!usage) return null;
    total.inputTokens += usage.inputTokens;
    total.outputTokens += usage.outputTokens;
    total.reasoningTokens += usage.reasoningTokens;
    total.cachedTokens += usage.cachedTokens;
  }
  return total;
}

/** USD of the measured calls, each priced by the model it asked for (else `fallbackModel`); null if any is unknown. */
export function measuredCost(
  calls: readonly ModelCall[],
  lookup: (model: string) => ModelPrice | null,
  fallbackModel: string,
): number | null {
  let sum = 0;
  for (const call of calls.filter(billed)) {
    const cost = costOfUsage(knownUsage(call.usage), lookup(call.model ?? fallbackModel));
    if (cost === null) return null;
    sum += cost;
  }
  return sum;
}

/** Puts the measurement into the trial's outcome: its usage, its model time and first-byte times. */
export function applyMeasurement(out: LoopOutcome, calls: readonly ModelCall[], refused: number): void {
  const usage = measuredUsage(calls);
  const none = { inputTokens: 0, outputTokens: 0, reasoningTokens: 0, cachedTokens: 0 };
  out.usage = usage ? { ...usage, reported: true } : { ...none, reported: false };
  out.timing.modelMs = calls.reduce((sum, call) => sum + call.ms, 0);
  out.timing.ttftMs = calls.flatMap((call) => (call.ttftMs === null ? [] : [call.ttftMs]));
  out.measured = { source: "measured", calls: [...calls], refused };
  blameUpstream(out, calls);
}

/** Calls kept one by one in the stored metrics; past it, the counts and totals still cover every call. */
export const STORED_CALLS = 100;

/** The measurement as the trial's metrics store it (`metrics.modelProxy`). */
export function storedMeasurement(measured: MeasuredModelUse) {
  return {
    source: measured.source,
    requests: measured.calls.length,
    refused: measured.refused,
    usage: measuredUsage(measured.calls),
    calls: measured.calls.slice(0, STORED_CALLS),
  };
}

/**
 * What failed on the model's side in the agent's last call, or null: the upstream unreachable or broken
 * off, a 5xx, a rate limit, or a refused key (umpire's key: with modelProxy the endpoint is umpire's).
 */
export function upstreamFault(calls: readonly ModelCall[]): string | null {
  const last = calls.at(-1);
  if (!last) return null;
  if (last.error) return last.error;
  if (last.status >= 500 || last.status === 429 || last.status === 401 || last.status === 403) {
    return `the model endpoint answered ${last.status} to the agent's last call (${last.route})`;
  }
  return null;
}

/**
 * A command agent that crashed right after its model endpoint failed it stopped on the endpoint, not on
 * its own code: `model_error` (infrastructure, verdict error), as umpire's own loop would end.
 */
export function blameUpstream(out: LoopOutcome, calls: readonly ModelCall[]): void {
  const fault = out.stopReason === "agent_crashed" ? upstreamFault(calls) : null;
  if (!fault) return;
  out.stopDetail = `${fault}; then ${out.stopDetail}`;
  out.stopReason = "model_error";
}
