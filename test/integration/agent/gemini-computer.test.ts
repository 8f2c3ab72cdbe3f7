/**
 * Gemini computer use through the real `@google/genai` SDK against a real HTTP server: the
 * computerUse tool with umpire's exclusions, predefined calls mapped on the 1000 grid (and refused),
 * functionCalls answered by functionResponses in order with the screenshot, safety_decision
 * acknowledged and logged, usageMetadata, finish reasons (MAX_TOKENS, SAFETY, a blocked prompt), a 429.
 */
import { PNG } from "pngjs";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { resolveAgentConfigs } from "../../../src/agent/config.js";
import { createAgentSession } from "../../../src/agent/session.js";
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

function gemini(tools = ["click", "write", "press", "scroll", "wait", "write_note", "answer"] as const) {
  const [config] = resolveAgentConfigs({
    model: "gemini-2.5-computer-use-preview-10-2025",
    baseUrl: server.baseUrl,
    mode: "gemini-computer",
    env: {},
    retry: FAST_RETRY,
  });
  return createAgentSession({
    config: config!,
    instruction: INSTRUCTION,
    tools: [...tools],
    trialId: "trial-ge",
    baseUrl: server.baseUrl,
  });
}

const usageMetadata = {
  promptTokenCount: 2400,
  candidatesTokenCount: 60,
  thoughtsTokenCount: 20,
  cachedContentTokenCount: 2000,
  totalTokenCount: 2480,
};
function reply(parts: unknown[], finishReason = "STOP") {
  return {
    kind: "json" as const,
    body: { candidates: [{ content: { role: "model", parts }, finishReason, index: 0 }], usageMetadata },
  };
}

