/**
 * Every way a reply can be wrong, sent by a real server through the real openai SDK:
 * classified, never executed, never a crash; cut-offs and refusals kept apart from invalid
 * output; usage read with and without the optional fields.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { reply, startRecordingModel, stepReply, type RecordingModel } from "../../support/recording-model.js";
import { fakePng, session } from "./harness.js";

let server: RecordingModel;
beforeAll(async () => {
  server = await startRecordingModel();
});
afterAll(async () => {
  await server.close();
});
beforeEach(() => {
  server.requests.length = 0;
});

const obs = { screenshot: { data: fakePng(1) } };
const click = (args: Record<string, unknown>) => ({
  note: null,
  thought: "t",
  tool_call: { tool_name: "click", ...args },
});
const good = click({ element: "box", x: 10, y: 20 });

describe("structured mode: malformed steps", () => {
  const cases: Array<[name: string, content: string, kind: string]> = [
    ["empty content", "", "empty_output"],
    ["invalid JSON", '{"note": null, "thought": "t", "tool_call": {', "invalid_json"],
    ["<think> leaking into content", `<think>I will click</think>${JSON.stringify(good)}`, "think_leak"],
    [
      "unknown tool",
      JSON.stringify({ thought: "t", tool_call: { tool_name: "teleport", where: "home" } }),
      "unknown_tool",
    ],
    [
      "tool not offered by the task",
      JSON.stringify({ thought: "t", tool_call: { tool_name: "navigate", url: "/" } }),
      "tool_not_offered",
    ],
    ["missing field", JSON.stringify(click({ element: "box", x: 10 })), "missing_fields"],
    [
      "extra field in the call",
      JSON.stringify(click({ element: "box", x: 10, y: 20, button: "left" })),
      "extra_fields",
    ],
    ["extra field in the step", JSON.stringify({ ...good, confidence: 0.9 }), "extra_fields"],
    ["missing thought", JSON.stringify({ note: null, tool_call: good.tool_call }), "missing_fields"],
    ["wrong type", JSON.stringify(click({ element: "box", x: "512", y: 20 })), "wrong_type"],
    ["float coordinate", JSON.stringify(click({ element: "box", x: 10.5, y: 20 })), "wrong_type"],
    ["coordinate above 1000", JSON.stringify(click({ element: "box", x: 1200, y: 20 })), "out_of_range"],
    ["negative coordinate", JSON.stringify(click({ element: "box", x: 10, y: -1 })), "out_of_range"],
    ["x/y as a two-element list", JSON.stringify(click({ element: "box", x: [512, 300], y: 300 })), "coordinate_list"],
    ["a JSON array", "[1, 2]", "wrong_type"],
  ];
  it.each(cases.map(([name, content, kind]) => [name, kind, content]))(
    "%s is classified %s",
    async (_name, kind, content) => {
      server.enqueue(reply({ content }));
      const agent = session(server.baseUrl);
      const turn = await agent.nextTurn(obs);
      expect(turn.outcome).toBe("invalid");
      expect(turn.actions).toEqual([]);
      expect(turn.invalid).toHaveLength(1);
      expect(turn.invalid[0].kind).toBe(kind);
      expect(turn.invalid[0].id).toBe("trial-1-t1-a1");
      expect(turn.invalid[0].message.length).toBeGreaterThan(10);
      expect(turn.content).toBe(content);
      // The model is told what was wrong, as a <tool_output> user message.
      agent.addResults([]);
      const last = agent.messages().at(-1);
      expect(last?.role).toBe("user");
      expect(last?.content).toMatch(/^<tool_output tool="[a-z_]+">\nRejected: /);
      // Nothing but parsed JSON goes back: never the <think> text.
      expect(JSON.stringify(agent.messages())).not.toContain("I will click");
    },
  );

  it("keeps leaked <think> text as reasoning for the log", async () => {
    server.enqueue(reply({ content: `<think>I will click</think>${JSON.stringify(good)}` }));
    const turn = await session(server.baseUrl).nextTurn(obs);
    expect(turn.reasoning).toBe("I will click");
  });
});

describe("tools mode: malformed calls", () => {
  it("text without a tool call is no_tool_call, answered by a user message", async () => {
    server.enqueue(reply({ content: "I think the search box is at the top." }));
    const agent = session(server.baseUrl, { mode: "tools" });
    const turn = await agent.nextTurn(obs);
    expect(turn.outcome).toBe("invalid");
    expect(turn.invalid[0].kind).toBe("no_tool_call");
    agent.addResults([]);
    expect(agent.messages().slice(-2)).toEqual([
      { role: "assistant", content: "I think the search box is at the top." },
      { role: "user", content: `Rejected: ${turn.invalid[0].message}` },
    ]);
  });

  it("invalid JSON arguments, and every later call of the reply skipped", async () => {
    server.enqueue(
      reply({
        toolCalls: [
          { id: "c1", name: "click", arguments: '{"element":"box","x":1,"y":2}' },
          { id: "c2", name: "click", arguments: '{"element": "box", "x": 5' },
          { id: "c3", name: "write", arguments: '{"content":"BB-042"}' },
        ],
      }),
    );
    const agent = session(server.baseUrl, { mode: "tools" });
    const turn = await agent.nextTurn(obs);
    expect(turn.outcome).toBe("actions");
    expect(turn.actions.map((a) => a.id)).toEqual(["c1"]);
    expect(turn.invalid.map((i) => [i.id, i.kind])).toEqual([
      ["c2", "invalid_json"],
      ["c3", "skipped"],
    ]);
    agent.addResults([{ id: "c1", status: "success", output: "Clicked" }]);
    const tail = agent.messages().slice(-3);
    expect(tail.map((m) => (m.role === "tool" ? m.tool_call_id : m.role))).toEqual(["c1", "c2", "c3"]);
    expect(tail.map((m) => String(m.content).split(":")[0])).toEqual(["Clicked", "Rejected", "Skipped"]);
  });

  it("x/y as a list is rejected in function calling too; empty arguments read as {}", async () => {
    server.enqueue(
      reply({
        toolCalls: [{ id: "c1", name: "click", arguments: '{"element":"box","x":[512,300]}' }],
      }),
    );
    const turn = await session(server.baseUrl, { mode: "tools" }).nextTurn(obs);
    expect(turn.invalid[0].kind).toBe("coordinate_list");

    server.enqueue(reply({ toolCalls: [{ id: "g1", name: "go_back", arguments: "" }] }));
    const back = await session(server.baseUrl, { mode: "tools", tools: ["go_back", "answer"] }).nextTurn(obs);
    expect(back.actions).toEqual([{ id: "g1", tool: "go_back", args: {} }]);
  });
});

describe("cut-offs and refusals", () => {
  it("finish_reason length is truncated, even with a complete-looking step", async () => {
    server.enqueue(stepReply(good, { finishReason: "length" }));
    const agent = session(server.baseUrl);
    const turn = await agent.nextTurn(obs);
    expect(turn.outcome).toBe("truncated");
    expect(turn.actions).toEqual([]);
    expect(agent.messages().filter((m) => m.role === "assistant")).toEqual([]);
  });

  it("message.refusal is refused", async () => {
    server.enqueue(reply({ refusal: "I can't help with deleting records." }));
    const turn = await session(server.baseUrl, { mode: "tools" }).nextTurn(obs);
    expect(turn.outcome).toBe("refused");
    expect(turn.actions).toEqual([]);
  });

  it("refusal text with no action is refused, in both modes", async () => {
    server.enqueue(reply({ content: "I'm sorry, but I cannot assist with that request." }));
    expect((await session(server.baseUrl).nextTurn(obs)).outcome).toBe("refused");
    server.enqueue(reply({ content: "I can't help with that." }));
    expect((await session(server.baseUrl, { mode: "tools" }).nextTurn(obs)).outcome).toBe("refused");
  });
});

describe("usage", () => {
  it("reads reasoning and cached tokens when present", async () => {
    server.enqueue(
      stepReply(good, {
        usage: {
          prompt_tokens: 21166,
          completion_tokens: 307,
          completion_tokens_details: { reasoning_tokens: 200 },
          prompt_tokens_details: { cached_tokens: 0 },
        },
      }),
    );
    const turn = await session(server.baseUrl).nextTurn(obs);
    expect(turn.usage).toEqual({ inputTokens: 21166, outputTokens: 307, reasoningTokens: 200, cachedTokens: 0 });
  });

  it("null for what the server did not say", async () => {
    server.enqueue(stepReply(good, { usage: { prompt_tokens: 10, completion_tokens: 5 } }));
    expect((await session(server.baseUrl).nextTurn(obs)).usage).toEqual({
      inputTokens: 10,
      outputTokens: 5,
      reasoningTokens: null,
      cachedTokens: null,
    });
    server.enqueue(stepReply(good, { usage: null }));
    expect((await session(server.baseUrl).nextTurn(obs)).usage).toEqual({
      inputTokens: null,
      outputTokens: null,
      reasoningTokens: null,
      cachedTokens: null,
    });
  });
});
