import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferenceModel, type ReferenceModel } from "../../../src/sim/server.js";
import { MALFORMED_KINDS, misclickOffset } from "../../../src/sim/profiles.js";
import { HOME_LAYOUT, TASK, create, createStreamed, request, sdk, steps } from "./helpers.js";

let model: ReferenceModel;
let client: OpenAI;

beforeAll(async () => {
  // Every trial of this file sees the home page layout.
  model = await startReferenceModel({
    tasks: [TASK],
    fixtures: { layout: async () => HOME_LAYOUT },
    seed: 0,
    latencyMs: 300,
  });
  client = sdk(model.baseUrl);
});
afterAll(async () => {
  await model?.close();
});

const stepOf = (completion: OpenAI.Chat.Completions.ChatCompletion) =>
  JSON.parse(completion.choices[0].message.content!);
const structured = (profile: string, history = steps(0), before?: string[]) =>
  request("structured", { model: `reference:${profile}`, history, before });

describe("behavioural profiles", () => {
  it("misclick: the gold click moved by the seeded offset", async () => {
    const gold = stepOf(await create(client, structured("gold")));
    const missed = stepOf(await create(client, structured("misclick")));
    const { dx, dy } = misclickOffset(0, 0);
    expect([missed.tool_call.x - gold.tool_call.x, missed.tool_call.y - gold.tool_call.y]).toEqual([dx, dy]);
    const withSeed = stepOf(await create(client, { ...structured("misclick"), seed: 5 }));
    const five = misclickOffset(5, 0);
    expect([withSeed.tool_call.x, withSeed.tool_call.y]).toEqual([500 + five.dx, 500 + five.dy]);
  });

  it("loop: keeps clicking the covered Save; recover: back to gold after a reflection", async () => {
    const loopSteps = await Promise.all(
      [2, 3, 6].map(async (n) => stepOf(await create(client, structured("loop", steps(n))))),
    );
    for (const step of loopSteps)
      expect(step.tool_call).toMatchObject({ tool_name: "click", element: expect.stringContaining("note save") });
    const reflection = "<reflection>Save has been clicked 4 times and the screen did not change.</reflection>";
    const stillLooping = stepOf(await create(client, structured("loop", steps(6), [reflection])));
    expect(stillLooping.tool_call.element).toContain("note save");
    const recovered = stepOf(await create(client, structured("recover", steps(6), [reflection])));
    expect(recovered.tool_call).toMatchObject({
      tool_name: "click",
      element: expect.stringContaining("[result-BB-042]"),
    });
  });

  it("wrong-record, forget-save and premature-answer play their negatives", async () => {
    const wrong = stepOf(await create(client, structured("wrong-record", steps(1))));
    expect(wrong.tool_call).toEqual({ tool_name: "write", content: "BB-024", press_enter: true });
    const forget = stepOf(await create(client, structured("forget-save")));
    expect(forget.tool_call).toEqual({ tool_name: "answer", content: "Saved (I did not press Save)." });
    const premature = stepOf(await create(client, structured("premature-answer")));
    expect(premature.tool_call.content).toBe("Jaipur Kites won.");
    expect(model.log.entries.at(-1)?.trajectory).toBe("negatives.premature-answer");
  });

  it("answer-now answers Done. at once, in both modes", async () => {
    expect(stepOf(await create(client, structured("answer-now"))).tool_call).toEqual({
      tool_name: "answer",
      content: "Done.",
    });
    const tools = await create(client, request("tools", { model: "reference:answer-now" }));
    expect(tools.choices[0].message.tool_calls?.[0]).toMatchObject({
      function: { name: "answer", arguments: '{"content":"Done."}' },
    });
  });

  it("slow still answers, later", async () => {
    const completion = await create(client, structured("slow"));
    expect(stepOf(completion).tool_call.tool_name).toBe("click");
    const slow = await startReferenceModel({ tasks: [TASK], profile: "slow", latencyMs: 10_000 });
    try {
      await expect(create(sdk(slow.baseUrl, { timeout: 300 }), structured("slow"))).rejects.toBeInstanceOf(
        OpenAI.APIConnectionTimeoutError,
      );
    } finally {
      await slow.close();
    }
  });
});

