/**
 * Function-calling mode through the real openai SDK: the exact request after five turns,
 * `tools` + `tool_choice: "required"`, no tool-format examples in the prompt, `tool` results
 * keyed by `tool_call_id`, several calls in one turn answered in order, reasoning dropped.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildFunctionTools } from "../../../src/agent/step-schema.js";
import { reply, startRecordingModel, type RecordingModel } from "../../support/recording-model.js";
import { INSTRUCTION, TOOLS, b64, fakePng, session } from "./harness.js";

let server: RecordingModel;
beforeAll(async () => {
  server = await startRecordingModel();
});
afterAll(async () => {
  await server.close();
});

const observation = (n: number, evicted = false) => ({
  role: "user",
  content: [
    { type: "text", text: "<observation>\n" },
    evicted
      ? { type: "text", text: "[screenshot evicted]" }
      : { type: "image_url", image_url: { url: `data:image/png;base64,${b64(n)}` } },
    { type: "text", text: "\n</observation>" },
  ],
});

describe("tools mode, five turns", () => {
  it("sends the function-calling layout with matching tool_call_ids", async () => {
    const agent = session(server.baseUrl, { mode: "tools", trialId: "trial-9" });
    server.enqueue(
      reply({
        reasoning: "SECRET-R1",
        reasoningField: "reasoning_content",
        toolCalls: [{ id: "call_a", name: "click", arguments: '{"element":"search box","x":500,"y":300}' }],
      }),
      // Two calls in one turn: both executed, both answered in order.
      reply({
        content: "Searching for BB-042.",
        reasoning: "SECRET-R2",
        toolCalls: [
          { id: "call_b", name: "write", arguments: '{"content":"BB-042"}' },
          { id: "call_c", name: "press", arguments: '{"keys":["Enter"]}' },
        ],
      }),
      // A call without an id gets umpire's stable id.
      reply({
        reasoning: "SECRET-R3",
        toolCalls: [{ name: "click", arguments: '{"element":"result BB-042","x":210,"y":420}' }],
      }),
      reply({
        content: "Pune 168/6, Jaipur 169/4.",
        toolCalls: [{ id: "call_d", name: "scroll", arguments: '{"direction":"down","amount":3}' }],
      }),
      reply({
        toolCalls: [{ id: "call_e", name: "answer", arguments: '{"content":"Jaipur Kites won by 6 wickets"}' }],
      }),
    );
    const turns = [];
    for (let i = 1; i <= 5; i++) {
      const turn = await agent.nextTurn({ screenshot: { data: fakePng(i) } });
      turns.push(turn);
      if (i < 5)
        agent.addResults(turn.actions.map((a) => ({ id: a.id, status: "success" as const, output: `done ${a.id}` })));
    }
    expect(turns.map((t) => t.outcome)).toEqual(["actions", "actions", "actions", "actions", "actions"]);
    expect(turns[0].reasoning).toBe("SECRET-R1");
    expect(turns[1].actions.map((a) => a.id)).toEqual(["call_b", "call_c"]);
    expect(turns[1].actions[0].args).toEqual({ content: "BB-042", press_enter: false });
    expect(turns[1].note).toBe("Searching for BB-042.");
    expect(turns[2].actions[0].id).toBe("trial-9-t3-a1");

    const body = server.requests[4].body;
    const call = (id: string, name: string, args: unknown) => ({
      id,
      type: "function",
      function: { name, arguments: JSON.stringify(args) },
    });
    const tool = (id: string) => ({ role: "tool", tool_call_id: id, content: `done ${id}` });
    expect(body.messages.slice(1)).toEqual([
      observation(1, true),
      {
        role: "assistant",
        content: null,
        tool_calls: [call("call_a", "click", { element: "search box", x: 500, y: 300 })],
      },
      tool("call_a"),
      observation(2, true),
      {
        role: "assistant",
        content: "Searching for BB-042.",
        tool_calls: [
          call("call_b", "write", { content: "BB-042", press_enter: false }),
          call("call_c", "press", { keys: ["Enter"] }),
        ],
      },
      tool("call_b"),
      tool("call_c"),
      observation(3),
      {
        role: "assistant",
        content: null,
        tool_calls: [call("trial-9-t3-a1", "click", { element: "result BB-042", x: 210, y: 420 })],
      },
      tool("trial-9-t3-a1"),
      observation(4),
      {
        role: "assistant",
        content: "Pune 168/6, Jaipur 169/4.",
        tool_calls: [call("call_d", "scroll", { direction: "down", amount: 3 })],
      },
      tool("call_d"),
      observation(5),
    ]);

    expect(body.tools).toEqual(buildFunctionTools(TOOLS));
    expect(body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(TOOLS);
    expect(body.tool_choice).toBe("required");
    expect(body).not.toHaveProperty("structured_outputs");
    expect(body.chat_template_kwargs).toEqual({ enable_thinking: true });
    expect(body.reasoning_effort).toBe("medium");

    const system: string = body.messages[0].content;
    expect(system).toContain(`<task>\n${INSTRUCTION}\n</task>`);
    expect(system).toContain("[0, 1000]");
    // No tool-format example of any kind: no schema block, no JSON, no call syntax.
    expect(system).not.toContain("<output_format>");
    expect(system).not.toMatch(/[{}]|tool_call|"name"|<tool/);
    for (const request of server.requests) {
      expect(request.raw).not.toContain("extra_body");
      expect(request.raw).not.toContain("SECRET-R");
    }
  });

  it("answers every call of a turn even when the runner reports only some", async () => {
    server.requests.length = 0;
    const agent = session(server.baseUrl, { mode: "tools" });
    server.enqueue(
      reply({
        toolCalls: [
          { id: "c1", name: "click", arguments: '{"element":"a","x":1,"y":2}' },
          { id: "c2", name: "write", arguments: '{"content":"x"}' },
        ],
      }),
      reply({ toolCalls: [{ id: "c3", name: "answer", arguments: '{"content":"ok"}' }] }),
    );
    await agent.nextTurn({ screenshot: { data: fakePng(1) } });
    agent.addResults([{ id: "c1", status: "failed", output: "the page did not respond" }]);
    expect(() => agent.addResults([])).toThrow(/no turn is waiting/);
    await agent.nextTurn({ screenshot: { data: fakePng(2) } });
    const messages = server.requests[1].body.messages;
    expect(messages.slice(3, 5)).toEqual([
      { role: "tool", tool_call_id: "c1", content: "Failed: the page did not respond" },
      { role: "tool", tool_call_id: "c2", content: "Skipped: the action was not run" },
    ]);
  });
});
