/** Anthropic's computer toolset (#41): the tools[] entry, the knob's choice, each member's call onto umpire's tools. */
import { describe, expect, it } from "vitest";
import { chosenComputerTool, mapToolsetMember } from "../../../src/agent/protocols/anthropic-computer.js";
import { COMPUTER_TOOLSET_MEMBERS, computerToolsetEntry } from "../../../src/agent/protocols/anthropic-toolset.js";

const frame = { width: 1000, height: 500 };

describe("the computer toolset entry", () => {
  it("switches off exactly the members umpire cannot run, and carries no name or display", () => {
    const entry = computerToolsetEntry();
    expect(Object.keys(entry).sort()).toEqual(["configs", "type"]);
    const off = Object.keys(entry.configs as object);
    expect(COMPUTER_TOOLSET_MEMBERS.filter((m) => !off.includes(m))).toEqual([
      "key",
      "type",
      "left_click",
      "double_click",
      "scroll",
      "wait",
      "screenshot",
    ]);
    for (const value of Object.values(entry.configs as object)) expect(value).toEqual({ enabled: false });
  });
});

describe("computerTool", () => {
  it("auto (or unset) keeps the single tool by model id; a named version is sent as named; the toolset has no version", () => {
    expect(chosenComputerTool(undefined, "claude-sonnet-4-5")?.type).toBe("computer_20250124");
    expect(chosenComputerTool("auto", "claude-opus-4-7")?.type).toBe("computer_20251124");
    expect(chosenComputerTool("computer_20250124", "claude-opus-4-7")).toEqual({
      type: "computer_20250124",
      beta: "computer-use-2025-01-24",
    });
    expect(chosenComputerTool("computer_20251124", "claude-sonnet-4-5")).toEqual({
      type: "computer_20251124",
      beta: "computer-use-2025-11-24",
    });
    expect(chosenComputerTool("computer_toolset_20260801", "claude-opus-4-7")).toBeNull();
  });
});

describe("a toolset member's call", () => {
  it.each([
    ["left_click", { coordinate: [500, 250] }, { tool: "click", args: { x: 500, y: 500 } }],
    ["double_click", { coordinate: [100, 50] }, { tool: "double_click", args: { x: 100, y: 100 } }],
    ["type", { text: "BB-042" }, { tool: "write", args: { content: "BB-042", press_enter: false } }],
    ["key", { text: "ctrl+shift+Escape" }, { tool: "press", args: { keys: ["ctrl", "shift", "Escape"] } }],
    ["key", { text: "Return", repeat: 1 }, { tool: "press", args: { keys: ["Return"] } }],
    [
      "scroll",
      { coordinate: [250, 125], scroll_direction: "up", scroll_amount: 2 },
      { tool: "scroll", args: { direction: "up", amount: 2, x: 250, y: 250 } },
    ],
    [
      "scroll",
      { scroll_direction: "down", scroll_amount: 5 },
      { tool: "scroll", args: { direction: "down", amount: 5 } },
    ],
    ["wait", { duration: 3 }, { tool: "wait", args: { seconds: 3 } }],
    ["screenshot", {}, { tool: "wait", args: { seconds: 0 } }],
  ])("%s %j maps as the single tool's action", (name, input, expected) => {
    expect(mapToolsetMember(name, input, frame)).toMatchObject(expected);
  });

  it.each([
    "hold_key",
    "cursor_position",
    "mouse_move",
    "left_mouse_down",
    "left_mouse_up",
    "left_click_drag",
    "right_click",
    "middle_click",
    "triple_click",
    "zoom",
  ])("%s, switched off, is refused as an unsupported action when called anyway", (name) => {
    expect(mapToolsetMember(name, {}, frame)).toMatchObject({ kind: "unsupported_action" });
  });

  it("a name outside the toolset is an unknown tool; a click holding a key, a repeated key and a click without a point are refused", () => {
    expect(mapToolsetMember("computer", { action: "left_click" }, frame)).toMatchObject({ kind: "unknown_tool" });
    expect(mapToolsetMember("left_click", { coordinate: [1, 1], text: "shift" }, frame)).toHaveProperty("refuse");
    expect(mapToolsetMember("key", { text: "Tab", repeat: 3 }, frame)).toHaveProperty("refuse");
    expect(mapToolsetMember("left_click", {}, frame)).toMatchObject({ kind: "missing_fields" });
  });
});