describe("output faults", () => {
  it("refuse: message.refusal set, content says so, finish stop, no tool call", async () => {
    for (const mode of ["structured", "tools"] as const) {
      const completion = await create(client, request(mode, { model: "reference:refuse" }));
      const { message, finish_reason } = completion.choices[0];
      expect(finish_reason).toBe("stop");
      expect(message.refusal).toBe("I can't help with that");
      expect(message.content).toBe("I can't help with that");
      expect(message.tool_calls).toBeUndefined();
    }
    const streamed = await createStreamed(client, request("tools", { model: "reference:refuse" }));
    expect(streamed.refusal).toBe("I can't help with that");
  });

  it("truncate: finish length with partial JSON, streamed or not, in both modes", async () => {
    const structuredCut = await create(client, structured("truncate"));
    expect(structuredCut.choices[0].finish_reason).toBe("length");
    expect(() => JSON.parse(structuredCut.choices[0].message.content!)).toThrow();
    const toolsCut = await createStreamed(client, request("tools", { model: "reference:truncate" }));
    expect(toolsCut.finishReason).toBe("length");
    expect(() => JSON.parse(toolsCut.toolCalls[0].arguments)).toThrow();
  });

  it("a small max_tokens is eaten by reasoning: finish length and no action", async () => {
    const completion = await create(client, { ...structured("gold"), max_tokens: 10 });
    expect(completion.choices[0].finish_reason).toBe("length");
    expect(completion.choices[0].message.content).toBe("");
  });

  it("malformed: nine consecutive turns give each kind of bad output once", async () => {
    const seen: string[] = [];
    for (let turn = 0; turn < MALFORMED_KINDS.length; turn++) {
      const completion = await create(client, structured("malformed", steps(turn)));
      expect(completion.choices[0].finish_reason).toBe("stop");
      seen.push(model.log.entries.at(-1)!.outcome);
      const content = completion.choices[0].message.content!;
      const kind = MALFORMED_KINDS[turn];
      if (kind === "invalid-json") expect(() => JSON.parse(content)).toThrow();
      if (kind === "coordinate-out-of-range") expect(JSON.parse(content).tool_call.x).toBe(1500);
      if (kind === "xy-as-list") expect(Array.isArray(JSON.parse(content).tool_call.x)).toBe(true);
      if (kind === "think-in-content") expect(content).toMatch(/^<think>[\s\S]*<\/think>/);
      if (kind === "empty-content") expect(content).toBe("");
    }
    expect(seen).toEqual(MALFORMED_KINDS.map((k) => `malformed:${k}`));
  });

  it("malformed in tools mode: an unknown tool and a two-element x", async () => {
    const unknown = await create(client, request("tools", { model: "reference:malformed", history: steps(1) }));
    expect(unknown.choices[0].message.tool_calls?.[0]).toMatchObject({ function: { name: "teleport" } });
    const list = await create(client, request("tools", { model: "reference:malformed", history: steps(6) }));
    const call = list.choices[0].message
      .tool_calls![0] as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
    expect(JSON.parse(call.function.arguments).x).toEqual([500, 500]);
  });
});

describe("latency profile and rate limit", () => {
  it("latency: the gold step, after the configured wait; over the rate limit, 429 with retry-after", async () => {
    const limited = await startReferenceModel({
      tasks: [TASK],
      fixtures: { layout: async () => HOME_LAYOUT },
      turnLatencyMs: 50,
      jitterMs: 10,
      rateLimit: { requests: 2, windowMs: 60_000 },
    });
    try {
      const body = { ...structured("latency"), user: "lat-a" };
      const first = await create(sdk(limited.baseUrl), body);
      expect(stepOf(first).tool_call.tool_name).toBe("click");
      await create(sdk(limited.baseUrl), body);
      const refused = await fetch(`${limited.baseUrl}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      expect(refused.status).toBe(429);
      // Two requests per minute: the next fits in about 30 s.
      expect(Number(refused.headers.get("retry-after"))).toBeGreaterThanOrEqual(29);
      expect(Number(refused.headers.get("retry-after-ms"))).toBeGreaterThan(28_000);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("rate_limit_exceeded");
      expect(limited.rateLimited()).toBe(1);
      expect(limited.log.entries.map((e) => e.outcome)).toEqual(["action", "action", "rate-limited"]);
    } finally {
      await limited.close();
    }
  });
});

describe("flaky-http", () => {
  const flaky = (turn: number, extra: Record<string, unknown> = {}) => ({
    ...structured("flaky-http", steps(turn)),
    ...extra,
  });

  it("turn 0: two 500s, then the same request succeeds", async () => {
    const body = flaky(0, { user: "flaky-a" });
    await expect(create(client, body)).rejects.toMatchObject({ status: 500 });
    await expect(create(client, body)).rejects.toMatchObject({ status: 500 });
    expect(stepOf(await create(client, body)).tool_call.tool_name).toBe("click");
  });

  it("turn 1: 429 with retry-after 1, then success", async () => {
    const body = flaky(1, { user: "flaky-b" });
    const response = await fetch(`${model.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("1");
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("rate_limit_exceeded");
    expect(stepOf(await create(client, body)).tool_call.tool_name).toBe("write");
  });

  it("turn 2: the connection drops mid-stream, and the stream never completes a call", async () => {
    const body = flaky(2, { user: "flaky-c" });
    const broken = await createStreamed(client, body).catch((e: unknown) => e);
    expect(broken).toBeInstanceOf(Error);
    const whole = await createStreamed(client, body);
    expect(whole.finishReason).toBe("stop");
  });

  it("turn 2 without streaming: the body is cut off mid-response", async () => {
    const body = flaky(2, { user: "flaky-d" });
    await expect(create(client, body)).rejects.toBeInstanceOf(Error);
    expect(model.log.forUser("flaky-d")[0].outcome).toBe("dropped-connection");
    expect(stepOf(await create(client, body)).tool_call.tool_name).toBe("click");
  });

  it("a client that retries (the openai SDK, honouring retry-after) completes every turn", async () => {
    const retrying = sdk(model.baseUrl, { maxRetries: 3 });
    for (const turn of [0, 1, 3]) {
      const completion = await create(retrying, flaky(turn, { user: "flaky-e" }));
      expect(completion.choices[0].finish_reason).toBe("stop");
    }
    const statuses = model.log.forUser("flaky-e").map((e) => e.status);
    expect(statuses).toEqual([500, 500, 200, 429, 200, 200]);
  });
});

describe("slow profile", () => {
  it("adds no abort listener per request that outlives it (no MaxListenersExceededWarning after many requests)", async () => {
    const slow = await startReferenceModel({
      tasks: [TASK],
      fixtures: { layout: async () => HOME_LAYOUT },
      seed: 0,
      latencyMs: 1,
    });
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on("warning", onWarning);
    try {
      const slowClient = sdk(slow.baseUrl);
      for (let i = 0; i < 14; i++) await create(slowClient, structured("slow"));
      // Process warnings are emitted on a later tick.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(warnings.filter((w) => w.name === "MaxListenersExceededWarning").map((w) => w.message)).toEqual([]);
    } finally {
      process.off("warning", onWarning);
      await slow.close();
    }
  });
});
