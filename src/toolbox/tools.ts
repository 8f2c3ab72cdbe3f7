/**
 * The toolbox: every operation an agent can propose, defined once.
 *
 * Each tool's arguments are a zod object; from these one definition umpire derives
 * the structured-output step schema, the function-calling `tools` array, the executor's
 * argument validation and the task schema's list of known tools. Coordinates are integers
 * in [0, 1000], relative to the screenshot the model was sent (Holo convention).
 */
import { z } from "zod";

const coordinate = (axis: "X" | "Y") =>
  z.number().int().min(0).max(1000).describe(`${axis} coordinate as integer in [0, 1000], relative to the screenshot`);

const element = z.string().min(1).describe("Detailed description of the target UI element");

/** Argument schemas, keyed by tool name. Order here is the order tools are offered in. */
export const TOOL_ARGS = {
  click: z.object({ element, x: coordinate("X"), y: coordinate("Y") }).strict(),
  double_click: z.object({ element, x: coordinate("X"), y: coordinate("Y") }).strict(),
  write: z
    .object({
      content: z.string().describe("Content to write"),
      press_enter: z.boolean().default(false).describe("Whether to press Enter after typing"),
    })
    .strict(),
  press: z
    .object({
      keys: z
        .array(z.string().min(1))
        .min(1)
        .max(5)
        .describe('Keys pressed together, e.g. ["Escape"] or ["Control", "a"]'),
    })
    .strict(),
  scroll: z
    .object({
      direction: z.enum(["up", "down", "left", "right"]).describe("Scroll direction"),
      amount: z.number().int().min(1).max(20).describe("How far to scroll, in wheel notches"),
      x: coordinate("X").optional(),
      y: coordinate("Y").optional(),
    })
    .strict(),
  wait: z.object({ seconds: z.number().min(0).max(30).describe("Seconds to wait") }).strict(),
  navigate: z.object({ url: z.string().min(1).describe("Absolute URL or path to open") }).strict(),
  go_back: z.object({}).strict(),
  answer: z.object({ content: z.string().describe("The answer content") }).strict(),
  http_get: z
    .object({
      path: z.string().min(1).describe("Path of an allow-listed read-only endpoint, e.g. /api/matches/BB-001"),
    })
    .strict(),
  write_note: z
    .object({
      name: z.string().min(1).max(120).describe("File name inside the notes folder, e.g. BB-001.md"),
      content: z.string().max(100_000).describe("Full text of the note"),
    })
    .strict(),
} as const;

export type ToolName = keyof typeof TOOL_ARGS;
export const TOOL_NAMES = Object.keys(TOOL_ARGS) as ToolName[];
export type ToolArgs<T extends ToolName> = z.infer<(typeof TOOL_ARGS)[T]>;

/** One sentence per tool, shown to the model as the tool's description. */
export const TOOL_DESCRIPTIONS: Record<ToolName, string> = {
  click: "Click at (x, y) coordinates",
  double_click: "Double-click at (x, y) coordinates",
  write: "Type text into the currently focused element without clicking first",
  press: "Press a key or a key combination",
  scroll: "Scroll the page, optionally at (x, y)",
  wait: "Wait for the page to change",
  navigate: "Open a URL in the current tab",
  go_back: "Go back to the previous page",
  answer: "Provide a final answer",
  http_get: "Read an allow-listed read-only JSON endpoint of the application",
  write_note: "Save a note file in the task's notes folder",
};

/**
 * Tools whose effect on the world cannot be undone by looking again. The repetition
 * detector flags a repeat of one of these at once, as a duplicate-effect risk.
 */
export const CONSEQUENTIAL_TOOLS: ReadonlySet<ToolName> = new Set<ToolName>(["write_note"]);

export function isToolName(name: string): name is ToolName {
  return Object.hasOwn(TOOL_ARGS, name);
}

/** A proposed action after parsing and validation: a stable id, the tool and typed args. */
export interface ProposedAction {
  /** Stable id: the function-calling `tool_call.id`, or one umpire assigns in structured mode. */
  id: string;
  tool: ToolName;
  args: Record<string, unknown>;
}
