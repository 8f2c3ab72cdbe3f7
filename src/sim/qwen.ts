/**
 * The reference model speaking Qwen's computer use: a planned turn (an umpire action grounded in
 * thousandths of the last screenshot) said as the `computer_use` call(s) Qwen2.5-VL or Qwen3-VL
 * would make, in that version's coordinate space, or as the request's own function for umpire
 * tools no action covers. Qwen2.5-VL's pixels are computed on the smart-resized frame of the last
 * screenshot, exactly as the server resizes it, so the same policy lands on the same element in
 * every protocol.
 */
import { COMPUTER_USE, type QwenVersion } from "../agent/protocols/qwen-tool.js";
import {
  QWEN25_FACTOR,
  QWEN25_MAX_PIXELS,
  QWEN25_MIN_PIXELS,
  smartResize,
  type Size,
} from "../agent/protocols/smart-resize.js";
import { PIXELS_PER_NOTCH } from "../agent/protocols/qwen-actions.js";
import type { RequestMode } from "./request.js";

/** The screen a version's coordinates are in, for a screenshot of `frame` pixels. */
export function qwenScreen(version: QwenVersion, frame: Size | null): Size {
  if (version === "3" || !frame) return { width: 1000, height: 1000 };
  return smartResize(frame, QWEN25_FACTOR, QWEN25_MIN_PIXELS, QWEN25_MAX_PIXELS);
}

/** The Qwen version a request mode speaks, or null for Holo's modes. */
export function qwenVersionOf(mode: RequestMode): QwenVersion | null {
  return mode === "qwen2.5-vl" ? "2.5" : mode === "qwen3-vl" ? "3" : null;
}

export interface QwenCall {
  name: string;
  arguments: Record<string, unknown>;
}

/** Thousandths of the screenshot -> the version's screen. */
function coordinate(args: Record<string, unknown>, screen: Size): [number, number] {
  const x = Number(args.x);
  const y = Number(args.y);
  return [Math.round((x / 1000) * screen.width), Math.round((y / 1000) * screen.height)];
}

/** The call(s) that say one umpire action in Qwen's vocabulary (write + Enter is type, then key). */
export function qwenCalls(
  action: { tool: string; args: Record<string, unknown> },
  version: QwenVersion,
  screen: Size,
): QwenCall[] {
  const a = action.args;
  const use = (args: Record<string, unknown>): QwenCall => ({ name: COMPUTER_USE, arguments: args });
  switch (action.tool) {
    case "click":
      return [use({ action: "left_click", coordinate: coordinate(a, screen) })];
    case "double_click":
      return [use({ action: "double_click", coordinate: coordinate(a, screen) })];
    case "write":
      return [
        use({ action: "type", text: a.content }),
        ...(a.press_enter === true ? [use({ action: "key", keys: ["enter"] })] : []),
      ];
    case "press":
      return [use({ action: "key", keys: a.keys })];
    case "wait":
      return [use({ action: "wait", time: a.seconds })];
    case "scroll": {
      const pixels = Number(a.amount ?? 1) * PIXELS_PER_NOTCH;
      const signed = a.direction === "up" ? pixels : a.direction === "down" ? -pixels : null;
      // Qwen's scroll is vertical only; a sideways step is said as hscroll, which umpire refuses.
      const args: Record<string, unknown> =
        signed === null ? { action: "hscroll", pixels } : { action: "scroll", pixels: signed };
      if (typeof a.x === "number" && typeof a.y === "number") args.coordinate = coordinate(a, screen);
      return [use(args)];
    }
    case "answer":
      return version === "3"
        ? [use({ action: "answer", text: a.content })]
        : [{ name: "answer", arguments: { content: a.content } }];
    default:
      return [{ name: action.tool, arguments: a }];
  }
}
