/**
 * The Messages API requires the user message after an assistant's tool_use blocks to answer them
 * first (tool_result). The self-test's `loop` negative on the cookie tasks met a request that broke
 * this (the reference model's strict lint answered 400 at messages[18]): a request made while tool
 * uses were still unanswered. Whatever path leads there, the request answers them first.
 */
import { describe, expect, it } from "vitest";
import { resolveAgentConfigs } from "../../../src/agent/config.js";
import { anthropicComputer } from "../../../src/agent/protocols/anthropic-computer.js";
import { lintVendorRequest } from "../../../src/sim/vendor-lint.js";

const PNG_1x1 = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";

function conversation() {
  const [config] = resolveAgentConfigs({
    model: "claude-opus-4-5",
    mode: "anthropic-computer",
    baseUrl: "http://127.0.0.1:9/v1",
    env: {},
  });
  const c = anthropicComputer.open({
    config: config!,
    instruction: "Open the note and answer with its title.",
    offered: ["click", "write", "answer"],
    trialId: "t1",
  });
  c.observe({ screenshot: { data: PNG_1x1, mimeType: "image/png" }, url: "http://127.0.0.1/" });
  return c;
}

/** The lint's rules on the conversation's shape (the computer tool's beta travels as a header, not checked here). */
const shapeViolations = (body: unknown) =>
  lintVendorRequest("anthropic", body).filter((v) =>
    ["anthropic-tool-results", "anthropic-alternation"].includes(v.rule),
  );

const reply = (id: string) => ({
  content: null,
  toolCalls: [],
  reasoning: null,
  finishReason: "tool_use",
  usage: undefined,
  raw: {
    content: [{ type: "tool_use", id, name: "computer", input: { action: "left_click", coordinate: [10, 10] } }],
  },
});

describe("Anthropic: tool uses are answered before anything else", () => {
  it("a request made with tool uses unanswered (no new picture) answers them first, then the held text", () => {
    const c = conversation();
    c.read(reply("toolu_1") as never, 1);
    c.addUserText("You repeated the same click; try something else.");
    const body = c.request() as { messages: { role: string; content: { type: string; tool_use_id?: string }[] }[] };
    const last = body.messages[body.messages.length - 1]!;
    expect(last.role).toBe("user");
    expect(last.content[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_1" });
    expect(last.content.map((b) => b.type)).toEqual(["tool_result", "text"]);
    expect(shapeViolations(body)).toEqual([]);
    // The next picture does not answer the same uses again.
    c.observe({ screenshot: { data: PNG_1x1, mimeType: "image/png" }, url: "http://127.0.0.1/" });
    const next = c.request() as typeof body;
    const results = next.messages.flatMap((m) => m.content).filter((b) => b.type === "tool_result");
    expect(results).toHaveLength(1);
    expect(shapeViolations(next)).toEqual([]);
  });
});
