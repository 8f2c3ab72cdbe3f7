/**
 * Gemini's predefined computer-use functions (the `computerUse` tool in the browser environment, as
 * Google's "Computer Use" guide and the `@google/genai` types document them) mapped onto umpire's
 * tools, or refused with the reason.
 *
 * Coordinates: Gemini answers on a 1000 x 1000 grid over the screenshot it saw (0-999), and umpire's
 * executor takes [0, 1000] relative to that same screenshot, so x and y pass unchanged: exact at any
 * device pixel ratio, since neither side is in device pixels. Distances are fractions of the viewport
 * too: scroll_at's `magnitude` is on the same grid (Google's reference agent denormalises it as it does y,
 * or x sideways, against the screen size its browser's viewport is set to, and wheels that many CSS px),
 * so it is counted against the viewport in CSS pixels, the screenshot's size over its device pixel ratio.
 */
import type { ToolName } from "../../toolbox/tools.js";
import type { Mapped } from "./slots.js";

/** Every predefined function of the browser environment, in the guide's order. */
export const GEMINI_PREDEFINED = [
  "open_web_browser",
  "wait_5_seconds",
  "go_back",
  "go_forward",
  "search",
  "navigate",
  "click_at",
  "hover_at",
  "type_text_at",
  "key_combination",
  "scroll_document",
  "scroll_at",
  "drag_and_drop",
] as const;
export type GeminiFunction = (typeof GEMINI_PREDEFINED)[number];

/** Why umpire refuses a predefined function (it is also excluded from the tool, so a model should not call it). */
export const GEMINI_UNSUPPORTED: Partial<Record<GeminiFunction, string>> = {
  hover_at: "moving the pointer without clicking (hover) is not one of umpire's actions",
  drag_and_drop: "dragging is not one of umpire's actions",
  go_forward: "going forward in the history is not one of umpire's actions",
  search: "opening a search engine leaves the task's site; use navigate with the task's own address",
};

/** The umpire tools each supported function runs (it is excluded when the task does not offer all of them). */
export const GEMINI_NEEDS: Partial<Record<GeminiFunction, readonly ToolName[]>> = {
  open_web_browser: ["wait"],
  wait_5_seconds: ["wait"],
  go_back: ["go_back"],
  navigate: ["navigate"],
  click_at: ["click"],
  type_text_at: ["click", "write"],
  key_combination: ["press"],
  scroll_document: ["press", "scroll"],
  scroll_at: ["scroll"],
};

/** umpire's tools that the predefined functions cover (the others are offered as function declarations). */
export const GEMINI_COVERED: ReadonlySet<ToolName> = new Set([
  "click",
  "write",
  "press",
  "scroll",
  "wait",
  "navigate",
  "go_back",
]);

/** The executor's wheel notch, in CSS pixels (src/runner/trial/executor.ts). */
const WHEEL_PIXELS = 100;
/** scroll_at's documented default magnitude, on the same 1000 grid as the coordinates. */
export const DEFAULT_MAGNITUDE = 800;

export function isPredefined(name: string): name is GeminiFunction {
  return (GEMINI_PREDEFINED as readonly string[]).includes(name);
}

/** The predefined functions to exclude: what umpire refuses, and what needs a tool the task does not offer. */
export function excludedFunctions(offered: readonly ToolName[]): string[] {
  return GEMINI_PREDEFINED.filter(
    (f) => GEMINI_UNSUPPORTED[f] !== undefined || !(GEMINI_NEEDS[f] ?? []).every((t) => offered.includes(t)),
  );
}

const grid = (v: unknown): number | null =>
  typeof v === "number" && Number.isFinite(v) ? Math.max(0, Math.min(1000, Math.round(v))) : null;

/** The viewport in CSS pixels, which Gemini's distances are fractions of. */
export interface CssViewport {
  width: number;
  height: number;
}

/**
 * One predefined call as umpire's actions, in order (type_text_at is a click, an optional clear and
 * the typing). `viewport` is the page's viewport in CSS pixels (the screenshot's size over its device
 * pixel ratio), which scroll distances are counted against.
 */
