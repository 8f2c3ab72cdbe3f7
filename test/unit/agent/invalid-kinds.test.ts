/**
 * One set of invalid-reply kinds for every protocol (#41): the same fault is reported with the same
 * `InvalidKind` whichever family's vocabulary it came in, so turns compare across protocols. A documented
 * action with no umpire equivalent (a drag) is `unsupported_action`; one outside the family's vocabulary is
 * `unknown_tool`; a documented action without its point is `missing_fields`; a call that does not parse is
 * `invalid_json`.
 */
import { describe, expect, it } from "vitest";
import { INVALID_KINDS, type InvalidKind } from "../../../src/agent/action-validation.js";
import { resolveAgentConfigs } from "../../../src/agent/config.js";
import { mapClaudeAction } from "../../../src/agent/protocols/anthropic-computer.js";
import { mapGeminiAction } from "../../../src/agent/protocols/gemini-actions.js";
import { mapComputerAction } from "../../../src/agent/protocols/openai-computer.js";
import { mapQwenAction } from "../../../src/agent/protocols/qwen-actions.js";
import { PROTOCOLS } from "../../../src/agent/protocols/registry.js";
import { ReplySlots, type Mapped } from "../../../src/agent/protocols/slots.js";
import { mapUiTarsCall } from "../../../src/agent/protocols/ui-tars-parse.js";
import { replyFromGenerateContent, type ModelReply } from "../../../src/agent/reply.js";
import type { ToolName } from "../../../src/toolbox/tools.js";

const FRAME = { width: 1280, height: 800 };
const OFFERED: ToolName[] = ["click", "double_click", "write", "press", "scroll", "wait", "answer"];

/** The kind a vendor protocol's mapped action is reported with (or null when it runs). */
function vendorKind(mapped: Mapped | Mapped[]): InvalidKind | null {
  const r = new ReplySlots("t", 1, OFFERED);
  for (const m of Array.isArray(mapped) ? mapped : [mapped]) r.add("vendor", m);
  return r.invalid[0]?.kind ?? null;
}

const kinds = {
  openai: (action: Record<string, unknown>) => vendorKind(mapComputerAction(action, FRAME)),
  anthropic: (input: Record<string, unknown>) => vendorKind(mapClaudeAction(input, FRAME)),
  gemini: (name: string, args: Record<string, unknown>) =>
    vendorKind(mapGeminiAction(name as Parameters<typeof mapGeminiAction>[0], args, FRAME)),
  qwen: (args: Record<string, unknown>) => {
    const m = mapQwenAction("2.5", args, FRAME);
    return m.ok ? null : m.kind;
  },
  uiTars: (name: string, args: Record<string, string> = {}) => {
    const m = mapUiTarsCall({ name, args }, FRAME);
    return m.ok ? null : m.kind;
  },
};

describe("invalid-reply kinds across the protocols", () => {
  it("a documented action with no umpire equivalent is unsupported_action in every family", () => {
    expect(kinds.openai({ type: "drag", path: [] })).toBe("unsupported_action");
    expect(kinds.openai({ type: "click", button: "right", x: 1, y: 1 })).toBe("unsupported_action");
    expect(kinds.anthropic({ action: "left_click_drag", coordinate: [1, 1] })).toBe("unsupported_action");
    expect(kinds.anthropic({ action: "zoom", region: [0, 0, 10, 10] })).toBe("unsupported_action");
    expect(kinds.gemini("drag_and_drop", { x: 1, y: 1, destination_x: 2, destination_y: 2 })).toBe(
      "unsupported_action",
    );
    expect(kinds.qwen({ action: "left_click_drag", coordinate: [1, 1] })).toBe("unsupported_action");
    expect(kinds.uiTars("drag")).toBe("unsupported_action");
  });

  it("an action outside the family's vocabulary is unknown_tool in every family", () => {
    expect(kinds.openai({ type: "teleport" })).toBe("unknown_tool");
    expect(kinds.anthropic({ action: "teleport" })).toBe("unknown_tool");
    expect(kinds.qwen({ action: "teleport" })).toBe("unknown_tool");
    expect(kinds.uiTars("teleport")).toBe("unknown_tool");
  });

  it("a documented action without its point, or with a bad value, is missing_fields / invalid_value", () => {
    expect(kinds.anthropic({ action: "left_click" })).toBe("missing_fields");
    expect(kinds.gemini("click_at", {})).toBe("missing_fields");
    expect(kinds.gemini("click_at", { x: "left", y: 3 })).toBe("wrong_type");
    expect(kinds.gemini("type_text_at", { x: 1, y: 1 })).toBe("missing_fields");
    expect(kinds.qwen({ action: "left_click" })).toBe("missing_fields");
    expect(kinds.uiTars("click")).toBe("missing_fields");
    expect(kinds.openai({ type: "scroll", x: 1, y: 1, scroll_x: 0, scroll_y: 0 })).toBe("invalid_value");
    expect(kinds.gemini("scroll_at", { x: 1, y: 1, direction: "diagonal" })).toBe("invalid_value");
    expect(kinds.uiTars("scroll", { point: "<point>1 1</point>", direction: "sideways" })).toBe("invalid_value");
  });

  it("Gemini's MALFORMED_FUNCTION_CALL is invalid_json, as a Holo tool call's unparseable arguments are", () => {
    const [config] = resolveAgentConfigs({
      model: "gemini-2.5-computer-use-preview-10-2025",
      mode: "gemini-computer",
      baseUrl: "http://127.0.0.1:9",
      env: {},
    });
    const conv = PROTOCOLS["gemini-computer"].open({
      config: config!,
      instruction: "Read the result.",
      offered: OFFERED,
      trialId: "t-malformed",
    });
    conv.observe({});
    const reply: ModelReply = replyFromGenerateContent({
      candidates: [{ content: { role: "model", parts: [] }, finishReason: "MALFORMED_FUNCTION_CALL" }],
    });
    const parsed = conv.read(reply, 1);
    expect(parsed.outcome).toBe("invalid");
    expect(parsed.invalid.map((i) => i.kind)).toEqual(["invalid_json"]);
    const [holo] = resolveAgentConfigs({ model: "reference", mode: "tools", baseUrl: "http://127.0.0.1:9", env: {} });
    const tools = PROTOCOLS.tools.open({ config: holo!, instruction: "x", offered: OFFERED, trialId: "t-holo" });
    tools.observe({});
    const holoReply: ModelReply = {
      content: null,
      reasoning: null,
      refusal: null,
      finishReason: "tool_calls",
      toolCalls: [{ id: "c1", name: "click", arguments: '{"x": 1,' }],
      usage: undefined,
    };
    const holoParsed = tools.read(holoReply, 1);
    expect(holoParsed.invalid.map((i) => [i.tool, i.kind])).toEqual([["click", "invalid_json"]]);
  });

  it("every kind any protocol reports is one of the typed set", () => {
    const reported = [
      kinds.openai({ type: "drag" }),
      kinds.openai({ type: "teleport" }),
      kinds.anthropic({ action: "left_click" }),
      kinds.gemini("hover_at", { x: 1, y: 1 }),
      kinds.qwen({ action: "teleport" }),
      kinds.uiTars("call_user"),
    ];
    for (const k of reported) expect(INVALID_KINDS).toContain(k);
  });
});
