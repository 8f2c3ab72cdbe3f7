import { describe, expect, it } from "vitest";
import {
  describeAction,
  describeActions,
  reflectionMessage,
  stuckReport,
} from "../../../src/runner/trial/repetition/wording.js";

describe("wording", () => {
  it("describes actions in the past and bare forms", () => {
    const click = { tool: "click" as const, args: { element: "Save button", x: 512, y: 640 } };
    expect(describeAction(click)).toBe('clicked "Save button" at (512, 640)');
    expect(describeAction(click, "bare")).toBe('click "Save button" at (512, 640)');
    expect(describeAction({ tool: "press", args: { keys: ["Control", "a"] } })).toBe("pressed Control+a");
    expect(describeAction({ tool: "write", args: { content: "BB-042", press_enter: true } })).toBe(
      'typed "BB-042" and pressed Enter',
    );
    expect(describeAction({ tool: "scroll", args: { direction: "down", amount: 1 } })).toBe("scrolled down 1 notch");
    expect(describeAction({ tool: "wait", args: { seconds: 2 } })).toBe("waited 2 s");
    expect(describeActions([click, { tool: "press", args: { keys: ["Escape"] } }])).toBe(
      'clicked "Save button" at (512, 640) then pressed Escape',
    );
    expect(describeAction({ tool: "write", args: { content: "y".repeat(500) } }).length).toBeLessThan(80);
  });

  it("wraps the reflection, names the condition, asks for evidence and gives no answer", () => {
    const condition = 'the screen stayed the same and the agent clicked "Save button" at (512, 640) 3 times';
    const text = reflectionMessage(condition);
    expect(text.startsWith("<reflection>\n")).toBe(true);
    expect(text.endsWith("\n</reflection>")).toBe(true);
    expect(text).toContain(condition);
    expect(text).toMatch(/describe what you see/);
    expect(text).not.toMatch(/cookie|escape|reject|accept|dialog|BB-0/i);
  });

  it("writes the stuck sentence", () => {
    expect(stuckReport("Save stayed covered", 3)).toBe("Save stayed covered after 3 attempts");
    expect(stuckReport("the screen stayed the same", 1, "press Escape")).toBe(
      "The screen stayed the same after 1 attempt to press Escape",
    );
  });
});
