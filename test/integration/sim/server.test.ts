import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startReferenceModel, type ReferenceModel } from "../../../src/sim/server.js";
import { PROFILE_NAMES } from "../../../src/sim/profiles.js";
import { HOME_LAYOUT, TASK, create, createStreamed, layoutsByTrial, request, sdk, steps } from "./helpers.js";

let model: ReferenceModel;
let strict: ReferenceModel;
let client: OpenAI;
const otherLayout = {
  ...HOME_LAYOUT,
  marks: HOME_LAYOUT.marks.map((m) => (m.name === "search-box" ? { ...m, x: 0, y: 0 } : m)),
};

beforeAll(async () => {
  const fixtures = layoutsByTrial({ "trial-1": HOME_LAYOUT, "trial-2": otherLayout });
  model = await startReferenceModel({ tasks: [TASK], fixtures });
  strict = await startReferenceModel({ tasks: [TASK], fixtures, strict: true });
  client = sdk(model.baseUrl);
});
afterAll(async () => {
  await model?.close();
  await strict?.close();
});

describe("GET /v1/models", () => {
  it("lists reference and every profile with H's model fields", async () => {
    const page = await client.models.list();
    const ids = page.data.map((m) => m.id);
    expect(ids).toEqual(["reference", ...PROFILE_NAMES.map((p) => `reference:${p}`)]);
    const entry = page.data[0] as unknown as Record<string, unknown>;
    expect(entry).toMatchObject({
      context_length: 65536,
      max_output_length: 4096,
      pricing: { prompt: expect.any(String), completion: expect.any(String) },
    });
    expect(entry.supported_features).toEqual(expect.arrayContaining(["reasoning", "tools"]));
    expect(model.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  });

  it("answers model_not_found for an unknown id, on /models/:id and on completions", async () => {
    await expect(client.models.retrieve("gpt-9")).rejects.toMatchObject({ status: 404, code: "model_not_found" });
    await expect(create(client, request("structured", { model: "reference:nonsense" }))).rejects.toMatchObject({
      status: 404,
      code: "model_not_found",
    });
    expect((await client.models.retrieve("reference:loop")).id).toBe("reference:loop");
  });
});

describe("structured mode", () => {
  it("answers one grounded step as {note, thought, tool_call} with reasoning and usage", async () => {
    const { data, response } = await client.chat.completions.create(request("structured") as never).withResponse();
    const completion = data as OpenAI.Chat.Completions.ChatCompletion;
    expect(response.headers.get("x-umpire-lint")).toBe("ok");
    const choice = completion.choices[0];
    expect(choice.finish_reason).toBe("stop");
    const step = JSON.parse(choice.message.content!);
    expect(step.tool_call).toEqual({ tool_name: "click", element: "Search matches box", x: 500, y: 500 });
    expect(step.note).toContain("On /");
    const message = choice.message as typeof choice.message & { reasoning: string; reasoning_content: string };
    expect(message.reasoning).toMatch(/search-box/);
    expect(message.reasoning_content).toBe(message.reasoning);
    const usage = completion.usage!;
    expect(usage.completion_tokens_details?.reasoning_tokens).toBeGreaterThan(0);
    expect(usage.completion_tokens).toBeGreaterThan(usage.completion_tokens_details!.reasoning_tokens!);
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens);
  });

  it("streams the same step: role, reasoning deltas, content deltas, finish, usage, [DONE]", async () => {
    const plain = await create(client, request("structured", { history: steps(1) }));
    const streamed = await createStreamed(client, request("structured", { history: steps(1) }));
    expect(streamed.content).toBe(plain.choices[0].message.content);
    expect(streamed.finishReason).toBe("stop");
    expect(streamed.reasoning.length).toBeGreaterThan(20);
    expect(streamed.chunks).toBeGreaterThan(5);
    expect(streamed.usage?.prompt_tokens).toBe(plain.usage?.prompt_tokens);
    expect(JSON.parse(streamed.content).tool_call).toEqual({
      tool_name: "write",
      content: "BB-042",
      press_enter: true,
    });
  });

  it("sends SSE lines exactly as OpenAI does", async () => {
    const response = await fetch(`${model.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...request("structured"), stream: true }),
    });
    expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const text = await response.text();
    const events = text.split("\n\n").filter(Boolean);
    expect(events.every((e) => e.startsWith("data: "))).toBe(true);
    expect(events[events.length - 1]).toBe("data: [DONE]");
    const first = JSON.parse(events[0].slice(6));
    expect(first).toMatchObject({
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta: { role: "assistant" }, finish_reason: null }],
    });
    expect(text).not.toContain('"usage"'); // only sent when stream_options.include_usage asks for it
  });
});

describe("tools mode", () => {
  it("answers one tool call with the facts in content and finish tool_calls", async () => {
    const completion = await create(client, request("tools", { history: steps(2) }));
    const choice = completion.choices[0];
    expect(choice.finish_reason).toBe("tool_calls");
    expect(choice.message.tool_calls).toHaveLength(1);
    const call = choice.message.tool_calls![0] as OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
    expect(call.function.name).toBe("click");
    expect(JSON.parse(call.function.arguments)).toMatchObject({
      x: Math.round((250 / 1280) * 1000),
      y: Math.round((212 / 800) * 1000),
    });
    expect(choice.message.content).toContain("On /");
  });

  it("streams tool-call fragments: index, id and name first, then argument pieces", async () => {
    const streamed = await createStreamed(client, request("tools", { history: steps(3) }));
    expect(streamed.finishReason).toBe("tool_calls");
    expect(streamed.toolCalls).toHaveLength(1);
    expect(streamed.toolCalls[0].id).toMatch(/^call_/);
    expect(streamed.toolCalls[0].name).toBe("click");
    expect(JSON.parse(streamed.toolCalls[0].arguments)).toMatchObject({
      element: expect.stringContaining("note save"),
    });
    expect(streamed.content).toBe("BB-042: Pune Pioneers 168/6, Jaipur Kites 169/4");
  });
});

describe("usage, trials and the log", () => {
  it("counts more prompt tokens for more images and more text", async () => {
    const one = await create(client, request("structured"));
    const three = await create(client, request("structured", { history: steps(2) }));
    const five = await create(client, request("structured", { history: steps(4) }));
    expect(three.usage!.prompt_tokens).toBeGreaterThan(one.usage!.prompt_tokens + 2 * 80); // two more 320x200 images (84 tokens each)
    expect(five.usage!.prompt_tokens).toBeGreaterThan(three.usage!.prompt_tokens); // same 3 images, more text
  });

  it("grounds each trial on its own layout, named by the user field", async () => {
    const a = JSON.parse(
      (await create(client, request("structured", { user: "trial-1" }))).choices[0].message.content!,
    );
    const b = JSON.parse(
      (await create(client, request("structured", { user: "trial-2" }))).choices[0].message.content!,
    );
    expect([a.tool_call.x, a.tool_call.y]).toEqual([500, 500]);
    expect([b.tool_call.x, b.tool_call.y]).toEqual([156, 25]);
  });

  it("logs each request with trial, task, turn, outcome and the server's own time, without headers", async () => {
    await fetch(`${model.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer sk-should-not-be-logged" },
      body: JSON.stringify(request("tools", { user: "trial-log", history: steps(1) })),
    });
    const [entry] = model.log.forUser("trial-log");
    expect(entry).toMatchObject({
      status: 200,
      taskId: "note-bb042",
      turn: 1,
      step: 1,
      trajectory: "reference",
      outcome: "action",
      tool: "write",
      mode: "tools",
      lint: [],
    });
    expect(entry.serverMs).toBeGreaterThan(0);
    expect(JSON.stringify(model.log.entries)).not.toContain("sk-should-not-be-logged");
    expect(model.log.medianServerMs()).toBeGreaterThan(0);
  });

  it("works without an Authorization header", async () => {
    const response = await fetch(`${model.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(request("structured")),
    });
    expect(response.status).toBe(200);
  });
});

describe("conformance lint on the wire", () => {
  const withNestedExtraBody = () => {
    const body = request("structured");
    const { structured_outputs, chat_template_kwargs } = body;
    delete body.structured_outputs;
    delete body.chat_template_kwargs;
    return { ...body, extra_body: { structured_outputs, chat_template_kwargs } };
  };

  it("reports violations in x-umpire-lint and the log, and still answers when not strict", async () => {
    const response = await fetch(`${model.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...withNestedExtraBody(), user: "trial-lint" }),
    });
    expect(response.status).toBe(200);
    const header = response.headers.get("x-umpire-lint")!;
    expect(header).toContain("no-extra-body@extra_body");
    expect(header).toContain("enable-thinking@");
    expect(model.log.forUser("trial-lint")[0].lint.map((v) => v.rule)).toEqual(
      expect.arrayContaining(["no-extra-body", "enable-thinking"]),
    );
  });

  it("answers 400 with the violations in strict mode (extra_body nested)", async () => {
    const error = await create(sdk(strict.baseUrl), withNestedExtraBody()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const bad = error as InstanceType<typeof OpenAI.BadRequestError>;
    expect(bad.code).toBe("umpire_lint");
    expect(bad.message).toContain("no-extra-body");
    expect((bad.error as { violations: { rule: string }[] }).violations.map((v) => v.rule)).toContain("no-extra-body");
  });

  it("lets a conformant request through in strict mode, in both modes", async () => {
    const s = await create(sdk(strict.baseUrl), request("structured", { history: steps(4) }));
    const t = await create(sdk(strict.baseUrl), request("tools", { history: steps(4) }));
    expect(s.choices[0].finish_reason).toBe("stop");
    expect(t.choices[0].message.tool_calls?.[0]).toMatchObject({ function: { name: "answer" } });
  });

  it("answers 400 invalid_json for a body that is not JSON", async () => {
    const response = await fetch(`${model.baseUrl}/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{not json",
    });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: { code: string } }).error.code).toBe("invalid_json");
  });
});
