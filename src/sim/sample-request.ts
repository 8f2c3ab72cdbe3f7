/**
 * Builds conformant Holo-loop request bodies and test screenshots without the agent: the
 * benchmark and the tests use them to talk to the reference model the way a well-behaved
 * client does (system prompt with `<task>`, `<observation>` messages, 3-image budget with
 * evicted placeholders, results in the mode's layout, thinking on).
 */
import { PNG } from "pngjs";
import { z } from "zod";
import { TOOL_ARGS, TOOL_DESCRIPTIONS, type ToolName } from "../toolbox/tools.js";

export type SampleMode = "structured" | "tools";

/** A step the sample conversation records as already taken. */
export interface SampleStep {
  tool: ToolName;
  args: Record<string, unknown>;
  note?: string | null;
  result?: string;
}

export interface SampleRequestOptions {
  mode: SampleMode;
  instruction: string;
  /** Screenshot bytes (PNG) used for every observation. */
  screenshot: Buffer;
  /** Steps already taken; each adds observation, assistant turn and result. */
  history?: SampleStep[];
  tools?: readonly ToolName[];
  model?: string;
  user?: string;
  stream?: boolean;
  /** Extra user texts inserted before the current observation (e.g. a `<reflection>`). */
  before?: string[];
}

const DEFAULT_TOOLS: ToolName[] = ["click", "write", "press", "scroll", "wait", "answer"];

/** A PNG of the given size (a soft gradient, so it compresses like a page screenshot). */
export function samplePng(width: number, height: number): Buffer {
  const png = new PNG({ width, height });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      png.data[i] = 240;
      png.data[i + 1] = 240 - ((y >> 5) % 2) * 16;
      png.data[i + 2] = 250;
      png.data[i + 3] = 255;
    }
  }
  return PNG.sync.write(png);
}

/** The structured-output step schema for some tools: `{note, thought, tool_call: oneOf(...)}`. */
export function sampleStepSchema(tools: readonly ToolName[]): Record<string, unknown> {
  return {
    type: "object",
    properties: {
      note: { type: ["string", "null"], description: "Task-relevant information from the previous observation." },
      thought: { type: "string", description: "Reasoning about next steps" },
      tool_call: {
        oneOf: tools.map((tool) => {
          const schema = z.toJSONSchema(TOOL_ARGS[tool], { io: "input" }) as {
            properties?: Record<string, unknown>;
            required?: string[];
          };
          return {
            type: "object",
            description: TOOL_DESCRIPTIONS[tool],
            properties: { tool_name: { const: tool }, ...(schema.properties ?? {}) },
            required: ["tool_name", ...(schema.required ?? [])],
          };
        }),
      },
    },
    required: ["thought", "tool_call"],
  };
}

/** The OpenAI `tools` array for some tools. */
export function sampleToolsArray(tools: readonly ToolName[]): Record<string, unknown>[] {
  return tools.map((tool) => ({
    type: "function",
    function: {
      name: tool,
      description: TOOL_DESCRIPTIONS[tool],
      parameters: z.toJSONSchema(TOOL_ARGS[tool], { io: "input" }),
    },
  }));
}

/** A complete, conformant request body for the next turn of a conversation. */
export function sampleRequest(options: SampleRequestOptions): Record<string, unknown> {
  const tools = options.tools ?? DEFAULT_TOOLS;
  const schema = sampleStepSchema(tools);
  let system = `You are a computer-use agent.\n\n<task>\n${options.instruction}\n</task>\n\nCoordinates are integers in [0, 1000].`;
  if (options.mode === "structured")
    system += `\n\n<output_format>\n\`\`\`json\n${JSON.stringify(schema)}\n\`\`\`\n</output_format>`;
  const messages: Record<string, unknown>[] = [{ role: "system", content: system }];
  const image = `data:image/png;base64,${options.screenshot.toString("base64")}`;
  const observation = () => ({
    role: "user",
    content: [
      { type: "text", text: "<observation>\n" },
      { type: "image_url", image_url: { url: image } },
      { type: "text", text: "\n</observation>" },
    ],
  });
  (options.history ?? []).forEach((step, i) => {
    messages.push(observation());
    const result = step.result ?? "ok";
    if (options.mode === "structured") {
      messages.push({
        role: "assistant",
        content: JSON.stringify({
          note: step.note ?? null,
          thought: `step ${i + 1}`,
          tool_call: { tool_name: step.tool, ...step.args },
        }),
      });
      messages.push({ role: "user", content: `<tool_output tool="${step.tool}">\n${result}\n</tool_output>` });
    } else {
      const id = `call_sample_${i + 1}`;
      messages.push({
        role: "assistant",
        content: step.note ?? null,
        tool_calls: [{ id, type: "function", function: { name: step.tool, arguments: JSON.stringify(step.args) } }],
      });
      messages.push({ role: "tool", tool_call_id: id, content: result });
    }
  });
  for (const text of options.before ?? []) messages.push({ role: "user", content: text });
  messages.push(observation());
  evictAllButLast(messages, 3);
  const body: Record<string, unknown> = {
    model: options.model ?? "reference",
    messages,
    temperature: 0.8,
    max_tokens: 2048,
    reasoning_effort: "medium",
    chat_template_kwargs: { enable_thinking: true },
  };
  if (options.user) body.user = options.user;
  if (options.stream) body.stream = true;
  if (options.mode === "structured") body.structured_outputs = { json: schema };
  else Object.assign(body, { tools: sampleToolsArray(tools), tool_choice: "required" });
  return body;
}

function evictAllButLast(messages: Record<string, unknown>[], keep: number): void {
  let seen = 0;
  for (let i = messages.length - 1; i >= 0; i--) {
    const content = messages[i].content;
    if (messages[i].role !== "user" || !Array.isArray(content)) continue;
    for (let j = content.length - 1; j >= 0; j--) {
      if ((content[j] as { type?: string }).type !== "image_url") continue;
      seen += 1;
      if (seen > keep) content[j] = { type: "text", text: "[screenshot evicted]" };
    }
  }
}
