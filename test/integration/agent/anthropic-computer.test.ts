/**
 * Anthropic computer use through the real `@anthropic-ai/sdk` against a real HTTP server: the
 * computer tool in its current version with the beta header, tool_use answered by tool_result with
 * the screenshot, screenshots scaled as Anthropic recommends and Claude's pixels mapped against the
 * scaled picture (DPR 1 and 2), refused actions, prompt caching, usage with cache reads, stop reasons.
 */
import Anthropic from "@anthropic-ai/sdk";
import { PNG } from "pngjs";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { type AgentConfig, resolveAgentConfigs } from "../../../src/agent/config.js";
import { createAgentSession } from "../../../src/agent/session.js";
import { scaledSize } from "../../../src/agent/protocols/screenshot-scale.js";
import { startRecordingModel, type RecordingModel } from "../../support/recording-model.js";
import { FAST_RETRY, INSTRUCTION } from "./harness.js";

function png(width: number, height: number): Buffer {
  return PNG.sync.write(new PNG({ width, height }));
}

let server: RecordingModel;
beforeAll(async () => {
  server = await startRecordingModel();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

function claude(model = "claude-opus-4-5", computerTool?: AgentConfig["computerTool"]) {
  const [config] = resolveAgentConfigs({
    model,
    baseUrl: server.baseUrl,
    mode: "anthropic-computer",
    env: {},
    retry: FAST_RETRY,
  });
  return createAgentSession({
    config: { ...config!, ...(computerTool && { computerTool }) },
    instruction: INSTRUCTION,
    tools: ["click", "double_click", "write", "press", "scroll", "wait", "write_note", "answer"],
    trialId: "trial-an",
    baseUrl: server.baseUrl,
  });
}

const usage = { input_tokens: 300, cache_read_input_tokens: 2000, cache_creation_input_tokens: 100, output_tokens: 80 };
function message(content: unknown[], stop_reason = "tool_use") {
  return {
    kind: "json" as const,
    body: { id: "msg_1", type: "message", role: "assistant", model: "claude-opus-4-5", content, stop_reason, usage },
  };
}

describe("Anthropic computer use", () => {
  it("declares the current computer tool, maps a click exactly, answers tool_use with tool_result and the screenshot", async () => {
    const s = claude();
    server.enqueue(
      message([
        { type: "text", text: "I will open the match." },
        { type: "tool_use", id: "toolu_1", name: "computer", input: { action: "left_click", coordinate: [640, 400] } },
        { type: "tool_use", id: "toolu_2", name: "computer", input: { action: "right_click", coordinate: [1, 1] } },
      ]),
    );
    const turn = await s.nextTurn({ screenshot: { data: png(1280, 800) } });
    const req = server.requests[0]!;
    expect(req.path).toMatch(/\/messages$/);
    expect(req.headers["anthropic-beta"]).toContain("computer-use-2025-11-24");
    expect(req.body.tools[0]).toEqual({
      type: "computer_20251124",
      name: "computer",
      display_width_px: 1280,
      display_height_px: 800,
    });
    expect(req.body.tools[1]).toMatchObject({ name: "write_note", input_schema: { type: "object" } });
    expect(req.body.system[0].cache_control).toEqual({ type: "ephemeral" });
    const first = req.body.messages[0];
    expect(first.role).toBe("user");
    expect(first.content.at(-1).cache_control).toEqual({ type: "ephemeral" });
    expect(first.content.map((b: { type: string }) => b.type)).toEqual(["text", "image"]);

    expect(turn.actions.map((a) => [a.tool, a.args.x, a.args.y])).toEqual([["click", 500, 500]]);
    expect(turn.invalid[0]).toMatchObject({ tool: "right_click", kind: "unsupported_action" });
    expect(turn.usage).toEqual({ inputTokens: 2400, outputTokens: 80, reasoningTokens: null, cachedTokens: 2000 });

    s.addResults([{ id: turn.actions[0]!.id, status: "success", output: "Clicked at (640, 400)" }]);
    server.enqueue(message([{ type: "text", text: "BB-042 ended 2-1." }], "end_turn"));
    const second = await s.nextTurn({ screenshot: { data: png(1280, 800) } });
    const messages = server.requests[1]!.body.messages;
    expect(messages.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user"]);
    const results = messages[2].content;
    expect(results[0]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_1" });
    expect(results[1]).toMatchObject({ type: "tool_result", tool_use_id: "toolu_2" });
    expect(JSON.stringify(results[1])).toContain("Rejected: not run: the computer action 'right_click'");
    expect(results[1].content.at(-1).type).toBe("image");
    expect(second.actions).toEqual([
      expect.objectContaining({ tool: "answer", args: { content: "BB-042 ended 2-1." } }),
    ]);
  });

  it("scales a DPR 2 screenshot as recommended, declares the scaled size and maps Claude's pixels against it", async () => {
    const s = claude("claude-sonnet-4-20250514");
    const scaled = scaledSize(2560, 1600);
    expect(scaled.width * scaled.height).toBeLessThanOrEqual(1_150_000);
    server.enqueue(
      message([
        {
          type: "tool_use",
          id: "toolu_3",
          name: "computer",
          input: { action: "left_click", coordinate: [scaled.width / 2, scaled.height / 4] },
        },
      ]),
    );
    const turn = await s.nextTurn({ screenshot: { data: png(2560, 1600) } });
    const req = server.requests[0]!;
    expect(req.headers["anthropic-beta"]).toContain("computer-use-2025-01-24");
    expect(req.body.tools[0]).toMatchObject({
      type: "computer_20250124",
      display_width_px: scaled.width,
      display_height_px: scaled.height,
    });
    const sent = Buffer.from(req.body.messages[0].content[1].source.data, "base64");
    expect([sent.readUInt32BE(16), sent.readUInt32BE(20)]).toEqual([scaled.width, scaled.height]);
    expect(turn.actions[0]!.args).toMatchObject({ x: 500, y: 250 });
  });

  it("max_tokens is a cut-off, a refusal is refused, a 429 is retried", async () => {
    const s = claude();
    server.enqueue(
      {
        kind: "json",
        status: 429,
        body: { type: "error", error: { type: "rate_limit_error", message: "slow down" } },
        headers: { "retry-after": "0" },
      },
      message([{ type: "text", text: "Let me" }], "max_tokens"),
    );
    const cut = await s.nextTurn({ screenshot: { data: png(1280, 800) } });
    expect(cut.outcome).toBe("truncated");
    expect(cut.failures[0]).toMatchObject({ kind: "rate_limited", status: 429 });
    server.enqueue(message([], "refusal"));
    expect((await s.nextTurn({ screenshot: { data: png(1280, 800) } })).outcome).toBe("refused");
  });
});

const toolsetClaude = () => claude("claude-opus-4-7", "computer_toolset_20260801");

const member = (id: string, name: string, input: Record<string, unknown>) => ({
  type: "tool_use",
  id,
  name,
  input,
  toolset_name: "computer",
});

describe("Anthropic computer toolset (computerTool: computer_toolset_20260801)", () => {
  it("sends the toolset entry through the non-beta call with the members umpire cannot run switched off", async () => {
    const s = toolsetClaude();
    server.enqueue(message([{ type: "text", text: "Looking." }], "end_turn"));
    // Both calls POST /v1/messages; the generally available one is what the SDK types the toolset in.
    const generallyAvailable = vi.spyOn(Anthropic.Messages.prototype, "create");
    const beta = vi.spyOn(Anthropic.Beta.Messages.prototype, "create");
    await s.nextTurn({ screenshot: { data: png(1280, 800) } });
    expect([generallyAvailable.mock.calls.length, beta.mock.calls.length]).toEqual([1, 0]);
    generallyAvailable.mockRestore();
    beta.mockRestore();
    const req = server.requests[0]!;
    expect(req.url).toMatch(/\/v1\/messages$/);
    expect(req.headers["anthropic-beta"]).toBeUndefined();
    expect(req.body).not.toHaveProperty("betas");
    const off = { enabled: false };
    expect(req.body.tools[0]).toEqual({
      type: "computer_toolset_20260801",
      configs: {
        hold_key: off,
        cursor_position: off,
        mouse_move: off,
        left_mouse_down: off,
        left_mouse_up: off,
        left_click_drag: off,
        right_click: off,
        middle_click: off,
        triple_click: off,
        zoom: off,
      },
    });
    expect(req.body.tools.slice(1).map((t: { name: string }) => t.name)).toEqual(["write_note"]);
  });

  it("maps member calls as the single tool's actions, refuses a switched-off member, answers with toolset_name", async () => {
    const s = toolsetClaude();
    server.enqueue(
      message([
        member("toolu_a", "left_click", { coordinate: [640, 400] }),
        member("toolu_b", "key", { text: "ctrl+a" }),
        member("toolu_c", "scroll", { coordinate: [320, 200], scroll_direction: "down", scroll_amount: 3 }),
        member("toolu_d", "wait", { duration: 2 }),
        { type: "tool_use", id: "toolu_e", name: "write_note", input: { name: "seen.md", content: "seen" } },
        member("toolu_f", "right_click", { coordinate: [1, 1] }),
      ]),
    );
    const turn = await s.nextTurn({ screenshot: { data: png(1280, 800) } });
    expect(turn.actions.map((a) => [a.tool, a.args])).toEqual([
      ["click", { element: "point (640,400) of the screenshot", x: 500, y: 500 }],
      ["press", { keys: ["ctrl", "a"] }],
      ["scroll", { direction: "down", amount: 3, x: 250, y: 250 }],
      ["wait", { seconds: 2 }],
      ["write_note", { name: "seen.md", content: "seen" }],
    ]);
    expect(turn.invalid.map((i) => [i.tool, i.kind])).toEqual([["right_click", "unsupported_action"]]);
    s.addResults(turn.actions.map((a) => ({ id: a.id, status: "success" as const, output: "ok" })));
    server.enqueue(message([{ type: "text", text: "Done." }], "end_turn"));
    await s.nextTurn({ screenshot: { data: png(1280, 800) } });
    const body = server.requests[1]!.body;
    const results = body.messages[2].content.filter((b: { type: string }) => b.type === "tool_result");
    expect(results.map((r: { tool_use_id: string; toolset_name?: string }) => [r.tool_use_id, r.toolset_name])).toEqual(
      [
        ["toolu_a", "computer"],
        ["toolu_b", "computer"],
        ["toolu_c", "computer"],
        ["toolu_d", "computer"],
        ["toolu_e", undefined],
        ["toolu_f", "computer"],
      ],
    );
    // The new screenshot goes with the last member's result only.
    expect(results.map((r: { content: { type: string }[] }) => r.content.at(-1)!.type)).toEqual([
      "text",
      "text",
      "text",
      "text",
      "text",
      "image",
    ]);
    expect(JSON.stringify(results[5])).toContain("switched off");
    const breakpoints = JSON.stringify(body).match(/"cache_control"/g) ?? [];
    expect(breakpoints.length).toBeGreaterThan(0);
    expect(breakpoints.length).toBeLessThanOrEqual(4);
  });

  it("maps a member's pixels against the scaled DPR 2 picture it was sent", async () => {
    const s = toolsetClaude();
    const scaled = scaledSize(2560, 1600);
    server.enqueue(message([member("toolu_z", "double_click", { coordinate: [scaled.width / 2, scaled.height / 4] })]));
    const turn = await s.nextTurn({ screenshot: { data: png(2560, 1600) } });
    const sent = Buffer.from(server.requests[0]!.body.messages[0].content[1].source.data, "base64");
    expect([sent.readUInt32BE(16), sent.readUInt32BE(20)]).toEqual([scaled.width, scaled.height]);
    expect(turn.actions[0]).toMatchObject({ tool: "double_click", args: { x: 500, y: 250 } });
  });
});
