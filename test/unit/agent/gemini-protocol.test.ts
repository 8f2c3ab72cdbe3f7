/** Gemini computer use, pure parts (#41): the predefined functions mapped or refused, exclusions, usage, finish reasons. */
import { describe, expect, it } from "vitest";
import { PNG } from "pngjs";
import { resolveAgentConfigs } from "../../../src/agent/config.js";
import { nativeProtocolOf } from "../../../src/agent/models.js";
import {
  excludedFunctions,
  GEMINI_PREDEFINED,
  mapGeminiAction,
  notches,
} from "../../../src/agent/protocols/gemini-actions.js";
import { PROTOCOLS } from "../../../src/agent/protocols/registry.js";
import { replyFromGenerateContent } from "../../../src/agent/reply.js";
import { readUsage } from "../../../src/agent/usage.js";

const FRAME = { width: 1280, height: 800 };
const FRAME_DPR2 = { width: 2560, height: 1600 };

describe("Gemini's predefined functions onto umpire's tools", () => {
  it("passes grid coordinates unchanged, so a point is the same at DPR 1 and 2", () => {
    for (const frame of [FRAME, FRAME_DPR2]) {
      expect(mapGeminiAction("click_at", { x: 999, y: 0 }, frame)).toEqual([
        { tool: "click", args: expect.objectContaining({ x: 999, y: 0 }) },
      ]);
    }
  });

  it("maps every supported function and refuses the rest with the reason", () => {
    expect(mapGeminiAction("open_web_browser", {}, FRAME)).toEqual([{ tool: "wait", args: { seconds: 0 } }]);
    expect(mapGeminiAction("wait_5_seconds", {}, FRAME)).toEqual([{ tool: "wait", args: { seconds: 5 } }]);
    expect(mapGeminiAction("go_back", {}, FRAME)).toEqual([{ tool: "go_back", args: {} }]);
    expect(mapGeminiAction("navigate", { url: "/m/BB-042" }, FRAME)).toEqual([
      { tool: "navigate", args: { url: "/m/BB-042" } },
    ]);
    expect(mapGeminiAction("key_combination", { keys: "Control+c" }, FRAME)).toEqual([
      { tool: "press", args: { keys: ["Control", "c"] } },
    ]);
    expect(mapGeminiAction("scroll_document", { direction: "down" }, FRAME)).toEqual([
      { tool: "press", args: { keys: ["PageDown"] } },
    ]);
    expect(mapGeminiAction("scroll_document", { direction: "left" }, FRAME)).toEqual([
      { tool: "scroll", args: { direction: "left", amount: 6 } },
    ]);
    // The documented default magnitude, 800 of 1000, of an 800 CSS px tall viewport: 640 px, 6 notches.
    expect(mapGeminiAction("scroll_at", { x: 10, y: 20, direction: "up" }, FRAME)).toEqual([
      { tool: "scroll", args: { direction: "up", amount: 6, x: 10, y: 20 } },
    ]);
    expect(
      mapGeminiAction("type_text_at", { x: 1, y: 2, text: "a", press_enter: false, clear_before_typing: false }, FRAME),
    ).toEqual([
      { tool: "click", args: expect.objectContaining({ x: 1, y: 2 }) },
      { tool: "write", args: { content: "a", press_enter: false } },
    ]);
    for (const name of ["hover_at", "drag_and_drop", "go_forward", "search"] as const) {
      const [mapped] = mapGeminiAction(name, { x: 1, y: 1 }, FRAME);
      expect(mapped).toHaveProperty("refuse");
    }
    expect(mapGeminiAction("scroll_at", { x: 1, y: 1, direction: "diagonal" }, FRAME)).toEqual([
      { refuse: "scroll_at needs `direction`: up, down, left or right", kind: "invalid_value" },
    ]);
    expect(mapGeminiAction("key_combination", {}, FRAME)[0]).toHaveProperty("refuse");
    expect(mapGeminiAction("type_text_at", { x: 1, y: 1 }, FRAME)[0]).toHaveProperty("refuse");
    expect(notches(5_000)).toBe(20);
    expect(notches(1)).toBe(1);
  });

  it("counts scroll distances against the viewport in CSS px, so a scroll is as far at DPR 1 as at 2", () => {
    const [config] = resolveAgentConfigs({
      model: "gemini-2.5-computer-use-preview-10-2025",
      mode: "gemini-computer",
      baseUrl: "http://127.0.0.1:9",
      env: {},
    });
    const calls = [
      // 500 of 1000 of an 800 CSS px tall viewport: 400 px, 4 notches of 100 px.
      { functionCall: { name: "scroll_at", args: { x: 500, y: 500, direction: "down", magnitude: 500 } } },
      // The documented default, 800: 640 px, the nearest count of notches is 6.
      { functionCall: { name: "scroll_at", args: { x: 500, y: 500, direction: "up" } } },
      // Sideways, 250 of a 1280 CSS px wide viewport: 320 px, 3 notches.
      { functionCall: { name: "scroll_at", args: { x: 1, y: 2, direction: "right", magnitude: 250 } } },
      // The document sideways: half the viewport's width, 640 px.
      { functionCall: { name: "scroll_document", args: { direction: "left" } } },
    ];
    const body = { candidates: [{ content: { role: "model", parts: calls }, finishReason: "STOP" }] };
    for (const dpr of [1, 2]) {
      const conv = PROTOCOLS["gemini-computer"].open({
        config: config!,
        instruction: "Read the result.",
        offered: ["click", "press", "scroll", "answer"],
        trialId: `trial-dpr${dpr}`,
      });
      const shot = PNG.sync.write(new PNG({ width: 1280 * dpr, height: 800 * dpr }));
      conv.observe({ screenshot: { data: shot }, devicePixelRatio: dpr });
      const { actions } = conv.read(replyFromGenerateContent(body), 1);
      expect(actions.map((a) => [a.args.direction, a.args.amount])).toEqual([
        ["down", 4],
        ["up", 6],
        ["right", 3],
        ["left", 6],
      ]);
    }
  });

  it("excludes what umpire refuses and what needs a tool the task does not offer", () => {
    expect(excludedFunctions(["click", "write", "press", "scroll", "wait", "navigate", "go_back"])).toEqual([
      "go_forward",
      "search",
      "hover_at",
      "drag_and_drop",
    ]);
    const narrow = excludedFunctions(["click", "answer"]);
    expect(narrow).toContain("type_text_at");
    expect(narrow).toContain("navigate");
    expect(narrow).not.toContain("click_at");
    expect(GEMINI_PREDEFINED).toHaveLength(13);
  });
});

