/**
 * Reading a UI-TARS reply (`Thought: ...\nAction: click(point='<point>x y</point>')`): a faithful
 * port of `parse_action_to_structure_output` in bytedance/UI-TARS (`codes/ui_tars/action_parser.py`,
 * Apache-2.0), model type `qwen25vl` (UI-TARS-1.5): `<point>x y</point>` read as `(x,y)`, `point=`
 * as `start_box=`, actions split on `)\n\n`, `type(content='...')` read up to its last `')`, and each
 * box divided by the smart-resized size of the screenshot. `@ui-tars/action-parser` (npm) is the
 * maintained TypeScript parser, but umpire cannot add packages to its shared install, so this ports
 * the Python reference the npm package itself follows. Then each action is mapped onto umpire's
 * tools: what has no equivalent (right_single, drag, hover) is refused, never approximated.
 */
import type { ToolName } from "../../toolbox/tools.js";
import type { InvalidKind } from "../action-validation.js";
import type { Size } from "./smart-resize.js";

export interface UiTarsCall {
  name: string;
  args: Record<string, string>;
}

export type UiTarsParsed = { thought: string | null; calls: UiTarsCall[] } | { error: InvalidKind; message: string };

/** Python string escapes the model is told to use (\\', \\", \\n) read back. */
function readEscapes(text: string): string {
  return text.replace(/\\(['"\\nt])/g, (_, c: string) => (c === "n" ? "\n" : c === "t" ? "\t" : c));
}

/** `name(key='value', ...)` -> the call; null when it is not one. */
function parseCall(source: string): UiTarsCall | null {
  const head = /^\s*([A-Za-z_]\w*)\(([\s\S]*)\)\s*$/.exec(source);
  if (!head) return null;
  const [, name, body] = head as unknown as [string, string, string];
  if (name === "type") {
    // The reference reads type's content up to its last `')`, so quotes inside survive.
    const content = /^\s*content=(['"])([\s\S]*)\1\s*$/.exec(body);
    return content ? { name, args: { content: readEscapes(content[2]!) } } : null;
  }
  const args: Record<string, string> = {};
  const pair = /\s*([A-Za-z_]\w*)\s*=\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\s*(?:,|$)/y;
  let at = 0;
  while (at < body.length) {
    pair.lastIndex = at;
    const m = pair.exec(body);
    if (!m) return body.slice(at).trim() === "" ? { name, args } : null;
    args[m[1]!] = readEscapes(m[2] ?? m[3] ?? "");
    at = pair.lastIndex;
  }
  return { name, args };
}

/** The reply's thought and action calls, as the reference parser reads them. */
export function parseUiTarsText(raw: string): UiTarsParsed {
  let text = raw.trim();
  if (text.includes("<point>")) {
    text = text
      .replace(/\[EOS\]/g, "")
      .replace(/<point>(\d+)\s+(\d+)<\/point>/g, "($1,$2)")
      .trim();
  }
  text = text.replace(/start_point=/g, "start_box=").replace(/end_point=/g, "end_box=");
  text = text.replace(/(?<![a-z_])point=/g, "start_box=");
  const thought = /Thought: ([\s\S]+?)(?=\s*Action: |$)/.exec(text)?.[1]?.trim() ?? null;
  if (!text.includes("Action:")) {
    return {
      error: "no_tool_call",
      message: "your reply has no `Action:` line; end it with one action, e.g. Action: wait()",
    };
  }
  const actionText = text.split("Action: ").at(-1)!;
  const calls: UiTarsCall[] = [];
  for (let part of actionText.split(")\n\n")) {
    part = part.trim();
    if (!part.endsWith(")")) part += ")";
    const call = parseCall(part);
    if (!call) {
      return { error: "invalid_json", message: `the action ${JSON.stringify(part.slice(0, 80))} could not be parsed` };
    }
    calls.push(call);
  }
  return { thought, calls };
}

export type UiTarsMapped =
  | { ok: true; tool: ToolName; args: Record<string, unknown> }
  | { ok: false; kind: InvalidKind; message: string };

const UNSUPPORTED: Record<string, string> = {
  right_single: "umpire has no right-click; use click",
  drag: "umpire has no drag action",
  hover: "umpire has no hover action; click the element instead",
  call_user: "umpire runs unattended: there is no user to call; use finished to say what is missing",
};

/** `(x,y)` on the smart-resized screen -> umpire's thousandths of the screenshot. */
function point(box: string | undefined, screen: Size, action: string) {
  if (box === undefined)
    return { ok: false as const, kind: "missing_fields" as const, message: `${action}: the point is missing` };
  // vLLM drops special tokens by default; a server that keeps them sends <|box_start|>(x,y)<|box_end|>.
  const numbers = box
    .replace(/<\|box_(?:start|end)\|>/g, "")
    .replace(/[()[\]]/g, "")
    .split(",")
    .map((n) => Number(n.trim()));
  if (numbers.length < 2 || numbers.some((n) => !Number.isFinite(n))) {
    return { ok: false as const, kind: "wrong_type" as const, message: `${action}: '${box}' is not a point (x,y)` };
  }
  const [x, y] = numbers as [number, number];
  if (x < 0 || y < 0 || x > screen.width || y > screen.height) {
    return {
      ok: false as const,
      kind: "out_of_range" as const,
      message: `${action}: (${x},${y}) is outside the ${screen.width}x${screen.height} screenshot`,
    };
  }
  return {
    ok: true as const,
    x: Math.round((x / screen.width) * 1000),
    y: Math.round((y / screen.height) * 1000),
    raw: [x, y],
  };
}

/**
 * One action onto umpire's tools. As UI-TARS' own executor (`parsing_response_to_pyautogui_code`):
 * scroll is 5 wheel notches, wait is 5 s (the prompt: "Sleep for 5s"), a `type` content ending in
 * `\n` submits (Enter), hotkey keys are split on spaces.
 */
export function mapUiTarsCall(call: UiTarsCall, screen: Size): UiTarsMapped {
  const { name, args } = call;
  const unsupported = UNSUPPORTED[name];
  if (unsupported) return { ok: false, kind: "unsupported_action", message: `${name}: ${unsupported}` };
  switch (name) {
    case "click":
    case "left_single":
    case "left_double": {
      const p = point(args.start_box, screen, name);
      if (!p.ok) return p;
      return {
        ok: true,
        tool: name === "left_double" ? "double_click" : "click",
        args: { element: `${name} at (${p.raw[0]},${p.raw[1]})`, x: p.x, y: p.y },
      };
    }
    case "type": {
      const content = args.content ?? "";
      const submit = content.endsWith("\n");
      return {
        ok: true,
        tool: "write",
        args: { content: submit ? content.slice(0, -1) : content, press_enter: submit },
      };
    }
    case "hotkey": {
      const keys = (args.key ?? args.hotkey ?? "").split(/\s+/).filter(Boolean);
      return keys.length > 0
        ? { ok: true, tool: "press", args: { keys } }
        : { ok: false, kind: "missing_fields", message: "hotkey: key='...' is required, e.g. hotkey(key='ctrl c')" };
    }
    case "scroll": {
      const direction = args.direction?.trim();
      if (direction !== "up" && direction !== "down" && direction !== "left" && direction !== "right") {
        return { ok: false, kind: "invalid_value", message: "scroll: direction must be up, down, left or right" };
      }
      const scrollArgs: Record<string, unknown> = { direction, amount: 5 };
      if (args.start_box !== undefined) {
        const p = point(args.start_box, screen, name);
        if (!p.ok) return p;
        scrollArgs.x = p.x;
        scrollArgs.y = p.y;
      }
      return { ok: true, tool: "scroll", args: scrollArgs };
    }
    case "wait":
      return { ok: true, tool: "wait", args: { seconds: 5 } };
    case "finished":
      return { ok: true, tool: "answer", args: { content: args.content ?? "" } };
    default:
      return {
        ok: false,
        kind: "unknown_tool",
        message: `unknown action '${name}'; use one of the Action Space: click, left_double, hotkey, type, scroll, wait, finished`,
      };
  }
}
