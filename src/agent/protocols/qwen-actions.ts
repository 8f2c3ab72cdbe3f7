/**
 * Qwen's `computer_use` actions mapped onto umpire's tools. Each action the cookbook documents
 * either has an umpire tool that does the same thing, or is refused with a message saying why
 * (never approximated by another action): umpire measures the model, and a right-click silently
 * sent as a left-click would click something the model did not ask for.
 *
 * Coordinates: `coordinate` is `[x, y]` in the declared screen (`display`): the smart-resized
 * screenshot for Qwen2.5-VL, 1000x1000 for Qwen3-VL. umpire's tools take thousandths of the
 * screenshot, so the point becomes `round(x / display.width * 1000)`; for Qwen3-VL that is the
 * identity. The executor then scales thousandths against the exact image sent (`pointToCss`).
 */
import type { ToolName } from "../../toolbox/tools.js";
import type { InvalidKind } from "../action-validation.js";
import type { QwenVersion } from "./qwen-tool.js";
import type { Size } from "./smart-resize.js";

/** The executor's wheel notch (src/runner/trial/executor.ts: 100 px per notch); `pixels` are counted in them. */
export const PIXELS_PER_NOTCH = 100;
/** The most notches umpire's `scroll` takes in one action. */
const MAX_NOTCHES = 20;

export type Mapped =
  | { ok: true; tool: ToolName; args: Record<string, unknown> }
  | { ok: false; kind: InvalidKind; message: string };

/** Why an action has no umpire equivalent, in words the model reads. */
const UNSUPPORTED: Record<string, string> = {
  mouse_move: "umpire has no pointer-move (hover) action; click the element instead",
  left_click_drag: "umpire has no drag action",
  right_click: "umpire has no right-click; use left_click",
  middle_click: "umpire has no middle-click; use left_click",
  hscroll:
    "umpire cannot tell which way a horizontal scroll of signed pixels goes (the tool documents only vertical signs); use scroll",
};

const fail = (kind: InvalidKind, message: string): Mapped => ({ ok: false, kind, message });

/** Maps one `computer_use` call's arguments to an umpire tool and its arguments. */
export function mapQwenAction(version: QwenVersion, args: unknown, display: Size): Mapped {
  if (args === null || typeof args !== "object" || Array.isArray(args)) {
    return fail("wrong_type", "computer_use: the arguments must be a JSON object with an `action`");
  }
  const a = args as Record<string, unknown>;
  const action = a.action;
  if (typeof action !== "string") return fail("missing_fields", "computer_use: `action` is missing");
  const documented = version === "2.5" ? QWEN25_KNOWN : QWEN3_KNOWN;
  if (!documented.has(action)) {
    return fail("unknown_tool", `computer_use: '${action}' is not one of the actions: ${[...documented].join(", ")}`);
  }
  const unsupported = UNSUPPORTED[action];
  if (unsupported) return fail("unsupported_action", `computer_use ${action}: ${unsupported}`);
  switch (action) {
    case "left_click":
    case "double_click":
    case "triple_click":
      return click(action, a.coordinate, display);
    case "type":
      return typeof a.text === "string"
        ? { ok: true, tool: "write", args: { content: a.text } }
        : fail("missing_fields", "computer_use type: `text` (a string) is required");
    case "key":
      return Array.isArray(a.keys) && a.keys.length > 0
        ? { ok: true, tool: "press", args: { keys: a.keys } }
        : fail("missing_fields", 'computer_use key: `keys` (a list such as ["ctrl", "a"]) is required');
    case "scroll":
      return scroll(a, display);
    case "wait":
      return typeof a.time === "number"
        ? { ok: true, tool: "wait", args: { seconds: a.time } }
        : fail("missing_fields", "computer_use wait: `time` (seconds) is required");
    case "answer":
      return typeof a.text === "string"
        ? { ok: true, tool: "answer", args: { content: a.text } }
        : fail("missing_fields", "computer_use answer: `text` (a string) is required");
    default:
      return terminate(a.status);
  }
}

