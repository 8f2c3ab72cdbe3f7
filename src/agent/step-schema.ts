/**
 * The two ways a task's tools are declared to the model, both derived from `TOOL_ARGS`:
 *
 * - structured mode: one JSON Schema for the whole step, `{note, thought, tool_call}`, where
 *   `tool_call` is a `oneOf` of flat variants tagged by `tool_name: {const}` (H's "Structured
 *   outputs" page). The same object goes into `structured_outputs.json` and the system prompt.
 * - tools mode: the OpenAI `tools` array, one function per tool.
 *
 * The JSON Schemas keep only the keywords H's documented schemas use (type, description,
 * properties, required, items, enum, const). Ranges such as [0, 1000] are stated in the
 * descriptions, as in H's examples; umpire enforces them itself when it validates the output
 * (parse.ts). This keeps the schemas within what every constrained decoder accepts: some
 * (xgrammar in vLLM) refuse `minimum`/`maxLength` and friends.
 */
import { z } from "zod";
import { TOOL_ARGS, TOOL_DESCRIPTIONS, TOOL_NAMES, type ToolName } from "../toolbox/tools.js";

/** A JSON Schema object, as plain data. */
export type JsonSchema = { [key: string]: unknown };

/** Kept keywords, in the order they are written (type first, as in H's examples). */
const KEPT_KEYWORDS = ["type", "description", "const", "enum", "items", "properties", "required"] as const;

/** H's own wording (the model was trained on these schemas). */
export const NOTE_DESCRIPTION = "Task-relevant information from the previous observation. Empty if nothing new.";
export const THOUGHT_DESCRIPTION = "Reasoning about next steps";

/** The offered tools in canonical (TOOL_ARGS) order, without duplicates or unknown names. */
export function offeredTools(tools: readonly ToolName[]): ToolName[] {
  const wanted = new Set(tools);
  return TOOL_NAMES.filter((name) => wanted.has(name));
}

/** The JSON Schema of one tool's arguments (`{type: object, properties, required}`). */
export function toolParametersSchema(tool: ToolName): JsonSchema {
  const full = z.toJSONSchema(TOOL_ARGS[tool], { io: "input" }) as JsonSchema;
  const schema = prune(full) as JsonSchema;
  return {
    type: "object",
    properties: (schema.properties as JsonSchema | undefined) ?? {},
    required: (schema.required as string[] | undefined) ?? [],
  };
}

/**
 * The structured-output step schema for a task's tools. `note` is nullable and optional,
 * `thought` and `tool_call` are required, `tool_call` is flat with a `tool_name` const.
 */
export function buildStepSchema(tools: readonly ToolName[]): JsonSchema {
  const variants = offeredTools(tools).map((tool) => {
    const params = toolParametersSchema(tool);
    return {
      type: "object",
      description: TOOL_DESCRIPTIONS[tool],
      properties: { tool_name: { const: tool }, ...(params.properties as JsonSchema) },
      required: ["tool_name", ...(params.required as string[])],
    };
  });
  return {
    type: "object",
    properties: {
      note: { type: ["string", "null"], description: NOTE_DESCRIPTION },
      thought: { type: "string", description: THOUGHT_DESCRIPTION },
      tool_call: { oneOf: variants },
    },
    required: ["thought", "tool_call"],
  };
}

/** An OpenAI function-calling tool declaration. */
export interface FunctionTool {
  type: "function";
  function: { name: ToolName; description: string; parameters: JsonSchema };
}

/** The `tools` array for function-calling mode. */
export function buildFunctionTools(tools: readonly ToolName[]): FunctionTool[] {
  return offeredTools(tools).map((tool) => ({
    type: "function",
    function: { name: tool, description: TOOL_DESCRIPTIONS[tool], parameters: toolParametersSchema(tool) },
  }));
}

/** Drops every keyword outside KEPT_KEYWORDS, recursing into properties and items. */
function prune(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(prune);
  if (node === null || typeof node !== "object") return node;
  const source = node as JsonSchema;
  const out: JsonSchema = {};
  for (const key of KEPT_KEYWORDS) {
    if (!(key in source)) continue;
    const value = source[key];
    if (key === "properties") {
      out.properties = Object.fromEntries(Object.entries(value as JsonSchema).map(([name, sub]) => [name, prune(sub)]));
    } else if (key === "items") {
      out.items = prune(value);
    } else {
      out[key] = value;
    }
  }
  return out;
}
