/**
 * A report re-pricing a command agent's trial whose model calls went through umpire's model proxy: each
 * stored call is priced by the model it asked for (as the run priced it), not the trial's stand-in model.
 */
import { describe, expect, it } from "vitest";
import { reportedCost } from "../../../src/report/cost.js";
import { createPriceBook } from "../../../src/pricing.js";

const usage = (inputTokens: number, outputTokens: number) => ({
  inputTokens,
  outputTokens,
  reasoningTokens: 0,
  cachedTokens: 0,
});
const call = (model: string, status: number, inputTokens: number, outputTokens: number) => ({
  route: "chat/completions",
  model,
  stream: false,
  status,
  usage: usage(inputTokens, outputTokens),
  ms: 1,
  ttftMs: null,
});
const trial = (calls: unknown[], requests = calls.length) => ({
  model: "command:proxied",
  costUsd: 0.5,
  ...usage(3_000, 300),
  metrics: { modelProxy: { source: "measured", requests, refused: 0, usage: usage(3_000, 300), calls } },
});

describe("re-pricing a trial measured by the model proxy", () => {
  const book = createPriceBook({ config: { "gpt-a": { input: 1, output: 10 }, "gpt-b": { input: 2, output: 20 } } });

  it("prices each successful chat completion by its own model; a failed call bills nothing", () => {
    const calls = [call("gpt-a", 200, 1_000, 100), call("gpt-b", 200, 2_000, 200), call("gpt-b", 500, 0, 0)];
    expect(reportedCost(trial(calls), book)).toBeCloseTo((1_000 * 1 + 100 * 10 + 2_000 * 2 + 200 * 20) / 1e6, 12);
    // Without the calls the trial's stand-in model has no price: unknown.
    expect(reportedCost({ ...trial(calls), metrics: {} }, book)).toBeNull();
  });

  it("a model without a price makes the cost unknown; calls cut from the store fall back to the trial's tokens", () => {
    expect(reportedCost(trial([call("gpt-a", 200, 10, 1), call("unpriced", 200, 10, 1)]), book)).toBeNull();
    const flags = createPriceBook({ priceIn: 1, priceOut: 1 });
    expect(reportedCost(trial([call("gpt-a", 200, 10, 1)], 150), flags)).toBeCloseTo(3_300 / 1e6, 12);
    // No user prices: the stored cost, as the run computed it.
    expect(reportedCost(trial([call("gpt-a", 200, 10, 1)]), createPriceBook())).toBe(0.5);
  });
});
