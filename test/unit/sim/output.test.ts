import { describe, expect, it } from "vitest";
import { REFUSAL_TEXT, completionUsage, renderOutput } from "../../../src/sim/output.js";
import type { PlannedTurn } from "../../../src/sim/policy.js";
import { MALFORMED_KINDS } from "../../../src/sim/profiles.js";
import { imageTokens, promptTokens } from "../../../src/sim/usage.js";
import { samplePng, sampleRequest } from "../../../src/sim/sample-request.js";
import { messagesOf } from "../../../src/sim/request.js";

const plan = (turn = 0): PlannedTurn => ({
  taskId: "t",
  trajectory: "reference",
  step: 0,
  progress: { turn, stepsPlayed: turn, trailingHolds: 0, stepsBeforeReflection: null },
  action: { tool: "click", args: { element: "Search box", x: 500, y: 512 } },
  note: "On /: search-box",
  thought: "Click Search box (step 1 of 3 of the plan).",
  reasoning: "The search box is in the middle of the page.",
});

describe("renderOutput", () => {
  it("structured mode: one {note, thought, tool_call} object in content, finish stop", () => {
    const out = renderOutput(plan(), { mode: "structured", profile: "gold", seed: 0 });
    expect(out.finishReason).toBe("stop");
    expect(out.toolCalls).toEqual([]);
    expect(JSON.parse(out.content!)).toEqual({
      note: "On /: search-box",
      thought: plan().thought,
      tool_call: { tool_name: "click", element: "Search box", x: 500, y: 512 },
    });
  });

  it("tools mode: one tool call, the note in content, finish tool_calls", () => {
    const out = renderOutput(plan(), { mode: "tools", profile: "gold", seed: 0 });
    expect(out.finishReason).toBe("tool_calls");
    expect(out.content).toBe("On /: search-box");
    expect(out.toolCalls).toHaveLength(1);
    expect(out.toolCalls[0].id).toMatch(/^call_/);
    expect(JSON.parse(out.toolCalls[0].arguments)).toEqual({ element: "Search box", x: 500, y: 512 });
  });

  it("refuse sets refusal and the refusal text, with no action", () => {
    for (const mode of ["structured", "tools"] as const) {
      const out = renderOutput(plan(), { mode, profile: "refuse", seed: 0 });
      expect(out).toMatchObject({ refusal: REFUSAL_TEXT, content: REFUSAL_TEXT, toolCalls: [], finishReason: "stop" });
    }
  });

  it("truncate cuts the JSON in half with finish length", () => {
    const structured = renderOutput(plan(), { mode: "structured", profile: "truncate", seed: 0 });
    expect(structured.finishReason).toBe("length");
    expect(() => JSON.parse(structured.content!)).toThrow();
    const tools = renderOutput(plan(), { mode: "tools", profile: "truncate", seed: 0 });
    expect(tools.finishReason).toBe("length");
    expect(() => JSON.parse(tools.toolCalls[0].arguments)).toThrow();
  });

  it("a max_tokens smaller than the reasoning gives finish length and no action", () => {
    const out = renderOutput(plan(), { mode: "tools", profile: "gold", seed: 0, maxTokens: 5 });
    expect(out).toMatchObject({ finishReason: "length", toolCalls: [], kind: "budget-exceeded" });
    expect(out.reasoning.length).toBe(20);
  });

  it("malformed walks every kind, each visibly wrong in structured mode", () => {
    const outputs = MALFORMED_KINDS.map((_, turn) =>
      renderOutput(plan(turn), { mode: "structured", profile: "malformed", seed: 0 }),
    );
    expect(outputs.map((o) => o.kind)).toEqual(MALFORMED_KINDS.map((k) => `malformed:${k}`));
    const call = (i: number) => JSON.parse(outputs[i].content!).tool_call;
    expect(() => JSON.parse(outputs[0].content!)).toThrow(); // invalid-json
    expect(call(1).tool_name).toBe("teleport");
    expect(call(2)).not.toHaveProperty("y");
    expect(call(3)).toHaveProperty("button");
    expect(typeof call(4).x).toBe("string");
    expect(call(5).x).toBe(1500);
    expect(call(6).x).toEqual([500, 512]);
    expect(outputs[7].content).toMatch(/^<think>/);
    expect(outputs[8].content).toBe("");
  });

  it("malformed in tools mode puts the fault in the tool call", () => {
    const out = (turn: number) => renderOutput(plan(turn), { mode: "tools", profile: "malformed", seed: 0 });
    expect(() => JSON.parse(out(0).toolCalls[0].arguments)).toThrow();
    expect(out(1).toolCalls[0].name).toBe("teleport");
    expect(JSON.parse(out(5).toolCalls[0].arguments).x).toBe(1500);
    expect(out(7).content).toMatch(/^<think>/);
    expect(out(8)).toMatchObject({ content: "", toolCalls: [] });
  });
});

describe("usage", () => {
  it("counts reasoning inside completion tokens", () => {
    const out = renderOutput(plan(), { mode: "structured", profile: "gold", seed: 0 });
    const { completionTokens, reasoningTokens } = completionUsage(out);
    expect(reasoningTokens).toBe(Math.ceil(plan().reasoning.length / 4));
    expect(completionTokens).toBeGreaterThan(reasoningTokens);
  });

  it("grows prompt tokens with text and with each image's pixel count", () => {
    const small = samplePng(320, 200);
    const big = samplePng(1280, 800);
    const req = (screenshot: Buffer, steps: number) =>
      sampleRequest({
        mode: "structured",
        instruction: "Find BB-042.",
        screenshot,
        history: Array.from({ length: steps }, () => ({ tool: "wait" as const, args: { seconds: 1 } })),
      });
    const tokens = (body: Record<string, unknown>) => promptTokens(body, messagesOf(body));
    expect(tokens(req(big, 0)) - tokens(req(small, 0))).toBe(imageTokens(1280, 800) - imageTokens(320, 200));
    expect(tokens(req(big, 1))).toBeGreaterThan(tokens(req(big, 0)) + imageTokens(1280, 800));
    expect(imageTokens(1280, 800)).toBe(1309);
  });
});