export function mapGeminiAction(name: GeminiFunction, args: Record<string, unknown>, viewport: CssViewport): Mapped[] {
  const x = grid(args.x);
  const y = grid(args.y);
  const at = x !== null && y !== null ? { x, y } : null;
  const element = `point (${String(args.x)}, ${String(args.y)}) of the screenshot's 1000 x 1000 grid`;
  const needPoint = (): Mapped[] => [
    {
      refuse: `${name} needs integer x and y on the 0-999 grid`,
      kind: args.x === undefined || args.y === undefined ? "missing_fields" : "wrong_type",
    },
  ];
  const unsupported = GEMINI_UNSUPPORTED[name];
  if (unsupported !== undefined) return [{ refuse: unsupported }];
  switch (name) {
    case "open_web_browser":
      // The browser is open on the task's page: the honest answer is a fresh screenshot.
      return [{ tool: "wait", args: { seconds: 0 } }];
    case "wait_5_seconds":
      return [{ tool: "wait", args: { seconds: 5 } }];
    case "go_back":
      return [{ tool: "go_back", args: {} }];
    case "navigate":
      return [{ tool: "navigate", args: { url: args.url } }];
    case "click_at":
      return at ? [{ tool: "click", args: { element, ...at } }] : needPoint();
    case "type_text_at":
      return at ? typeTextAt(args, at, element) : needPoint();
    case "key_combination":
      return typeof args.keys === "string" && args.keys !== ""
        ? [{ tool: "press", args: { keys: args.keys.split("+").filter(Boolean) } }]
        : [{ refuse: 'key_combination needs `keys`, a string such as "Control+C"', kind: "missing_fields" }];
    case "scroll_document":
      return scrollDocument(args.direction, viewport);
    case "scroll_at":
      return at ? scrollAt(args, at, viewport) : needPoint();
    default:
      return [{ refuse: `the computer-use function '${name}' is not one umpire knows`, kind: "unknown_tool" }];
  }
}

/** Click, clear (Control+A, Delete, as Google's reference computer does) unless told not to, type, Enter. */
function typeTextAt(args: Record<string, unknown>, at: { x: number; y: number }, element: string): Mapped[] {
  if (typeof args.text !== "string")
    return [
      {
        refuse: "type_text_at needs `text`, a string",
        kind: args.text === undefined ? "missing_fields" : "wrong_type",
      },
    ];
  const out: Mapped[] = [{ tool: "click", args: { element, ...at } }];
  if (args.clear_before_typing !== false) {
    out.push({ tool: "press", args: { keys: ["Control", "a"] } }, { tool: "press", args: { keys: ["Delete"] } });
  }
  out.push({ tool: "write", args: { content: args.text, press_enter: args.press_enter !== false } });
  return out;
}

const DIRECTIONS = new Set(["up", "down", "left", "right"]);

/** A page down/up is the key (as Google's reference computer does); sideways, half the viewport's width. */
function scrollDocument(direction: unknown, viewport: CssViewport): Mapped[] {
  if (direction === "down") return [{ tool: "press", args: { keys: ["PageDown"] } }];
  if (direction === "up") return [{ tool: "press", args: { keys: ["PageUp"] } }];
  if (direction === "left" || direction === "right")
    return [{ tool: "scroll", args: { direction, amount: notches(viewport.width / 2) } }];
  return [{ refuse: "scroll_document needs `direction`: up, down, left or right", kind: "invalid_value" }];
}

/**
 * `magnitude` is on the 1000 grid of the scrolled axis, so magnitude / 1000 of the viewport's CSS height
 * (width sideways) is the distance; umpire scrolls in wheel notches of 100 CSS px, the nearest count of them.
 */
function scrollAt(args: Record<string, unknown>, at: { x: number; y: number }, viewport: CssViewport): Mapped[] {
  const direction = String(args.direction);
  if (!DIRECTIONS.has(direction))
    return [{ refuse: "scroll_at needs `direction`: up, down, left or right", kind: "invalid_value" }];
  const magnitude = typeof args.magnitude === "number" ? args.magnitude : DEFAULT_MAGNITUDE;
  const side = direction === "up" || direction === "down" ? viewport.height : viewport.width;
  return [{ tool: "scroll", args: { direction, amount: notches((magnitude / 1000) * side), ...at } }];
}

/** CSS pixels as wheel notches (at least 1, at most the tool's 20). */
export function notches(pixels: number): number {
  return Math.max(1, Math.min(20, Math.round(pixels / WHEEL_PIXELS)));
}
