/**
 * UI-TARS on umpire's side: the parser port read against what the repository's Python parser
 * returns for the same replies (printed from `parse_action_to_structure_output`, 1280x800 screenshot
 * -> 1288x812), each action mapped as UI-TARS' own executor runs it or refused, clicks within 0.64 CSS px +
 * half a device pixel of the aimed point at DPR 1 and 2, and the prompt as published.
 */
import { describe, expect, it } from "vitest";
import { mapUiTarsCall, parseUiTarsText } from "../../../src/agent/protocols/ui-tars-parse.js";
import { UI_TARS_COMPUTER_USE, uiTarsPrompt } from "../../../src/agent/protocols/ui-tars-prompt.js";
import { parseUiTars } from "../../../src/agent/protocols/ui-tars.js";
import { smartResize } from "../../../src/agent/protocols/smart-resize.js";
import { pointToCss } from "../../../src/runner/trial/executor.js";

const screen = { width: 1288, height: 812 };
const one = (text: string) => {
  const read = parseUiTarsText(text);
  if ("error" in read) throw new Error(read.message);
  return { thought: read.thought, mapped: mapUiTarsCall(read.calls[0]!, screen) };
};

describe("UI-TARS parser port", () => {
  it("reads what the Python parser reads", () => {
    // Python: {'start_box': '[0.5, 0.5, 0.5, 0.5]'} -> thousandths 500, 500.
    expect(one("Thought: Open the match.\nAction: click(point='<point>644 406</point>')")).toEqual({
      thought: "Open the match.",
      mapped: { ok: true, tool: "click", args: { element: "click at (644,406)", x: 500, y: 500 } },
    });
    // Python: {'content': "It's 168/6\n"}: the trailing \n submits.
    expect(one("Thought: t\nAction: type(content='It\\'s 168/6\\n')").mapped).toEqual({
      ok: true,
      tool: "write",
      args: { content: "It's 168/6", press_enter: true },
    });
    // Python: {'start_box': [0.00776..., 0.02463...], 'direction': 'down'}; pyautogui.scroll(-5, x, y).
    expect(one("Thought: t\nAction: scroll(point='<point>10 20</point>', direction='down')").mapped).toEqual({
      ok: true,
      tool: "scroll",
      args: { direction: "down", amount: 5, x: 8, y: 25 },
    });
    expect(one("Thought: t\nAction: hotkey(key='ctrl a')").mapped).toMatchObject({
      tool: "press",
      args: { keys: ["ctrl", "a"] },
    });
    expect(one("Thought: t\nAction: click(start_box='(644,406)')").mapped).toMatchObject({ args: { x: 500, y: 500 } });
    expect(one("Thought: t\nAction: left_double(start_box='<|box_start|>(322,203)<|box_end|>')").mapped).toMatchObject({
      tool: "double_click",
      args: { x: 250, y: 250 },
    });
    expect(one("Thought: done\nAction: finished(content='Jaipur Kites won')").mapped).toMatchObject({
      tool: "answer",
      args: { content: "Jaipur Kites won" },
    });
    expect(one("Thought: t\nAction: wait()").mapped).toMatchObject({ tool: "wait", args: { seconds: 5 } });
  });

  it("refuses what has no umpire equivalent, is malformed or off the screen", () => {
    expect(one("Thought: t\nAction: right_single(point='<point>1 1</point>')").mapped).toMatchObject({
      kind: "unsupported_action",
    });
    expect(
      one("Thought: t\nAction: drag(start_point='<point>1 1</point>', end_point='<point>5 5</point>')").mapped,
    ).toMatchObject({
      kind: "unsupported_action",
    });
    expect(one("Thought: t\nAction: click(start_box='(1300,10)')").mapped).toMatchObject({ kind: "out_of_range" });
    expect(one("Thought: t\nAction: click()").mapped).toMatchObject({ kind: "missing_fields" });
    expect(one("Thought: t\nAction: teleport()").mapped).toMatchObject({ kind: "unknown_tool" });
    expect(parseUiTarsText("Thought: t\nAction: click(point='<point>1 2")).toMatchObject({ error: "invalid_json" });
    expect(parseUiTarsText("I will click the button.")).toMatchObject({ error: "no_tool_call" });
  });

  it("a refusal in words is refused, an empty reply invalid, the history keeps the text without reasoning", () => {
    const refusal = parseUiTars(
      { content: "I'm sorry, but I can't help with that.", refusal: null, toolCalls: [] },
      "t",
      1,
      ["click"],
      screen,
    );
    expect(refusal.outcome).toBe("refused");
    const empty = parseUiTars({ content: "", refusal: null, toolCalls: [] }, "t", 1, ["click"], screen);
    expect(empty.invalid[0]!.kind).toBe("empty_output");
    const ok = parseUiTars(
      {
        content: "<think>hmm</think>Thought: go\nAction: click(point='<point>644 406</point>')",
        refusal: null,
        toolCalls: [],
      },
      "t",
      1,
      ["click"],
      screen,
    );
    expect(ok.outcome).toBe("actions");
    expect(ok.leakedReasoning).toBe("hmm");
    expect(ok.assistant).toEqual({
      role: "assistant",
      content: "Thought: go\nAction: click(point='<point>644 406</point>')",
    });
  });

  for (const dpr of [1, 2]) {
    it(`points land within 0.64 CSS px + half a device pixel of the aimed point at DPR ${dpr}`, () => {
      const frame = { width: 1280 * dpr, height: 800 * dpr };
      const seen = smartResize(frame, 28, 100 * 28 * 28, 16384 * 28 * 28);
      let worst = 0;
      for (let x = 0; x <= seen.width; x += 11) {
        const read = parseUiTarsText(`Thought: t\nAction: click(point='<point>${x} ${seen.height >> 1}</point>')`);
        if ("error" in read) throw new Error(read.message);
        const mapped = mapUiTarsCall(read.calls[0]!, seen);
        if (!mapped.ok) throw new Error(mapped.message);
        const css = pointToCss(mapped.args.x as number, mapped.args.y as number, frame, dpr);
        const meant = Math.min((x * frame.width) / seen.width, frame.width - 1) / dpr;
        worst = Math.max(worst, Math.abs(css.x - meant));
      }
      // umpire's executor takes thousandths: half a step (0.64 CSS px on a 1280 px page) plus the
      // device pixel's rounding (0.5 / DPR) bounds the error; measured 1.07 px at DPR 1, 0.85 at DPR 2.
      expect(worst).toBeLessThanOrEqual(0.64 + 0.5 / dpr + 1e-9);
    });
  }

  it("sends the published prompt with the instruction filled in", () => {
    const prompt = uiTarsPrompt("Open BB-042.");
    expect(
      prompt.startsWith("You are a GUI agent. You are given a task and your action history, with screenshots."),
    ).toBe(true);
    expect(prompt).toContain("click(point='<point>x1 y1</point>')");
    expect(prompt).toContain("- Use English in `Thought` part.");
    expect(prompt.endsWith("## User Instruction\nOpen BB-042.\n")).toBe(true);
    expect(UI_TARS_COMPUTER_USE).toContain("{instruction}");
  });
});
