/**
 * Qwen computer use on umpire's side: smart_resize exactly as qwen-vl-utils computes it (expected
 * values printed by the Python original, Python's half-to-even rounding included), every documented
 * action mapped onto umpire's tools or refused, and a click's point landing where the model aimed
 * on the image it saw, at DPR 1 and 2.
 */
import { describe, expect, it } from "vitest";
import { pointToCss } from "../../../src/runner/trial/executor.js";
import { mapQwenAction } from "../../../src/agent/protocols/qwen-actions.js";
import { QWEN_ACTIONS, computerUseTool } from "../../../src/agent/protocols/qwen-tool.js";
import { parseQwen, type QwenParseContext } from "../../../src/agent/protocols/qwen.js";
import {
  QWEN25_FACTOR,
  QWEN25_MAX_PIXELS,
  QWEN25_MIN_PIXELS,
  imageSize,
  pythonRound,
  smartResize,
} from "../../../src/agent/protocols/smart-resize.js";

const q25 = (width: number, height: number) =>
  smartResize({ width, height }, QWEN25_FACTOR, QWEN25_MIN_PIXELS, QWEN25_MAX_PIXELS);

describe("smart_resize", () => {
  it("matches qwen-vl-utils' Python output, including its half-to-even rounding", () => {
    // From the Python original: smart_resize(h, w, 28, 3136, 12845056) for each (w, h).
    expect(q25(1280, 800)).toEqual({ width: 1288, height: 812 });
    expect(q25(2560, 1600)).toEqual({ width: 2548, height: 1596 });
    expect(q25(1302, 798)).toEqual({ width: 1288, height: 784 }); // 46.5 and 28.5 round to even
    expect(q25(1274, 770)).toEqual({ width: 1288, height: 784 });
    expect(q25(7680, 4320)).toEqual({ width: 4760, height: 2688 }); // over max_pixels
    expect(q25(40, 30)).toEqual({ width: 84, height: 56 }); // under min_pixels
    expect(smartResize({ width: 1920, height: 1080 }, 32, 4 * 32 * 32, 16384 * 32 * 32)).toEqual({
      width: 1920,
      height: 1088,
    });
    expect(smartResize({ width: 40, height: 30 }, 28, 100 * 28 * 28, 16384 * 28 * 28)).toEqual({
      width: 336,
      height: 252,
    });
    expect([pythonRound(2.5), pythonRound(3.5), pythonRound(45.5), pythonRound(46.5), pythonRound(1.2)]).toEqual([
      2, 4, 46, 46, 1,
    ]);
  });

  it("reads a PNG's size from its header", () => {
    const png = Buffer.alloc(24);
    png.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 0);
    png.write("IHDR", 12, "ascii");
    png.writeUInt32BE(2560, 16);
    png.writeUInt32BE(1600, 20);
    expect(imageSize(png)).toEqual({ width: 2560, height: 1600 });
    expect(imageSize(Buffer.from("not an image at all, no header"))).toBeNull();
  });
});

describe("computer_use actions onto umpire's tools", () => {
  const screen = { width: 1288, height: 812 };
  it("maps what has an equivalent", () => {
    expect(mapQwenAction("2.5", { action: "left_click", coordinate: [644, 406] }, screen)).toEqual({
      ok: true,
      tool: "click",
      args: { element: "computer_use left_click at (644, 406)", x: 500, y: 500 },
    });
    expect(
      mapQwenAction("3", { action: "double_click", coordinate: [250, 750] }, { width: 1000, height: 1000 }),
    ).toMatchObject({
      tool: "double_click",
      args: { x: 250, y: 750 },
    });
    expect(mapQwenAction("3", { action: "type", text: "BB-042" }, screen)).toMatchObject({
      tool: "write",
      args: { content: "BB-042" },
    });
    expect(mapQwenAction("3", { action: "key", keys: ["ctrl", "a"] }, screen)).toMatchObject({
      tool: "press",
      args: { keys: ["ctrl", "a"] },
    });
    expect(mapQwenAction("2.5", { action: "scroll", pixels: -300 }, screen)).toMatchObject({
      tool: "scroll",
      args: { direction: "down", amount: 3 },
    });
    expect(mapQwenAction("2.5", { action: "wait", time: 2 }, screen)).toMatchObject({
      tool: "wait",
      args: { seconds: 2 },
    });
    expect(mapQwenAction("3", { action: "answer", text: "Jaipur won" }, screen)).toMatchObject({
      tool: "answer",
      args: { content: "Jaipur won" },
    });
    expect(mapQwenAction("2.5", { action: "terminate", status: "success" }, screen)).toMatchObject({
      tool: "answer",
      args: { content: "(terminate: success)" },
    });
  });

  it("refuses what has none, and what is out of the screen or of the version, saying why", () => {
    for (const action of ["mouse_move", "left_click_drag", "right_click", "middle_click"]) {
      const mapped = mapQwenAction("2.5", { action, coordinate: [10, 10] }, screen);
      expect(mapped).toMatchObject({ ok: false, kind: "unsupported_action" });
    }
    expect(mapQwenAction("3", { action: "hscroll", pixels: 100 }, screen)).toMatchObject({
      kind: "unsupported_action",
    });
    // answer and triple_click are Qwen3-VL's; Qwen2.5-VL's tool has neither.
    expect(mapQwenAction("2.5", { action: "answer", text: "x" }, screen)).toMatchObject({ kind: "unknown_tool" });
    expect(mapQwenAction("2.5", { action: "left_click", coordinate: [1289, 10] }, screen)).toMatchObject({
      kind: "out_of_range",
    });
    expect(mapQwenAction("2.5", { action: "left_click" }, screen)).toMatchObject({ kind: "missing_fields" });
    expect(mapQwenAction("2.5", { action: "scroll", pixels: 5000 }, screen)).toMatchObject({ kind: "out_of_range" });
  });

  it("every documented action is either mapped or refused with a reason, never thrown", () => {
    for (const version of ["2.5", "3"] as const) {
      for (const action of QWEN_ACTIONS[version]) {
        const mapped = mapQwenAction(
          version,
          { action, coordinate: [1, 1], text: "t", keys: ["a"], pixels: 100, time: 1, status: "success" },
          screen,
        );
        expect(mapped.ok || (mapped as { message: string }).message.length > 10).toBe(true);
      }
    }
  });
});

