import { describe, expect, it } from "vitest";
import { actionSignature, sameAttempt } from "../../../src/runner/trial/repetition/signature.js";

const click = (x: number, y: number, element = "Save button") => ({ tool: "click" as const, args: { element, x, y } });

describe("actionSignature", () => {
  it("quantises nearby clicks together and keeps far ones apart", () => {
    expect(actionSignature(click(512, 640))).toBe(actionSignature(click(515, 645)));
    expect(actionSignature(click(512, 640))).toBe("click|@520,640||{}");
    expect(actionSignature(click(512, 640))).not.toBe(actionSignature(click(100, 100)));
    expect(actionSignature(click(512, 640))).not.toBe(actionSignature(click(560, 640)));
  });

  it("follows the quantum", () => {
    expect(actionSignature(click(512, 640), { quantum: 1 })).not.toBe(actionSignature(click(515, 645), { quantum: 1 }));
    expect(actionSignature(click(512, 640), { quantum: 100 })).toBe(actionSignature(click(540, 610), { quantum: 100 }));
    expect(() => actionSignature(click(1, 1), { quantum: -5 })).toThrow(/quantum/);
  });

  it("ignores the element wording when coordinates give the target, and uses it otherwise", () => {
    expect(actionSignature(click(512, 640, "Save button"))).toBe(actionSignature(click(512, 640, "the green Save")));
    const described = (element: string) => ({ tool: "click" as const, args: { element } });
    expect(actionSignature(described("  The SAVE   button. "))).toBe(actionSignature(described('"the save button"')));
    expect(actionSignature(described("Save button"))).not.toBe(actionSignature(described("Cancel button")));
  });

  it("keeps text and keys, normalising key case and argument order", () => {
    const write = (content: string, press_enter = false) => ({
      tool: "write" as const,
      args: { content, press_enter },
    });
    expect(actionSignature(write("BB-042"))).not.toBe(actionSignature(write("BB-024")));
    expect(actionSignature(write("BB-042"))).not.toBe(actionSignature(write("BB-042", true)));
    const press = (keys: string[]) => ({ tool: "press" as const, args: { keys } });
    expect(actionSignature(press(["Escape"]))).toBe(actionSignature(press(["escape"])));
    expect(actionSignature(press(["Control", "a"]))).not.toBe(actionSignature(press(["a", "Control"])));
    expect(actionSignature({ tool: "scroll", args: { direction: "down", amount: 3 } })).toBe(
      actionSignature({ tool: "scroll", args: { amount: 3, direction: "down" } }),
    );
    expect(actionSignature({ tool: "scroll", args: { direction: "down", amount: 3 } })).not.toBe(
      actionSignature({ tool: "scroll", args: { direction: "up", amount: 3 } }),
    );
  });

  it("keeps long text short but distinct", () => {
    const note = (content: string) => ({ tool: "write_note" as const, args: { name: "BB-042.md", content } });
    const long = "x".repeat(5000);
    expect(actionSignature(note(long)).length).toBeLessThan(200);
    expect(actionSignature(note(long))).not.toBe(actionSignature(note(`${long}y`)));
  });
});

describe("sameAttempt", () => {
  it("matches clicks within the tolerance even across a rounding edge", () => {
    expect(actionSignature(click(509, 640))).not.toBe(actionSignature(click(511, 640)));
    expect(sameAttempt(click(509, 640), click(511, 640))).toBe(true);
    expect(sameAttempt(click(500, 640), click(520, 660))).toBe(true);
    expect(sameAttempt(click(500, 640), click(521, 640))).toBe(false);
    expect(
      sameAttempt(click(500, 640), { tool: "double_click", args: { element: "Save button", x: 500, y: 640 } }),
    ).toBe(false);
  });
});
