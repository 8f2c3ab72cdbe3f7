import { describe, expect, it } from "vitest";
import { validateToolCall } from "../../../src/agent/action-validation.js";
import { looksLikeRefusal, splitThink, type ParseContext } from "../../../src/agent/parse.js";
import { parseStructured } from "../../../src/agent/protocols/holo-structured.js";
import { parseToolCalls } from "../../../src/agent/protocols/holo-tools.js";

const structured: ParseContext = { trialId: "tr", turn: 4, offered: ["click", "write", "answer"] };
const tools: ParseContext = structured;
const reply = (
  content: string | null,
  toolCalls: Array<{ id: string | null; name: string | null; arguments: string }> = [],
) => ({
  content,
  refusal: null,
  toolCalls,
});

describe("validateToolCall", () => {
  const offered = ["click", "write", "scroll"] as const;
  it("fills defaults and keeps the id", () => {
    expect(validateToolCall("a", "write", { content: "hi" }, offered)).toEqual({
      ok: true,
      action: { id: "a", tool: "write", args: { content: "hi", press_enter: false } },
    });
  });

  it("reports every problem, with the most basic kind first", () => {
    const result = validateToolCall("a", "click", { x: "1", y: 2000, extra: true }, offered);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.kind).toBe("missing_fields");
    expect(result.message).toContain("missing field 'element'");
    expect(result.message).toContain("'x' must be a number");
    expect(result.message).toContain("'y' must be at most 1000");
    expect(result.message).toContain("'extra'");
  });

  it("classifies enum and length problems as invalid_value", () => {
    const result = validateToolCall("a", "scroll", { direction: "sideways", amount: 3 }, offered);
    expect(result).toMatchObject({ ok: false, kind: "invalid_value" });
    expect(validateToolCall("a", "click", { element: "", x: 1, y: 1 }, offered)).toMatchObject({
      ok: false,
      kind: "invalid_value",
    });
  });

  it("rejects coordinate lists in either coordinate, naming the fix", () => {
    const result = validateToolCall("a", "scroll", { direction: "down", amount: 1, y: [1, 2] }, offered);
    expect(result).toMatchObject({ ok: false, kind: "coordinate_list" });
    if (!result.ok) expect(result.message).toContain('"x": 512, "y": 300');
  });
});

describe("parseStructured", () => {
  it("assigns the stable id and rebuilds the parsed step for history", () => {
    const parsed = parseStructured(
      reply('{"thought":"go","tool_call":{"tool_name":"write","content":"x"}}'),
      structured,
    );
    expect(parsed.outcome).toBe("actions");
    expect(parsed.actions[0].id).toBe("tr-t4-a1");
    expect(parsed.assistant).toEqual({
      role: "assistant",
      content: JSON.stringify({
        note: null,
        thought: "go",
        tool_call: { tool_name: "write", content: "x", press_enter: false },
      }),
    });
  });

  it("does not put unparseable output into history", () => {
    const parsed = parseStructured(reply("click the box"), structured);
    expect(parsed.invalid[0].kind).toBe("invalid_json");
    expect(parsed.assistant).toBeNull();
  });

  it("treats a note of the wrong type as wrong_type", () => {
    const parsed = parseStructured(
      reply('{"note":5,"thought":"t","tool_call":{"tool_name":"answer","content":"x"}}'),
      structured,
    );
    expect(parsed.invalid[0]).toMatchObject({ kind: "wrong_type", tool: "answer" });
  });

  it("reads message.refusal as refused", () => {
    expect(parseStructured({ content: null, refusal: "No.", toolCalls: [] }, structured).outcome).toBe("refused");
  });
});

describe("parseToolCalls", () => {
  it("replaces duplicate or missing call ids with umpire's ids", () => {
    const parsed = parseToolCalls(
      reply(null, [
        { id: "same", name: "click", arguments: '{"element":"a","x":1,"y":1}' },
        { id: "same", name: "click", arguments: '{"element":"b","x":2,"y":2}' },
        { id: null, name: "answer", arguments: '{"content":"ok"}' },
      ]),
      tools,
    );
    expect(parsed.actions.map((a) => a.id)).toEqual(["same", "tr-t4-a2", "tr-t4-a3"]);
  });

  it("rejects every call of a reply whose content leaked <think>", () => {
    const parsed = parseToolCalls(
      reply("<think>plan</think>Going.", [{ id: "c", name: "answer", arguments: '{"content":"x"}' }]),
      tools,
    );
    expect(parsed.outcome).toBe("invalid");
    expect(parsed.invalid[0].kind).toBe("think_leak");
    expect(parsed.leakedReasoning).toBe("plan");
    expect(parsed.assistant).toMatchObject({ content: "Going." });
  });

  it("an unknown tool is unknown_tool", () => {
    const parsed = parseToolCalls(reply(null, [{ id: "c", name: "fly", arguments: "{}" }]), tools);
    expect(parsed.invalid[0]).toMatchObject({ kind: "unknown_tool", tool: "fly" });
  });
});

describe("splitThink and refusals", () => {
  it("handles closed, bare-closing and unclosed <think>", () => {
    expect(splitThink("<think>a</think> {}")).toEqual({ reasoning: "a", rest: "{}" });
    expect(splitThink("a</think>{}")).toEqual({ reasoning: "a", rest: "{}" });
    expect(splitThink("<think>still going")).toEqual({ reasoning: "still going", rest: "" });
    expect(splitThink("{}")).toEqual({ reasoning: null, rest: "{}" });
  });

  it("recognises refusals but not ordinary text", () => {
    expect(looksLikeRefusal("I'm sorry, but I can't help with that.")).toBe(true);
    expect(looksLikeRefusal("I cannot assist with deleting records.")).toBe(true);
    expect(looksLikeRefusal("Sorry, I am unable to complete this task.")).toBe(true);
    expect(looksLikeRefusal("I can see the search box; clicking it next.")).toBe(false);
    expect(looksLikeRefusal("The page says: sorry, no results.")).toBe(false);
  });
});
