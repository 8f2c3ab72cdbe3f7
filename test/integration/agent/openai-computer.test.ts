/**
 * OpenAI computer use through the real `openai` SDK's responses API against a real HTTP server:
 * the request as OpenAI documents it, computer actions mapped onto umpire's tools (and refused when
 * they do not map), coordinates against the screenshot's own size at DPR 1 and 2, pending safety
 * checks acknowledged, usage read from the Responses API's fields, truncation.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resolveAgentConfigs } from "../../../src/agent/config.js";
import { createAgentSession } from "../../../src/agent/session.js";
import { startRecordingModel, type RecordingModel } from "../../support/recording-model.js";
import { FAST_RETRY, INSTRUCTION } from "./harness.js";

/** A PNG's signature and IHDR: enough for the size the protocol reads (the model side never decodes it). */
function pngOf(width: number, height: number): Buffer {
  const b = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(b, 0);
  b.writeUInt32BE(13, 8);
  b.write("IHDR", 12, "ascii");
  b.writeUInt32BE(width, 16);
  b.writeUInt32BE(height, 20);
  return b;
}

let server: RecordingModel;
beforeAll(async () => {
  server = await startRecordingModel();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

function computerSession(
  model = "gpt-5.4",
  tools = ["click", "write", "press", "scroll", "wait", "navigate", "answer"],
) {
  const [config] = resolveAgentConfigs({
    model,
    baseUrl: server.baseUrl,
    mode: "openai-computer",
    env: {},
    retry: FAST_RETRY,
  });
  return createAgentSession({
    config: config!,
    instruction: INSTRUCTION,
    tools: tools as never,
    trialId: "trial-oa",
    baseUrl: server.baseUrl,
  });
}

const usage = {
  input_tokens: 1200,
  input_tokens_details: { cached_tokens: 900 },
  output_tokens: 60,
  output_tokens_details: { reasoning_tokens: 25 },
  total_tokens: 1260,
};

function response(output: unknown[], extra: Record<string, unknown> = {}) {
  return {
    kind: "json" as const,
    body: { id: "resp_1", object: "response", status: "completed", output, usage, ...extra },
  };
}

describe("OpenAI computer use", () => {
  it("sends the computer tool, maps batched actions, refuses hover, acknowledges safety checks", async () => {
    const s = computerSession();
    server.enqueue(
      response([
        { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Search for the match." }] },
        {
          type: "computer_call",
          id: "cu_1",
          call_id: "call_1",
          status: "completed",
          pending_safety_checks: [
            { id: "sc_1", code: "malicious_instructions", message: "Page text asks to ignore the user." },
          ],
          actions: [
            { type: "click", button: "left", x: 640, y: 400 },
            { type: "type", text: "BB-042" },
            { type: "keypress", keys: ["ENTER"] },
            { type: "move", x: 1, y: 1 },
          ],
        },
      ]),
    );
    const turn = await s.nextTurn({ screenshot: { data: pngOf(1280, 800) } });
    const first = server.requests[0]!;
    expect(first.path).toBe("/v1/responses");
    expect(first.body.tools).toEqual([
      { type: "computer" },
      expect.objectContaining({ type: "function", name: "navigate" }),
    ]);
    expect(first.body.input[0].role).toBe("user");
    expect(first.body.input[0].content[0]).toEqual({ type: "input_text", text: expect.stringContaining(INSTRUCTION) });
    expect(first.body.input[0].content[1]).toMatchObject({ type: "input_image", detail: "original" });
    expect(first.body).not.toHaveProperty("messages");

    expect(turn.outcome).toBe("actions");
    expect(turn.actions.map((a) => [a.tool, a.args])).toEqual([
      ["click", { element: "point (640, 400) of the screenshot", x: 500, y: 500 }],
      ["write", { content: "BB-042", press_enter: false }],
      ["press", { keys: ["ENTER"] }],
    ]);
    expect(turn.invalid).toEqual([
      expect.objectContaining({ tool: "move", kind: "unsupported_action", message: expect.stringContaining("hover") }),
    ]);
    expect(turn.note).toContain("malicious_instructions");
    expect(turn.reasoning).toBe("Search for the match.");
    expect(turn.usage).toEqual({ inputTokens: 1200, outputTokens: 60, reasoningTokens: 25, cachedTokens: 900 });

    s.addResults(turn.actions.map((a) => ({ id: a.id, status: "success" as const, output: "ok" })));
    server.enqueue(
      response([{ type: "message", role: "assistant", content: [{ type: "output_text", text: "BB-042 ended 2-1." }] }]),
    );
    const second = await s.nextTurn({ screenshot: { data: pngOf(1280, 800) } });
    const input = server.requests[1]!.body.input as Array<Record<string, unknown>>;
    expect(input.map((i) => i.type ?? i.role)).toEqual([
      "user",
      "reasoning",
      "computer_call",
      "computer_call_output",
      "user",
    ]);
    expect(input[3]).toMatchObject({
      call_id: "call_1",
      acknowledged_safety_checks: [{ id: "sc_1", code: "malicious_instructions" }],
      output: { type: "computer_screenshot", image_url: expect.stringMatching(/^data:image\/png;base64,/) },
    });
    expect(JSON.stringify(input[4])).toContain("move: Rejected: not run: moving the pointer");
    expect(second.actions).toEqual([
      expect.objectContaining({ tool: "answer", args: { content: "BB-042 ended 2-1." } }),
    ]);
  });

  it("maps pixels against the image the model saw, at DPR 2 too, and declares its size to the preview model", async () => {
    const s = computerSession("computer-use-preview");
    server.enqueue(
      response([
        {
          type: "computer_call",
          id: "cu_2",
          call_id: "call_2",
          status: "completed",
          pending_safety_checks: [],
          action: { type: "click", button: "left", x: 2559, y: 400 },
        },
      ]),
    );
    const turn = await s.nextTurn({ screenshot: { data: pngOf(2560, 1600) } });
    expect(server.requests[0]!.body.tools[0]).toEqual({
      type: "computer_use_preview",
      display_width: 2560,
      display_height: 1600,
      environment: "browser",
    });
    expect(server.requests[0]!.body.truncation).toBe("auto");
    expect(turn.actions[0]!.args).toMatchObject({ x: 1000, y: 250 });
  });

  it("a right click is refused with the reason, and a cut-off reply is truncated", async () => {
    const s = computerSession();
    server.enqueue(
      response([
        {
          type: "computer_call",
          id: "c",
          call_id: "c3",
          status: "completed",
          pending_safety_checks: [],
          actions: [{ type: "click", button: "right", x: 1, y: 1 }],
        },
      ]),
    );
    const turn = await s.nextTurn({ screenshot: { data: pngOf(1280, 800) } });
    expect(turn.outcome).toBe("invalid");
    expect(turn.invalid[0]!.message).toContain("right-button click");
    s.addResults([]);
    server.enqueue(response([], { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } }));
    expect((await s.nextTurn({ screenshot: { data: pngOf(1280, 800) } })).outcome).toBe("truncated");
  });
});
