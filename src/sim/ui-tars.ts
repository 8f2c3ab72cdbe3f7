/**
 * The reference model speaking UI-TARS-1.5: a planned turn said as `Thought: ...\nAction: ...` text,
 * points as `<point>x y</point>` in pixels of the smart-resized screenshot (factor 28, min 100x28x28),
 * as the repository's prompt asks; and its malformed forms. An umpire tool UI-TARS' action space has
 * no word for (navigate, write_note...) is said under umpire's name, which umpire refuses.
 */
import { UI_TARS_FACTOR, UI_TARS_MAX_PIXELS, UI_TARS_MIN_PIXELS } from "../agent/protocols/ui-tars-prompt.js";
import { smartResize, type Size } from "../agent/protocols/smart-resize.js";
import type { MalformedKind } from "./profiles.js";

export function uiTarsScreen(frame: Size | null): Size {
  return frame
    ? smartResize(frame, UI_TARS_FACTOR, UI_TARS_MIN_PIXELS, UI_TARS_MAX_PIXELS)
    : { width: 1000, height: 1000 };
}

/** A Python single-quoted string body, as the prompt asks (\\', \\", \\n escaped). */
function quoted(text: string): string {
  return text.replace(/\\/g, "\\\\").replace(/'/g, "\\'").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

function pointOf(args: Record<string, unknown>, screen: Size): string {
  const x = Math.round((Number(args.x) / 1000) * screen.width);
  const y = Math.round((Number(args.y) / 1000) * screen.height);
  return `<point>${x} ${y}</point>`;
}

/** One umpire action as UI-TARS' action text. */
export function uiTarsAction(action: { tool: string; args: Record<string, unknown> }, screen: Size): string {
  const a = action.args;
  switch (action.tool) {
    case "click":
      return `click(point='${pointOf(a, screen)}')`;
    case "double_click":
      return `left_double(point='${pointOf(a, screen)}')`;
    case "write":
      return `type(content='${quoted(String(a.content ?? ""))}${a.press_enter === true ? "\\n" : ""}')`;
    case "press":
      return `hotkey(key='${(a.keys as string[]).map((k) => k.toLowerCase()).join(" ")}')`;
    case "scroll":
      return typeof a.x === "number"
        ? `scroll(point='${pointOf(a, screen)}', direction='${String(a.direction)}')`
        : `scroll(direction='${String(a.direction)}')`;
    case "wait":
      return "wait()";
    case "answer":
      return `finished(content='${quoted(String(a.content ?? ""))}')`;
    default:
      return `${action.tool}(${Object.entries(a)
        .map(([k, v]) => `${k}='${quoted(String(v))}'`)
        .join(", ")})`;
  }
}

/** The reply text of a turn. */
export function uiTarsText(thought: string, action: string): string {
  return `Thought: ${thought}\nAction: ${action}`;
}

/** One kind of invalid UI-TARS output, on the planned click (else the middle of the screen). */
export function uiTarsMalformed(
  kind: MalformedKind,
  planned: Record<string, unknown> | null,
  screen: Size,
  reasoning: string,
): string {
  const at = pointOf(planned ?? { x: 500, y: 500 }, screen);
  const thought = "Thought: Click the target.\nAction: ";
  switch (kind) {
    case "invalid-json":
      return `${thought}click(point='${at}`;
    case "unknown-tool":
      return `${thought}teleport(point='${at}')`;
    case "missing-field":
      return `${thought}click()`;
    case "extra-field":
      return `${thought}right_single(point='${at}')`;
    case "wrong-type":
      return `${thought}click(start_box='left of the button')`;
    case "coordinate-out-of-range":
      return `${thought}click(start_box='(${screen.width + 500},10)')`;
    case "xy-as-list":
      return `${thought}click(start_box='(${Math.round(screen.width / 2)})')`;
    case "think-in-content":
      return `<think>${reasoning}</think>`;
    default:
      return "";
  }
}
