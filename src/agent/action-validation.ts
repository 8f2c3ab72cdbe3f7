/**
 * Validating one proposed tool call (a name and its arguments) against the toolbox and the
 * task's offered tools, and classifying what is wrong in words the model can act on.
 *
 * Decision on `x`/`y` sent as a list (a quirk seen from the hosted endpoint, e.g.
 * `"x": [512, 300]`): REJECT, as its own kind `coordinate_list`, never coerce. A list is
 * ambiguous (is it `[x, y]`? which element is x when y is a list too?), a wrong guess clicks a
 * place the model did not mean, possibly a consequential button, and umpire measures the model:
 * a silent fix would hide the defect from the report. The rejection tells the model the exact
 * form to use, so the cost is one turn. The only coercion umpire makes anywhere is that empty
 * function-call arguments ("") mean `{}` (see parse.ts).
 */
import type { z } from "zod";
import { TOOL_ARGS, isToolName, type ProposedAction, type ToolName } from "../toolbox/tools.js";

/**
 * Every way a proposal can be wrong. `unsupported_action`: an action of a family's vocabulary with
 * no umpire equivalent (a right-click, a drag), refused rather than approximated. `skipped`: valid,
 * but after a rejected call in the same reply.
 */
export const INVALID_KINDS = [
  "empty_output",
  "invalid_json",
  "think_leak",
  "no_tool_call",
  "unknown_tool",
  "tool_not_offered",
  "coordinate_list",
  "missing_fields",
  "extra_fields",
  "wrong_type",
  "out_of_range",
  "invalid_value",
  "unsupported_action",
  "skipped",
] as const;
export type InvalidKind = (typeof INVALID_KINDS)[number];

export type ArgsValidation = { ok: true; action: ProposedAction } | { ok: false; kind: InvalidKind; message: string };

const COORDINATE_KEYS = ["x", "y"] as const;

/** Where several issues are present, the kind reported is the first in this order. */
const ISSUE_PRIORITY: InvalidKind[] = ["missing_fields", "extra_fields", "wrong_type", "out_of_range", "invalid_value"];

/**
 * Validates `args` for tool `name`. On success the action's args are zod's output (defaults
 * filled, e.g. `press_enter: false`).
 */
export function validateToolCall(
  id: string,
  name: unknown,
  args: unknown,
  offered: readonly ToolName[],
): ArgsValidation {
  if (typeof name !== "string" || name === "") {
    return {
      ok: false,
      kind: "missing_fields",
      message: `the tool name is missing; use one of: ${offered.join(", ")}`,
    };
  }
  if (!isToolName(name)) {
    return { ok: false, kind: "unknown_tool", message: `unknown tool '${name}'; use one of: ${offered.join(", ")}` };
  }
  if (!offered.includes(name)) {
    return {
      ok: false,
      kind: "tool_not_offered",
      message: `tool '${name}' is not available in this task; use one of: ${offered.join(", ")}`,
    };
  }
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    return {
      ok: false,
      kind: "wrong_type",
      message: `${name}: the arguments must be a JSON object, got ${preview(args)}`,
    };
  }
  const record = args as Record<string, unknown>;
  for (const key of COORDINATE_KEYS) {
    if (Array.isArray(record[key])) {
      return {
        ok: false,
        kind: "coordinate_list",
        message:
          `${name}: ${key} must be one integer in [0, 1000], not a list (got ${preview(record[key])}). ` +
          `Send x and y as two separate integers, e.g. "x": 512, "y": 300.`,
      };
    }
  }
  const parsed = TOOL_ARGS[name].safeParse(record);
  if (parsed.success) return { ok: true, action: { id, tool: name, args: parsed.data as Record<string, unknown> } };

  const described = parsed.error.issues.map((issue) => describeIssue(issue, record));
  const kind = ISSUE_PRIORITY.find((k) => described.some((d) => d.kind === k)) ?? "invalid_value";
  return { ok: false, kind, message: `${name}: ${described.map((d) => d.text).join("; ")}` };
}

function describeIssue(issue: z.core.$ZodIssue, args: Record<string, unknown>): { kind: InvalidKind; text: string } {
  const field = issue.path.map(String).join(".") || "arguments";
  const top = String(issue.path[0] ?? "");
  switch (issue.code) {
    case "unrecognized_keys":
      return { kind: "extra_fields", text: `unexpected field(s) ${issue.keys.map((k) => `'${k}'`).join(", ")}` };
    case "invalid_type": {
      if (issue.path.length === 1 && !(top in args))
        return { kind: "missing_fields", text: `missing field '${field}'` };
      const expected = issue.expected === "int" ? "an integer" : `a ${issue.expected}`;
      return { kind: "wrong_type", text: `'${field}' must be ${expected}, got ${preview(valueAt(args, issue.path))}` };
    }
    case "too_big":
    case "too_small": {
      const value = valueAt(args, issue.path);
      if (issue.origin === "number") {
        const bound =
          issue.code === "too_big" ? `at most ${String(issue.maximum)}` : `at least ${String(issue.minimum)}`;
        return { kind: "out_of_range", text: `'${field}' must be ${bound}, got ${preview(value)}` };
      }
      return { kind: "invalid_value", text: `'${field}': ${issue.message}, got ${preview(value)}` };
    }
    case "invalid_value":
      return {
        kind: "invalid_value",
        text: `'${field}' must be one of ${issue.values.map((v) => JSON.stringify(v)).join(", ")}, got ${preview(valueAt(args, issue.path))}`,
      };
    default:
      return { kind: "invalid_value", text: `'${field}': ${issue.message}` };
  }
}

function valueAt(args: Record<string, unknown>, path: readonly PropertyKey[]): unknown {
  let node: unknown = args;
  for (const key of path) {
    if (node === null || typeof node !== "object") return undefined;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node;
}

/** A short JSON rendering of a value for error messages. */
export function preview(value: unknown, max = 80): string {
  const text = value === undefined ? "nothing" : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
