import { describe, expect, it } from "vitest";
import { outputFormatBlock } from "../../../src/agent/prompt.js";
import { structuredSystemPrompt } from "../../../src/agent/protocols/holo-structured.js";
import { toolsSystemPrompt } from "../../../src/agent/protocols/holo-tools.js";
import { buildFunctionTools, buildStepSchema, toolParametersSchema } from "../../../src/agent/step-schema.js";

describe("step schema", () => {
  it("matches the shape of H's documented Step union", () => {
    const schema = buildStepSchema(["answer", "click", "write"]) as any;
    expect(schema.required).toEqual(["thought", "tool_call"]);
    expect(schema.properties.note.type).toEqual(["string", "null"]);
    expect(schema.properties.thought.type).toBe("string");
    const variants = schema.properties.tool_call.oneOf;
    // Canonical toolbox order, whatever order the task lists them in.
    expect(variants.map((v: any) => v.properties.tool_name)).toEqual([
      { const: "click" },
      { const: "write" },
      { const: "answer" },
    ]);
    expect(variants[0]).toEqual({
      type: "object",
      description: "Click at (x, y) coordinates",
      properties: {
        tool_name: { const: "click" },
        element: { type: "string", description: "Detailed description of the target UI element" },
        x: { type: "integer", description: "X coordinate as integer in [0, 1000], relative to the screenshot" },
        y: { type: "integer", description: "Y coordinate as integer in [0, 1000], relative to the screenshot" },
      },
      required: ["tool_name", "element", "x", "y"],
    });
    // write's press_enter has a default, so it is optional.
    expect(variants[1].required).toEqual(["tool_name", "content"]);
  });

  it("keeps only keywords every constrained decoder accepts", () => {
    const text = JSON.stringify(
      buildStepSchema([
        "click",
        "double_click",
        "write",
        "press",
        "scroll",
        "wait",
        "navigate",
        "go_back",
        "answer",
        "http_get",
        "write_note",
      ]),
    );
    for (const keyword of [
      "minimum",
      "maximum",
      "minLength",
      "maxLength",
      "minItems",
      "maxItems",
      "additionalProperties",
      "$schema",
      "default",
    ]) {
      expect(text).not.toContain(`"${keyword}"`);
    }
    expect(toolParametersSchema("scroll")).toMatchObject({ required: ["direction", "amount"] });
    expect(toolParametersSchema("go_back")).toEqual({ type: "object", properties: {}, required: [] });
    expect((toolParametersSchema("press") as any).properties.keys).toMatchObject({
      type: "array",
      items: { type: "string" },
    });
  });

  it("function tools are built from the same definitions", () => {
    const tools = buildFunctionTools(["write", "click"]);
    expect(tools.map((t) => t.function.name)).toEqual(["click", "write"]);
    expect(tools[0]).toEqual({
      type: "function",
      function: {
        name: "click",
        description: "Click at (x, y) coordinates",
        parameters: toolParametersSchema("click"),
      },
    });
  });
});

describe("system prompt", () => {
  const instruction = "Find match BB-042 and report the result.";

  it("structured: task verbatim, coordinates, and the schema block appended exactly", () => {
    const schema = buildStepSchema(["click", "answer"]);
    const prompt = structuredSystemPrompt({ instruction, tools: ["click", "answer"] });
    expect(prompt).toContain(`<task>\n${instruction}\n</task>`);
    expect(prompt).toContain("integers in [0, 1000]");
    expect(prompt.endsWith(outputFormatBlock(schema))).toBe(true);
    expect(outputFormatBlock(schema)).toBe(
      `\n\n<output_format>\n\`\`\`json\n${JSON.stringify(schema)}\n\`\`\`\n</output_format>`,
    );
    expect(prompt).toContain("note");
  });

  it("tools: no schema, no format example", () => {
    const prompt = toolsSystemPrompt({ instruction, tools: ["click", "answer"] });
    expect(prompt).toContain(`<task>\n${instruction}\n</task>`);
    expect(prompt).not.toContain("output_format");
    expect(prompt).not.toMatch(/[{}]/);
  });

  it("mentions answer only when the task offers it", () => {
    expect(toolsSystemPrompt({ instruction, tools: ["click"] })).not.toContain("`answer`");
    expect(toolsSystemPrompt({ instruction, tools: ["click", "answer"] })).toContain("`answer`");
  });
});
