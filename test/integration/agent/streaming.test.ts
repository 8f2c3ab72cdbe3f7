/**
 * `--stream` through the real openai SDK and real SSE: deltas (content, reasoning, tool-call
 * fragments) accumulated, time to first token measured, usage from the final chunk, and a
 * stream that breaks off or ends early never turned into actions.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startRecordingModel, streamChunks, type RecordingModel } from "../../support/recording-model.js";
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
const step = {
  note: "BB-042 found",
  thought: "Open it.",
  tool_call: { tool_name: "click", element: "result BB-042", x: 210, y: 420 },
};
const usage = {
  prompt_tokens: 1500,
  completion_tokens: 300,
  completion_tokens_details: { reasoning_tokens: 250 },
  prompt_tokens_details: { cached_tokens: 1024 },
};

describe("streaming", () => {
  it("accumulates a structured step and its reasoning, measures TTFT and reads usage", async () => {
    server.enqueue({
      kind: "sse",
      chunks: streamChunks({ content: JSON.stringify(step), reasoning: "I should open the result.", usage }),
    });
    const turn = await session(server.baseUrl, { stream: true }).nextTurn(obs);
    expect(turn.outcome).toBe("actions");
    expect(turn.actions).toEqual([
      { id: "trial-1-t1-a1", tool: "click", args: { element: "result BB-042", x: 210, y: 420 } },
    ]);
    expect(turn.reasoning).toBe("I should open the result.");
    expect(turn.note).toBe("BB-042 found");
    expect(typeof turn.timing.ttftMs).toBe("number");
    expect(turn.timing.ttftMs).toBeGreaterThanOrEqual(0);
    expect(turn.usage).toEqual({ inputTokens: 1500, outputTokens: 300, reasoningTokens: 250, cachedTokens: 1024 });
    expect(server.requests[0].body.stream).toBe(true);
    expect(server.requests[0].body.stream_options).toEqual({ include_usage: true });
  });

  it("reassembles tool-call fragments (reasoning_content deltas) before parsing", async () => {
    server.enqueue({
      kind: "sse",
      chunks: streamChunks({
        reasoning: "two steps",
        reasoningField: "reasoning_content",
        toolCalls: [
          { id: "call_1", name: "click", arguments: '{"element":"search box","x":500,"y":300}' },
          { id: "call_2", name: "write", arguments: '{"content":"BB-042","press_enter":true}' },
        ],
      }),
    });
    const turn = await session(server.baseUrl, { stream: true, mode: "tools" }).nextTurn(obs);
    expect(turn.outcome).toBe("actions");
    expect(turn.reasoning).toBe("two steps");
    expect(turn.actions).toEqual([
      { id: "call_1", tool: "click", args: { element: "search box", x: 500, y: 300 } },
      { id: "call_2", tool: "write", args: { content: "BB-042", press_enter: true } },
    ]);
    expect(turn.usage.inputTokens).toBeNull();
  });

  it("never executes a stream that breaks off: what arrived is logged, the request is retried", async () => {
    const chunks = streamChunks({
      reasoning: "click then type",
      toolCalls: [{ id: "call_1", name: "click", arguments: '{"element":"Delete match","x":512,"y":300}' }],
    });
    // Cut after the first half of the arguments: `{"element":"Delete match",...` never completes.
    const cut = chunks.findIndex((c) => JSON.stringify(c).includes('"arguments":"{')) + 1;
    server.enqueue({ kind: "sse", chunks, breakAfter: cut });
    server.enqueue({
      kind: "sse",
      chunks: streamChunks({
        toolCalls: [{ id: "call_2", name: "write", arguments: '{"content":"BB-042","press_enter":true}' }],
      }),
    });
    const agent = session(server.baseUrl, { stream: true, mode: "tools" });
    const turn = await agent.nextTurn(obs);
    // The broken partial call was never executed; the complete retry is what counts.
    expect(turn.outcome).toBe("actions");
    expect(turn.actions).toEqual([{ id: "call_2", tool: "write", args: { content: "BB-042", press_enter: true } }]);
    expect(server.requests).toHaveLength(2);
    expect(turn.failures).toHaveLength(1);
    expect(turn.failures[0]).toMatchObject({ kind: "stream_broken" });
    expect(turn.failures[0].message).toContain("Delete ma");
  });

  it("a stream that keeps breaking ends as an error with the partial kept and nothing executed", async () => {
    const chunks = streamChunks({
      reasoning: "click then type",
      toolCalls: [{ id: "call_1", name: "click", arguments: '{"element":"Delete match","x":512,"y":300}' }],
    });
    const cut = chunks.findIndex((c) => JSON.stringify(c).includes('"arguments":"{')) + 1;
    // The first attempt and every retry (FAST_RETRY: 3) break off.
    for (let i = 0; i < 4; i++) server.enqueue({ kind: "sse", chunks, breakAfter: cut });
    const agent = session(server.baseUrl, { stream: true, mode: "tools" });
    const turn = await agent.nextTurn(obs);
    expect(turn.outcome).toBe("error");
    expect(turn.error?.kind).toBe("stream_broken");
    expect(turn.actions).toEqual([]);
    expect(turn.reasoning).toBe("click then type");
    expect(turn.toolCalls[0].name).toBe("click");
    expect(() => JSON.parse(turn.toolCalls[0].arguments)).toThrow();
    expect(server.requests).toHaveLength(4);
    expect(agent.messages().filter((m) => m.role === "assistant")).toEqual([]);
  });

  it("a stream that ends without a finish reason is a cut-off, not done", async () => {
    const chunks = streamChunks({ content: JSON.stringify(step), finishReason: null });
    server.enqueue({ kind: "sse", chunks });
    const turn = await session(server.baseUrl, { stream: true }).nextTurn(obs);
    expect(turn.outcome).toBe("truncated");
    expect(turn.actions).toEqual([]);
    expect(turn.content).toBe(JSON.stringify(step));
  });

  it("finish_reason length while streaming is truncated", async () => {
    server.enqueue({
      kind: "sse",
      chunks: streamChunks({ reasoning: "long thinking", content: '{"note": null, "thou', finishReason: "length" }),
    });
    const turn = await session(server.baseUrl, { stream: true }).nextTurn(obs);
    expect(turn.outcome).toBe("truncated");
    expect(turn.finishReason).toBe("length");
    expect(turn.content).toBe('{"note": null, "thou');
  });
});
