import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_POLICY } from "../../../src/agent/config.js";
import { evictOldImages, observationMessage, type ChatMessage } from "../../../src/agent/history.js";
import { costOfUsage, createPriceBook } from "../../../src/pricing.js";
import { knownUsage } from "../../../src/vocabulary.js";
import { parseRetryAfter, retryDelayMs, serverMessage, type ModelFailure } from "../../../src/agent/retry.js";
import { StreamAccumulator } from "../../../src/agent/stream.js";
import { readUsage } from "../../../src/agent/usage.js";

describe("retry-after and backoff", () => {
  const now = Date.parse("2025-01-01T00:00:00Z");
  const headers = (entries: Record<string, string>) => new Headers(entries);

  it("reads seconds, HTTP dates and retry-after-ms", () => {
    expect(parseRetryAfter(headers({ "retry-after": "7" }), now)).toBe(7000);
    expect(parseRetryAfter(headers({ "retry-after": "Wed, 01 Jan 2025 00:00:30 GMT" }), now)).toBe(30_000);
    expect(parseRetryAfter(headers({ "retry-after": "Tue, 31 Dec 2024 23:00:00 GMT" }), now)).toBe(0);
    expect(parseRetryAfter(headers({ "retry-after-ms": "250", "retry-after": "9" }), now)).toBe(250);
    expect(parseRetryAfter(headers({ "retry-after": "soon" }), now)).toBeNull();
    expect(parseRetryAfter(headers({}), now)).toBeNull();
  });

  it("doubles with jitter up to the cap; a server wait is capped", () => {
    const failure: ModelFailure = { kind: "server_error", message: "", retryable: true, retryAfterMs: null };
    const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 1000, maxDelayMs: 8000 };
    expect([0, 1, 2, 3, 4].map((n) => retryDelayMs(failure, n, policy, () => 1))).toEqual([
      1000, 2000, 4000, 8000, 8000,
    ]);
    expect([0, 1, 2].map((n) => retryDelayMs(failure, n, policy, () => 0))).toEqual([500, 1000, 2000]);
    expect(retryDelayMs({ ...failure, retryAfterMs: 90_000 }, 0, policy)).toBe(policy.retryAfterCapMs);
    expect(retryDelayMs({ ...failure, retryAfterMs: 3_000 }, 0, policy)).toBe(3_000);
  });

  it("finds the server's message in the common error body shapes", () => {
    expect(serverMessage('{"error":{"message":"bad key"}}')).toBe("bad key");
    expect(serverMessage('{"detail":"Not Found"}')).toBe("Not Found");
    expect(serverMessage('{"object":"error","message":"no such model"}')).toBe("no such model");
    expect(serverMessage("upstream connect error")).toBe("upstream connect error");
    expect(serverMessage("")).toBeNull();
  });
});

describe("usage and cost", () => {
  it("tolerates missing and malformed fields", () => {
    expect(readUsage(undefined)).toEqual({
      inputTokens: null,
      outputTokens: null,
      reasoningTokens: null,
      cachedTokens: null,
    });
    expect(readUsage({ prompt_tokens: 5, completion_tokens: "7", completion_tokens_details: null })).toEqual({
      inputTokens: 5,
      outputTokens: null,
      reasoningTokens: null,
      cachedTokens: null,
    });
  });

  it("reproduces H's worked example: 21,166 in + 307 out on Holo3 = 0.0093874 USD", () => {
    // The one cost function (src/pricing.ts), as the run prices each turn.
    const prices = createPriceBook();
    const usage = knownUsage({ inputTokens: 21_166, outputTokens: 307, reasoningTokens: null, cachedTokens: null });
    expect(costOfUsage(usage, prices.lookup("holo3-122b-a10b"))).toBe(0.0093874);
    expect(costOfUsage(usage, prices.lookup("reference"))).toBe(0);
    expect(costOfUsage(usage, prices.lookup("my-vllm-model"))).toBeNull();
    expect(
      costOfUsage(
        knownUsage({ inputTokens: null, outputTokens: null, reasoningTokens: null, cachedTokens: null }),
        prices.lookup("holo3-122b-a10b"),
      ),
    ).toBeNull();
  });

  it("the chapter's illustration: 12,000 in at $2/M + 800 out at $8/M = $0.0304", () => {
    const price = { input: 2, output: 8 };
    expect(costOfUsage({ inputTokens: 12_000, outputTokens: 800, reasoningTokens: 0, cachedTokens: 0 }, price)).toBe(
      0.0304,
    );
    // Cached tokens use the cached price when known.
    expect(
      costOfUsage(
        { inputTokens: 12_000, outputTokens: 0, reasoningTokens: 0, cachedTokens: 10_000 },
        { ...price, cachedInput: 0.5 },
      ),
    ).toBe(0.009);
  });
});

describe("image budget", () => {
  it("keeps the last 3 screenshots and the wrappers of the evicted ones", () => {
    const messages: ChatMessage[] = [{ role: "system", content: "s" }];
    for (let i = 1; i <= 5; i++) {
      messages.push(observationMessage({ screenshot: { data: `IMG${i}` }, url: `/p${i}` }));
      messages.push({ role: "assistant", content: "{}" });
    }
    expect(evictOldImages(messages)).toBe(2);
    expect(evictOldImages(messages)).toBe(0);
    const observations = messages.filter((m) => m.role === "user") as Array<{
      content: Array<{ type: string; text?: string }>;
    }>;
    expect(observations[0].content).toEqual([
      { type: "text", text: "<observation>\nURL: /p1\n" },
      { type: "text", text: "[screenshot evicted]" },
      { type: "text", text: "\n</observation>" },
    ]);
    const text = JSON.stringify(messages);
    expect(text).not.toContain("IMG1");
    expect(text).not.toContain("IMG2");
    for (const n of [3, 4, 5]) expect(text).toContain(`data:image/png;base64,IMG${n}`);
  });

  it("wraps page text and JPEG screenshots", () => {
    const message = observationMessage({
      screenshot: { data: new Uint8Array([1, 2, 3]), mimeType: "image/jpeg" },
      title: "Match",
      text: "168/6",
    });
    expect(message.content).toEqual([
      { type: "text", text: "<observation>\nTitle: Match\n" },
      { type: "image_url", image_url: { url: "data:image/jpeg;base64,AQID" } },
      { type: "text", text: "\n<page_text>\n168/6\n</page_text>\n</observation>" },
    ]);
  });
});

describe("stream accumulation", () => {
  it("merges tool-call fragments by index and servers that omit the index", () => {
    const acc = new StreamAccumulator();
    const delta = (d: unknown, finish: string | null = null) => ({
      choices: [{ index: 0, delta: d, finish_reason: finish }],
    });
    expect(acc.add(delta({ role: "assistant" }))).toBe(false);
    expect(acc.add(delta({ tool_calls: [{ id: "a", function: { name: "click", arguments: '{"x":' } }] }))).toBe(true);
    acc.add(delta({ tool_calls: [{ function: { arguments: "1}" } }] }));
    acc.add(delta({ tool_calls: [{ id: "b", function: { name: "answer", arguments: "{}" } }] }));
    expect(acc.finished).toBe(false);
    acc.add(delta({}, "tool_calls"));
    expect(acc.reply().toolCalls).toEqual([
      { id: "a", name: "click", arguments: '{"x":1}' },
      { id: "b", name: "answer", arguments: "{}" },
    ]);
    expect(acc.reply().finishReason).toBe("tool_calls");
  });
});