const QWEN25_KNOWN = new Set([
  "key",
  "type",
  "mouse_move",
  "left_click",
  "left_click_drag",
  "right_click",
  "middle_click",
  "double_click",
  "scroll",
  "wait",
  "terminate",
]);
const QWEN3_KNOWN = new Set([...QWEN25_KNOWN, "triple_click", "hscroll", "answer"]);

/**
 * A click at `coordinate`. Qwen3-VL documents `triple_click` as "simulated as double-click since
 * it's the closest action" in the very text the model reads, so it runs as umpire's double_click.
 * Without a coordinate (Qwen2.5-VL's text lets left_click omit it: "at the cursor") it is refused:
 * umpire keeps no cursor, since it has no pointer-move action.
 */
function click(action: string, coordinate: unknown, display: Size): Mapped {
  const point = toThousandths(coordinate, display, `computer_use ${action}`);
  if (!point.ok) return point;
  const tool: ToolName = action === "left_click" ? "click" : "double_click";
  const [cx, cy] = coordinate as number[];
  return { ok: true, tool, args: { element: `computer_use ${action} at (${cx}, ${cy})`, x: point.x, y: point.y } };
}

/** `coordinate` `[x, y]` in the declared screen -> umpire's thousandths of the screenshot. */
export function toThousandths(
  coordinate: unknown,
  display: Size,
  what: string,
): { ok: true; x: number; y: number } | { ok: false; kind: InvalidKind; message: string } {
  if (coordinate === undefined) {
    return {
      ok: false,
      kind: "missing_fields",
      message: `${what}: \`coordinate\` [x, y] is required (umpire keeps no cursor position)`,
    };
  }
  if (!Array.isArray(coordinate) || coordinate.length !== 2 || !coordinate.every((v) => typeof v === "number")) {
    return { ok: false, kind: "wrong_type", message: `${what}: \`coordinate\` must be a list of two numbers [x, y]` };
  }
  const [x, y] = coordinate as [number, number];
  if (x < 0 || y < 0 || x > display.width || y > display.height) {
    return {
      ok: false,
      kind: "out_of_range",
      message: `${what}: [${x}, ${y}] is outside the ${display.width}x${display.height} screen`,
    };
  }
  return {
    ok: true,
    x: Math.round((x / display.width) * 1000),
    y: Math.round((y / display.height) * 1000),
  };
}

/** `pixels` (positive up) in whole wheel notches, at `coordinate` when one is given. */
function scroll(a: Record<string, unknown>, display: Size): Mapped {
  if (typeof a.pixels !== "number" || a.pixels === 0) {
    return fail("missing_fields", "computer_use scroll: `pixels` (non-zero; positive up, negative down) is required");
  }
  const amount = Math.max(1, Math.round(Math.abs(a.pixels) / PIXELS_PER_NOTCH));
  if (amount > MAX_NOTCHES) {
    return fail(
      "out_of_range",
      `computer_use scroll: ${a.pixels} pixels is more than umpire scrolls at once (${MAX_NOTCHES * PIXELS_PER_NOTCH})`,
    );
  }
  const args: Record<string, unknown> = { direction: a.pixels > 0 ? "up" : "down", amount };
  if (a.coordinate !== undefined) {
    const point = toThousandths(a.coordinate, display, "computer_use scroll");
    if (!point.ok) return point;
    args.x = point.x;
    args.y = point.y;
  }
  return { ok: true, tool: "scroll", args };
}

/**
 * `terminate` ends the task with a status. umpire ends a trial with `answer`, so it becomes an
 * answer naming the status (a task judged by its answer then sees no answer text from the model).
 */
function terminate(status: unknown): Mapped {
  if (status !== "success" && status !== "failure") {
    return fail("invalid_value", 'computer_use terminate: `status` must be "success" or "failure"');
  }
  return { ok: true, tool: "answer", args: { content: `(terminate: ${status})` } };
}
