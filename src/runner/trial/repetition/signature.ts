/**
 * Action signatures: "is the agent proposing the same thing again?"
 *
 * A signature keeps what makes two proposals the same attempt (tool, target, text, other
 * arguments) and drops what does not: pixel jitter inside a tolerance, and the wording of the
 * element description when coordinates say where the action lands.
 */
import { createHash } from "node:crypto";
import type { ProposedAction } from "../../../toolbox/tools.js";

export interface SignatureOptions {
  /** Coordinate tolerance in the model's [0, 1000] units (default 20). */
  quantum?: number;
}

/** The parts a signature is made of. */
export interface ActionKey {
  tool: string;
  /** Where it lands: [x, y] in [0, 1000] units, unquantised. */
  point?: [number, number];
  /** The normalised element description, used as the target only when there is no point. */
  element?: string;
  /** Text it types or keys it presses. */
  text?: string;
  /** Every other argument, as ordering-stable JSON. */
  rest: string;
}

const TEXT_ARGS: Partial<Record<string, string>> = { write: "content", press: "keys" };
/** Longer strings are replaced by their hash so a signature stays short. */
const MAX_INLINE_TEXT = 200;

/** Splits an action into its signature parts. */
export function actionKey(action: Pick<ProposedAction, "tool" | "args">): ActionKey {
  const args: Record<string, unknown> = { ...action.args };
  const key: ActionKey = { tool: action.tool, rest: "" };
  if (typeof args.x === "number" && typeof args.y === "number") {
    key.point = [args.x, args.y];
    delete args.x;
    delete args.y;
    delete args.element; // the coordinates are the target; the description is wording
  } else if (typeof args.element === "string") {
    key.element = normaliseDescription(args.element);
    delete args.element;
  }
  const textArg = TEXT_ARGS[action.tool];
  if (textArg && textArg in args) {
    const value = args[textArg];
    key.text = Array.isArray(value) ? value.map((k) => String(k).toLowerCase()).join("+") : shorten(String(value));
    delete args[textArg];
  }
  key.rest = stableJson(args);
  return key;
}

/**
 * The action's signature: tool, target (coordinates rounded to the nearest multiple of the
 * quantum, else the normalised element description), text, and the other arguments as
 * ordering-stable JSON. Equal signatures mean "the same attempt".
 */
export function actionSignature(action: Pick<ProposedAction, "tool" | "args">, options: SignatureOptions = {}): string {
  const quantum = checkedQuantum(options.quantum);
  const key = actionKey(action);
  const target = key.point
    ? `@${quantise(key.point[0], quantum)},${quantise(key.point[1], quantum)}`
    : key.element !== undefined
      ? `"${key.element}"`
      : "";
  return [key.tool, target, key.text === undefined ? "" : JSON.stringify(key.text), key.rest].join("|");
}

/**
 * Tolerant sameness: everything but the point equal, and the points within `quantum` of each
 * other on both axes. Unlike signature equality, this has no bin edges: clicks at 509 and 511
 * match even though they round to different multiples of 20.
 */
export function sameAttempt(
  a: Pick<ProposedAction, "tool" | "args">,
  b: Pick<ProposedAction, "tool" | "args">,
  options: SignatureOptions = {},
): boolean {
  const quantum = checkedQuantum(options.quantum);
  const ka = actionKey(a);
  const kb = actionKey(b);
  if (ka.tool !== kb.tool || ka.element !== kb.element || ka.text !== kb.text || ka.rest !== kb.rest) return false;
  if (!ka.point || !kb.point) return !ka.point && !kb.point;
  return Math.abs(ka.point[0] - kb.point[0]) <= quantum && Math.abs(ka.point[1] - kb.point[1]) <= quantum;
}

/** Lower case, collapsed white space, no surrounding quotes or trailing punctuation. */
export function normaliseDescription(text: string): string {
  return text
    .toLowerCase()
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^["'“‘`]+|["'”’`.!,;:]+$/g, "")
    .trim();
}

/** JSON with object keys sorted at every level, so argument order never changes a signature. */
export function stableJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (typeof value === "string") return shorten(value);
  if (value && typeof value === "object") {
    const sorted: Record<string, unknown> = {};
    for (const k of Object.keys(value).sort()) sorted[k] = sortKeys((value as Record<string, unknown>)[k]);
    return sorted;
  }
  return value;
}

function shorten(text: string): string {
  if (text.length <= MAX_INLINE_TEXT) return text;
  return `sha256:${createHash("sha256").update(text).digest("hex").slice(0, 16)}:${text.length}`;
}

function quantise(value: number, quantum: number): number {
  return quantum === 0 ? value : Math.round(value / quantum) * quantum;
}

function checkedQuantum(quantum = 20): number {
  if (!(quantum >= 0 && quantum <= 1000)) {
    throw new Error(`action signature quantum must be between 0 and 1000 ([0, 1000] coordinate units), got ${quantum}`);
  }
  return quantum;
}