describe("a click lands where the model aimed on the image it saw", () => {
  // The model saw the smart-resized image; umpire sent the original screenshot (viewport x DPR).
  for (const dpr of [1, 2]) {
    it(`Qwen2.5-VL pixels at DPR ${dpr}: within 0.64 CSS px + half a device pixel of the aimed point`, () => {
      const frame = { width: 1280 * dpr, height: 800 * dpr };
      const seen = q25(frame.width, frame.height);
      let worst = 0;
      for (let x = 0; x <= seen.width; x += 7) {
        for (const y of [0, 13, Math.floor(seen.height / 2), seen.height]) {
          const mapped = mapQwenAction("2.5", { action: "left_click", coordinate: [x, y] }, seen);
          if (!mapped.ok) throw new Error(mapped.message);
          const css = pointToCss(mapped.args.x as number, mapped.args.y as number, frame, dpr);
          // The point the model meant, in CSS px of the page: its pixel scaled back to the original.
          const meantX = Math.min((x * frame.width) / seen.width, frame.width - 1) / dpr;
          const meantY = Math.min((y * frame.height) / seen.height, frame.height - 1) / dpr;
          worst = Math.max(worst, Math.abs(css.x - meantX), Math.abs(css.y - meantY));
        }
      }
      // umpire's executor takes thousandths: half a step (0.64 CSS px on a 1280 px page) plus the
      // device pixel's rounding (0.5 / DPR) bounds the error; measured 1.07 px at DPR 1, 0.85 at DPR 2.
      expect(worst).toBeLessThanOrEqual(0.64 + 0.5 / dpr + 1e-9);
    });
  }

  it("Qwen3-VL thousandths are umpire's own coordinates, unchanged", () => {
    const mapped = mapQwenAction("3", { action: "left_click", coordinate: [123, 987] }, { width: 1000, height: 1000 });
    expect(mapped).toMatchObject({ args: { x: 123, y: 987 } });
  });
});

describe("parseQwen", () => {
  const ctx: QwenParseContext = {
    trialId: "t",
    turn: 1,
    offered: ["click", "write", "press", "answer", "write_note"],
    own: ["answer", "write_note"],
    version: "2.5",
    display: { width: 1288, height: 812 },
  };
  it("keeps the model's own call in history, runs calls in order and skips what follows a refusal", () => {
    const parsed = parseQwen(
      {
        content: "<think>plan</think>Scorecard open.",
        refusal: null,
        toolCalls: [
          { id: "c1", name: "computer_use", arguments: '{"action":"left_click","coordinate":[644,406]}' },
          { id: "c2", name: "computer_use", arguments: '{"action":"right_click","coordinate":[1,1]}' },
          { id: "c3", name: "write_note", arguments: '{"name":"BB-042.md","content":"x"}' },
        ],
      },
      ctx,
    );
    expect(parsed.actions).toEqual([
      { id: "c1", tool: "click", args: { element: "computer_use left_click at (644, 406)", x: 500, y: 500 } },
    ]);
    expect(parsed.invalid.map((i) => i.kind)).toEqual(["unsupported_action", "skipped"]);
    expect(parsed.leakedReasoning).toBe("plan");
    expect(parsed.assistant).toEqual({
      role: "assistant",
      content: "Scorecard open.",
      tool_calls: [
        {
          id: "c1",
          type: "function",
          function: { name: "computer_use", arguments: '{"action":"left_click","coordinate":[644,406]}' },
        },
        {
          id: "c2",
          type: "function",
          function: { name: "computer_use", arguments: '{"action":"right_click","coordinate":[1,1]}' },
        },
        {
          id: "c3",
          type: "function",
          function: { name: "write_note", arguments: '{"name":"BB-042.md","content":"x"}' },
        },
      ],
    });
  });

  it("refuses umpire's tool names called directly when computer_use covers them", () => {
    const parsed = parseQwen(
      {
        content: null,
        refusal: null,
        toolCalls: [{ id: "c1", name: "click", arguments: '{"element":"e","x":1,"y":1}' }],
      },
      ctx,
    );
    expect(parsed.invalid[0]).toMatchObject({ kind: "unknown_tool" });
    expect(parsed.invalid[0]!.message).toContain("computer_use, answer, write_note");
  });

  it("declares the version's screen in the documented description", () => {
    expect(computerUseTool("2.5", { width: 1288, height: 812 }).function.description).toContain(
      "The screen's resolution is 1288x812.",
    );
    expect(computerUseTool("3", { width: 1000, height: 1000 }).function.description).toContain(
      "The screen's resolution is 1000x1000.",
    );
  });
});
