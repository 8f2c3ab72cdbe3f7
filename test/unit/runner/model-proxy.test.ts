/**
 * The model proxy (src/runner/external/model-proxy.ts) against a real upstream HTTP server that does what a hostile
 * or careless endpoint may do: echo the Authorization header it got back to the caller, split a stream's
 * events across chunks. The agent never reads the key; streamed usage is measured; a path without the
 * trial's token, a route the proxy does not forward and a dead upstream are refused or answered, never hung.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startModelProxy } from "../../../src/runner/external/model-proxy.js";
import type { ModelCall } from "../../../src/runner/trial/measured-use.js";
import { measuredCost, measuredUsage } from "../../../src/runner/external/model-measure.js";
import { clearSecrets, registerSecret } from "../../../src/safety/secrets.js";

const KEY = "sk-upstream-secret-0123456789";
let upstream: Server;
let upstreamUrl: string;
const asked: Record<string, unknown>[] = [];

beforeAll(async () => {
  registerSecret(KEY);
  upstream = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      const body = raw ? JSON.parse(raw) : {};
      asked.push(body);
      const echo = `you sent ${req.headers.authorization}`;
      if (!body.stream) {
        res.setHeader("content-type", "application/json");
        return res.end(
          JSON.stringify({
            echo,
            usage: { prompt_tokens: 10, completion_tokens: 4, prompt_tokens_details: { cached_tokens: 2 } },
          }),
        );
      }
      res.setHeader("content-type", "text/event-stream");
      const usage = body.stream_options?.include_usage
        ? `data: {"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":3}}\n\n`
        : "";
      const whole = `data: {"choices":[{"delta":{"content":"${echo}"}}]}\n\n${usage}data: [DONE]\n\n`;
      // Cut mid-event, inside the key: the proxy must scrub and read events whole.
      const cut = whole.indexOf("secret") + 3;
      res.write(whole.slice(0, cut));
      setTimeout(() => res.end(whole.slice(cut)), 20);
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  clearSecrets();
  await new Promise((resolve) => upstream.close(resolve));
});

const post = (url: string, body: unknown) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

describe("the model proxy", () => {
  it("adds the key, scrubs it from what comes back, and measures plain and streamed usage", async () => {
    const calls: ModelCall[] = [];
    const proxy = await startModelProxy({
      upstream: { baseUrl: upstreamUrl, apiKey: KEY },
      onCall: (c) => calls.push(c),
    });
    try {
      const plain = await post(`${proxy.baseUrl}/chat/completions`, { model: "m1", messages: [] });
      const text = await plain.text();
      expect(text).toContain("you sent Bearer [redacted]");
      expect(text).not.toContain(KEY);
      const streamed = await (
        await post(`${proxy.baseUrl}/chat/completions`, { model: "m2", messages: [], stream: true })
      ).text();
      expect(streamed).toContain("you sent Bearer [redacted]");
      expect(streamed).not.toContain("secret");
      // The agent did not ask for the usage chunk; the proxy did, so the stream is measured.
      expect(asked.at(-1)).toMatchObject({ stream_options: { include_usage: true } });
      expect(calls.map((c) => [c.model, c.stream, c.status, c.usage.inputTokens, c.usage.outputTokens])).toEqual([
        ["m1", false, 200, 10, 4],
        ["m2", true, 200, 7, 3],
      ]);
      expect(calls[1]!.ttftMs).not.toBeNull();
      expect(measuredUsage(calls)).toEqual({ inputTokens: 17, outputTokens: 7, reasoningTokens: 0, cachedTokens: 2 });
      // Priced call by call, by the model each asked for.
      const prices: Record<string, { input: number; output: number }> = {
        m1: { input: 1, output: 0 },
        m2: { input: 0, output: 1 },
      };
      expect(measuredCost(calls, (m) => prices[m] ?? null, "fallback")).toBeCloseTo((10 * 1 + 3 * 1) / 1e6, 15);
      expect(measuredCost(calls, (m) => (m === "m1" ? prices.m1! : null), "fallback")).toBeNull();
    } finally {
      await proxy.close();
    }
  });

  it("refuses a path without the trial's token and a route it does not forward; answers 502 for a dead upstream", async () => {
    const refused: string[] = [];
    const calls: ModelCall[] = [];
    const proxy = await startModelProxy({
      upstream: { baseUrl: "http://127.0.0.1:9/v1", apiKey: KEY },
      onRefused: (r) => refused.push(r),
      onCall: (c) => calls.push(c),
    });
    try {
      expect((await post(`${proxy.origin}/v1/chat/completions`, { model: "m" })).status).toBe(403);
      expect((await post(`${proxy.origin}/wrong-token/v1/chat/completions`, { model: "m" })).status).toBe(403);
      expect((await post(`${proxy.baseUrl}/embeddings`, { model: "m" })).status).toBe(404);
      expect(refused).toHaveLength(3);
      const dead = await post(`${proxy.baseUrl}/chat/completions`, { model: "m" });
      expect(dead.status).toBe(502);
      expect(await dead.text()).not.toContain(KEY);
      expect(calls.map((c) => [c.status, c.error !== undefined])).toEqual([[502, true]]);
      // A failed call bills nothing: the trial's measured usage is zero, not unknown.
      expect(measuredUsage(calls)).toEqual({ inputTokens: 0, outputTokens: 0, reasoningTokens: 0, cachedTokens: 0 });
    } finally {
      await proxy.close();
    }
  });
});