describe("the Gemini family", () => {
  it("is a registered protocol inferred from Gemini's computer-use model ids", () => {
    expect(PROTOCOLS["gemini-computer"]).toMatchObject({ family: "Gemini", api: "generate-content" });
    expect(nativeProtocolOf("gemini-2.5-computer-use-preview-10-2025")).toBe("gemini-computer");
    expect(nativeProtocolOf("models/gemini-2.5-computer-use-preview-10-2025")).toBe("gemini-computer");
    expect(nativeProtocolOf("gemini-2.5-flash")).toBeNull();
  });

  it("reads usageMetadata: prompt includes the cache, thoughts count as output and as reasoning", () => {
    expect(
      readUsage({ promptTokenCount: 100, candidatesTokenCount: 7, thoughtsTokenCount: 3, cachedContentTokenCount: 40 }),
    ).toEqual({ inputTokens: 100, outputTokens: 10, reasoningTokens: 3, cachedTokens: 40 });
    expect(readUsage({ promptTokenCount: 100, candidatesTokenCount: 7 })).toEqual({
      inputTokens: 100,
      outputTokens: 7,
      reasoningTokens: null,
      cachedTokens: null,
    });
  });

  it("maps finish reasons to umpire's words", () => {
    const body = (finishReason: string, parts: unknown[] = []) => ({
      candidates: [{ content: { role: "model", parts }, finishReason }],
    });
    expect(replyFromGenerateContent(body("MAX_TOKENS")).finishReason).toBe("length");
    for (const r of ["SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY"]) {
      const reply = replyFromGenerateContent(body(r));
      expect(reply.finishReason).toBe("content_filter");
      expect(reply.refusal).toContain(r);
    }
    expect(replyFromGenerateContent(body("MALFORMED_FUNCTION_CALL")).finishReason).toBe("malformed_function_call");
    const stop = replyFromGenerateContent(body("STOP", [{ text: "plan", thought: true }, { text: "done" }]));
    expect(stop).toMatchObject({ finishReason: "stop", content: "done", reasoning: "plan", refusal: null });
    expect(replyFromGenerateContent({ promptFeedback: { blockReason: "SAFETY" } }).finishReason).toBe("content_filter");
  });
});
