/**
 * Endpoint failures through the real openai SDK and real HTTP: what is retried (429 with
 * retry-after, 5xx, dropped connections, timeouts), what stops at once (401, model_not_found,
 * other 4xx) with the server's own message, the bound on retries, and aborts.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createAgentSession } from "../../../src/agent/session.js";
import { resolveAgentConfigs } from "../../../src/agent/config.js";
import {
  startRecordingModel,
  stepReply,
  type RecordingModel,
  type ScriptedResponse,
} from "../../support/recording-model.js";
import { FAST_RETRY, INSTRUCTION, TOOLS, fakePng, session } from "./harness.js";

let server: RecordingModel;
beforeAll(async () => {
  server = await startRecordingModel();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
  expect(server.remaining()).toBe(0);
});

const answer = stepReply({ note: null, thought: "t", tool_call: { tool_name: "answer", content: "done" } });
const status = (code: number, body: unknown, headers?: Record<string, string>): ScriptedResponse => ({
  kind: "json",
  status: code,
  body,
  ...(headers && { headers }),
});
const obs = { screenshot: { data: fakePng(1) } };

describe("retried failures", () => {
  it("honours retry-after (seconds) on 429, then succeeds", async () => {
    server.enqueue(status(429, { error: { message: "Rate limit reached" } }, { "retry-after": "1" }), answer);
    const turn = await session(server.baseUrl).nextTurn(obs);
    expect(turn.outcome).toBe("actions");
    expect(turn.timing.retries).toBe(1);
    expect(turn.failures).toEqual([
      { attempt: 1, kind: "rate_limited", status: 429, message: "Rate limit reached", waitMs: 1000 },
    ]);
    expect(server.requests).toHaveLength(2);
    // The SDK's own retries are off: umpire's retry is the only one.
    expect(server.requests[1].headers["x-stainless-retry-count"]).toBe("0");
  });

  it("caps a long retry-after and honours an HTTP-date retry-after", async () => {
    const far = new Date(Date.now() + 3_600_000).toUTCString();
    server.enqueue(
      status(429, { error: { message: "slow down" } }, { "retry-after": "120" }),
      status(503, { error: { message: "overloaded" } }, { "retry-after": far }),
      answer,
    );
    const agent = session(server.baseUrl, { retry: { ...FAST_RETRY, retryAfterCapMs: 30 } });
    const turn = await agent.nextTurn(obs);
    expect(turn.outcome).toBe("actions");
    expect(turn.failures.map((f) => [f.kind, f.status, f.waitMs])).toEqual([
      ["rate_limited", 429, 30],
      ["server_error", 503, 30],
    ]);
  });

  it("stops after the bounded number of retries with model_error", async () => {
    for (let i = 0; i < FAST_RETRY.maxRetries + 1; i++)
      server.enqueue(status(500, { error: { message: `boom ${i}` } }));
    const turn = await session(server.baseUrl).nextTurn(obs);
    expect(turn.outcome).toBe("error");
    expect(turn.error).toEqual({ code: "model_error", kind: "server_error", status: 500, message: "boom 3" });
    expect(server.requests).toHaveLength(FAST_RETRY.maxRetries + 1);
    expect(turn.failures).toHaveLength(FAST_RETRY.maxRetries + 1);
    expect(turn.failures.at(-1)?.waitMs).toBeNull();
    expect(
      turn.failures.slice(0, -1).every((f) => typeof f.waitMs === "number" && f.waitMs <= FAST_RETRY.maxDelayMs),
    ).toBe(true);
    expect(turn.actions).toEqual([]);
  });

  it("retries a dropped connection", async () => {
    server.enqueue({ kind: "drop" }, answer);
    const turn = await session(server.baseUrl).nextTurn(obs);
    expect(turn.outcome).toBe("actions");
    expect(turn.failures[0].kind).toBe("transport");
  });

  it("times a hung request out and retries it", async () => {
    server.enqueue({ kind: "hang" }, answer);
    const turn = await session(server.baseUrl, { requestTimeoutMs: 300 }).nextTurn(obs);
    expect(turn.outcome).toBe("actions");
    expect(turn.failures[0].kind).toBe("timeout");
  });
});

describe("failures that stop at once", () => {
  it("401: one request, the server's message", async () => {
    server.enqueue(status(401, { error: { message: "Invalid API key provided", code: "invalid_api_key" } }));
    const turn = await session(server.baseUrl).nextTurn(obs);
    expect(turn.outcome).toBe("error");
    expect(turn.error).toEqual({ code: "model_error", kind: "auth", status: 401, message: "Invalid API key provided" });
    expect(server.requests).toHaveLength(1);
  });

  it("model_not_found: one request, the server's message", async () => {
    server.enqueue(
      status(404, { error: { message: "The model `holo2-old` does not exist", code: "model_not_found" } }),
    );
    const turn = await session(server.baseUrl).nextTurn(obs);
    expect(turn.error).toMatchObject({
      kind: "model_not_found",
      status: 404,
      message: "The model `holo2-old` does not exist",
    });
    expect(server.requests).toHaveLength(1);
  });

  it("keeps the message of a vLLM-style error body (no `error` envelope)", async () => {
    server.enqueue(
      status(400, { object: "error", message: "max_tokens is too large: 99999", type: "BadRequestError", code: 400 }),
    );
    const turn = await session(server.baseUrl).nextTurn(obs);
    expect(turn.error).toMatchObject({ kind: "client_error", status: 400, message: "max_tokens is too large: 99999" });
    expect(server.requests).toHaveLength(1);
  });
});

describe("keys and aborts", () => {
  it("sends the key as a Bearer token and never in the body", async () => {
    const [config] = resolveAgentConfigs({
      model: "holo3-1-35b-a3b",
      baseUrl: server.baseUrl,
      apiKeyEnv: "TEST_MODEL_KEY",
      env: { TEST_MODEL_KEY: "sk-test-123456" },
      retry: FAST_RETRY,
    });
    const agent = createAgentSession({
      config,
      apiKey: "sk-test-123456",
      instruction: INSTRUCTION,
      tools: TOOLS,
      trialId: "t",
    });
    server.enqueue(answer);
    await agent.nextTurn(obs);
    expect(server.requests[0].headers.authorization).toBe("Bearer sk-test-123456");
    expect(server.requests[0].raw).not.toContain("sk-test-123456");
    expect(server.requests[0].body.model).toBe("holo3-1-35b-a3b");
  });

  it("rejects with the abort reason while a request hangs", async () => {
    server.enqueue({ kind: "hang" });
    const controller = new AbortController();
    const pending = session(server.baseUrl).nextTurn(obs, controller.signal);
    setTimeout(() => controller.abort(new Error("trial cancelled")), 50);
    await expect(pending).rejects.toThrow("trial cancelled");
  });

  it("rejects with the abort reason during a retry wait", async () => {
    server.enqueue(status(429, { error: { message: "later" } }, { "retry-after": "30" }));
    const controller = new AbortController();
    const agent = session(server.baseUrl, { retry: { ...FAST_RETRY, retryAfterCapMs: 60_000 } });
    const pending = agent.nextTurn(obs, controller.signal);
    setTimeout(() => controller.abort(new Error("budget exhausted")), 100);
    await expect(pending).rejects.toThrow("budget exhausted");
    expect(server.requests).toHaveLength(1);
  });
});