describe("Gemini computer use", () => {
  it("declares computerUse with exclusions, maps calls on the 1000 grid, answers each call in order with the screenshot", async () => {
    const s = gemini();
    server.enqueue(
      reply([
        { text: "Looking for the search box.", thought: true },
        { text: "I will search." },
        {
          functionCall: {
            name: "type_text_at",
            args: {
              x: 500,
              y: 250,
              text: "BB-042",
              safety_decision: { decision: "require_confirmation", explanation: "typing" },
            },
          },
        },
        { functionCall: { name: "hover_at", args: { x: 1, y: 1 } } },
      ]),
    );
    const turn = await s.nextTurn({ screenshot: { data: png(2560, 1600) }, url: "http://site/" });
    const req = server.requests[0]!;
    expect(req.path).toBe("/v1/v1beta/models/gemini-2.5-computer-use-preview-10-2025:generateContent");
    expect(req.headers["x-umpire-trial"]).toBe("trial-ge");
    expect(req.body.tools[0].computerUse.environment).toBe("ENVIRONMENT_BROWSER");
    expect(req.body.tools[0].computerUse.excludedPredefinedFunctions).toEqual(
      expect.arrayContaining(["hover_at", "drag_and_drop", "go_forward", "search", "navigate", "go_back"]),
    );
    expect(req.body.tools[1].functionDeclarations.map((d: { name: string }) => d.name)).toEqual(["write_note"]);
    expect(req.body.contents[0].parts.map((p: object) => Object.keys(p)[0])).toEqual(["text", "text", "inlineData"]);
    expect(req.body.systemInstruction.parts[0].text).toContain("web browser");

    // type_text_at is a click, the documented clear (Control+A, Delete) and the typing with Enter.
    expect(turn.actions.map((a) => [a.tool, a.args])).toEqual([
      ["click", expect.objectContaining({ x: 500, y: 250 })],
      ["press", { keys: ["Control", "a"] }],
      ["press", { keys: ["Delete"] }],
      ["write", { content: "BB-042", press_enter: true }],
    ]);
    expect(turn.invalid[0]).toMatchObject({ tool: "hover_at", kind: "unsupported_action" });
    expect(turn.invalid[0]!.message).toContain("hover");
    expect(turn.note).toContain("safety decisions acknowledged: type_text_at: require_confirmation typing");
    expect(turn.reasoning).toBe("Looking for the search box.");
    expect(turn.usage).toEqual({ inputTokens: 2400, outputTokens: 80, reasoningTokens: 20, cachedTokens: 2000 });

    s.addResults(turn.actions.map((a) => ({ id: a.id, status: "success" as const, output: "ok" })));
    server.enqueue(reply([{ text: "BB-042 ended 2-1." }]));
    const second = await s.nextTurn({ screenshot: { data: png(2560, 1600) }, url: "http://site/match" });
    const contents = server.requests[1]!.body.contents;
    expect(contents.map((c: { role: string }) => c.role)).toEqual(["user", "model", "user"]);
    const [typed, hovered] = contents[2].parts.map(
      (p: { functionResponse: Record<string, unknown> }) => p.functionResponse,
    );
    expect(typed).toMatchObject({
      name: "type_text_at",
      response: { url: "http://site/match", safety_acknowledgement: "true" },
    });
    expect(hovered.name).toBe("hover_at");
    expect(JSON.stringify(hovered.response)).toContain("Rejected: not run: moving the pointer");
    // The screenshot rides on the last computer-use response only.
    expect(typed.parts).toBeUndefined();
    expect(hovered.parts[0].inlineData.mimeType).toBe("image/png");
    expect(second.actions).toEqual([
      expect.objectContaining({ tool: "answer", args: { content: "BB-042 ended 2-1." } }),
    ]);
  });

  it("scroll_at's magnitude counts against the CSS viewport; key_combination splits on +; unknown args are refused", async () => {
    const s = gemini();
    server.enqueue(
      reply([
        { functionCall: { name: "scroll_at", args: { x: 500, y: 500, direction: "down", magnitude: 500 } } },
        { functionCall: { name: "key_combination", args: { keys: "Control+Shift+K" } } },
      ]),
    );
    // A DPR 2 screenshot of a 1280x800 viewport: 500 of 1000 is 400 CSS px, 4 notches (not 800 px of the picture).
    const turn = await s.nextTurn({ screenshot: { data: png(2560, 1600) }, devicePixelRatio: 2 });
    expect(turn.actions.map((a) => [a.tool, a.args])).toEqual([
      ["scroll", { direction: "down", amount: 4, x: 500, y: 500 }],
      ["press", { keys: ["Control", "Shift", "K"] }],
    ]);
    s.addResults(turn.actions.map((a) => ({ id: a.id, status: "success" as const, output: "ok" })));
    // A reflection prompt said while the calls wait follows their responses, which must come first.
    s.addUserText("Check the scroll position.");
    server.enqueue(reply([{ functionCall: { name: "click_at", args: { x: "left" } } }]));
    const bad = await s.nextTurn({ screenshot: { data: png(1280, 800) } });
    expect(bad.outcome).toBe("invalid");
    expect(bad.invalid[0]!.message).toContain("click_at needs integer x and y");
    const answer = server.requests[1]!.body.contents[2].parts;
    expect(answer.map((p: object) => Object.keys(p)[0])).toEqual(["functionResponse", "functionResponse", "text"]);
    expect(answer[2].text).toBe("Check the scroll position.");
  });

  it("MAX_TOKENS is a cut-off, SAFETY and a blocked prompt are refusals, a 429 is retried", async () => {
    const s = gemini();
    server.enqueue(
      { kind: "json", status: 429, body: { error: { code: 429, message: "slow down", status: "RESOURCE_EXHAUSTED" } } },
      reply([{ text: "Let me" }], "MAX_TOKENS"),
    );
    const cut = await s.nextTurn({ screenshot: { data: png(1280, 800) } });
    expect(cut.outcome).toBe("truncated");
    expect(cut.failures[0]).toMatchObject({ kind: "rate_limited", status: 429, message: "slow down" });
    server.enqueue(reply([], "SAFETY"));
    expect((await s.nextTurn({ screenshot: { data: png(1280, 800) } })).outcome).toBe("refused");
    server.enqueue({ kind: "json", body: { promptFeedback: { blockReason: "PROHIBITED_CONTENT" }, usageMetadata } });
    expect((await s.nextTurn({ screenshot: { data: png(1280, 800) } })).outcome).toBe("refused");
  });
});
