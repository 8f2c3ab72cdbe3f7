/** The lint of Anthropic computer toolset requests (#41): a conforming request is clean, each toolset rule fires. */
import { PNG } from "pngjs";
import { describe, expect, it } from "vitest";
import { computerToolsetEntry } from "../../../src/agent/protocols/anthropic-toolset.js";
import { LINT_RULES } from "../../../src/sim/lint.js";
import { lintVendorRequest } from "../../../src/sim/vendor-lint.js";

const image = (width: number, height: number) => ({
  type: "image",
  source: {
    type: "base64",
    media_type: "image/png",
    data: PNG.sync.write(new PNG({ width, height })).toString("base64"),
  },
});
const note = { name: "write_note", description: "d", input_schema: { type: "object" } };

function request(tools: unknown[] = [computerToolsetEntry(), note], result: Record<string, unknown> = {}) {
  return {
    model: "claude",
    max_tokens: 100,
    tools,
    messages: [
      { role: "user", content: [{ type: "text", text: "task" }, image(8, 8)] },
      {
        role: "assistant",
        content: [
          { type: "tool_use", id: "t1", name: "left_click", input: { coordinate: [1, 1] }, toolset_name: "computer" },
          { type: "tool_use", id: "t2", name: "write_note", input: { name: "a.md", content: "x" } },
        ],
      },
      {
        role: "user",
        content: [
          { type: "tool_result", tool_use_id: "t1", content: [image(8, 8)], toolset_name: "computer", ...result },
          { type: "tool_result", tool_use_id: "t2", content: "saved" },
        ],
      },
    ],
  };
}

const rules = (body: unknown, headers = {}) => lintVendorRequest("anthropic", body, headers).map((v) => v.rule);

describe("Anthropic computer toolset lint", () => {
  it("finds nothing in a conforming request, with no beta header, and its rules are listed", () => {
    expect(rules(request())).toEqual([]);
    expect(LINT_RULES).toHaveProperty("anthropic-computer-toolset");
    expect(LINT_RULES).toHaveProperty("anthropic-toolset-results");
  });

  it.each([
    ["two toolset entries", [computerToolsetEntry(), computerToolsetEntry()]],
    ["a name", [{ ...computerToolsetEntry(), name: "computer" }]],
    ["a display size", [{ ...computerToolsetEntry(), display_width_px: 8, display_height_px: 8 }]],
    [
      "a config key outside the members",
      [{ type: "computer_toolset_20260801", configs: { drag: { enabled: false } } }],
    ],
    ["a config value that is no object", [{ type: "computer_toolset_20260801", configs: { zoom: false } }]],
    [
      "a single computer tool beside it",
      [
        computerToolsetEntry(),
        { type: "computer_20251124", name: "computer", display_width_px: 8, display_height_px: 8 },
      ],
    ],
  ])("anthropic-computer-toolset: %s", (_, tools) => {
    expect(rules(request(tools))).toEqual(["anthropic-computer-toolset"]);
  });

  it("anthropic-toolset-results: a member's tool_result without toolset_name, or a plain tool's with one", () => {
    expect(rules(request(undefined, { toolset_name: undefined }))).toEqual(["anthropic-toolset-results"]);
    const body = request();
    (body.messages[2]!.content[1] as Record<string, unknown>).toolset_name = "computer";
    expect(rules(body)).toEqual(["anthropic-toolset-results"]);
  });

  it("anthropic-screenshot-scaling still holds a toolset request's screenshots to the limits", () => {
    const body = request();
    body.messages[0]!.content[1] = image(1600, 900);
    expect(rules(body)).toEqual(["anthropic-screenshot-scaling"]);
  });
});
