/**
 * Expectations on JSON values, shared by the http, storage and command checks: pick a value by
 * JSON Pointer ("/items/0/title") or dotted path ("items.0.title"), then test it (equals,
 * contains, regex, number with tolerance, length). Failures are phrases a person can act on.
 */
import { isDeepStrictEqual } from "node:util";
import type { JsonExpectation } from "../task/schema.js";
import { messageOf } from "../errors.js";

/** The path's segments: "" and "/" mean the whole value. */
export function pathSegments(path: string): string[] {
  if (path === "" || path === "/") return [];
  if (path.startsWith("/"))
    return path
      .slice(1)
      .split("/")
      .map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
  return path.split(".").filter((s) => s !== "");
}

export function pick(value: unknown, path: string): { found: boolean; value: unknown } {
  let current: unknown = value;
  for (const segment of pathSegments(path)) {
    if (Array.isArray(current) && /^\d+$/.test(segment) && Number(segment) < current.length)
      current = current[Number(segment)];
    else if (
      current !== null &&
      typeof current === "object" &&
      !Array.isArray(current) &&
      Object.hasOwn(current, segment)
    )
      current = (current as Record<string, unknown>)[segment];
    else return { found: false, value: undefined };
  }
  return { found: true, value: current };
}

const asText = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));
/** A value as a reason shows it: a string in single quotes ('Flow 1'), anything else as JSON. */
const shownValue = (v: unknown) =>
  typeof v === "string" ? `'${clipText(v)}'` : clipText(JSON.stringify(v) ?? "undefined");

/**
 * The path as a reason names it: a JSON Pointer in backticks (`/items/0/title`), whichever way
 * the task wrote it, so the reason reads as a place in the value, not as words ("the command label").
 */
export function shownPath(path: string): string {
  const segments = pathSegments(path);
  if (segments.length === 0) return "the value";
  return `\`/${segments.map((s) => s.replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}\``;
}

/** Judges every expectation against `value`; returns failures and what was seen at each path. */
export function judgeJson(
  value: unknown,
  expectations: readonly JsonExpectation[],
): { failures: string[]; seen: Record<string, unknown> } {
  const failures: string[] = [];
  const seen: Record<string, unknown> = {};
  for (const e of expectations) {
    const where = shownPath(e.path);
    const got = pick(value, e.path);
    seen[e.path || "/"] = got.found ? clipValue(got.value) : "(missing)";
    if (e.exists === false) {
      if (got.found) failures.push(`${where} exists but must not`);
      continue;
    }
    if (!got.found) {
      failures.push(`${where} is missing`);
      continue;
    }
    const v = got.value;
    if (e.equals !== undefined && !isDeepStrictEqual(v, e.equals))
      failures.push(`${where} is ${shownValue(v)}, expected ${shownValue(e.equals)}`);
    if (e.contains !== undefined && !asText(v).includes(e.contains))
      failures.push(`${where} (${clipText(asText(v))}) does not contain ${JSON.stringify(e.contains)}`);
    if (e.regex !== undefined && !new RegExp(e.regex).test(asText(v)))
      failures.push(`${where} (${clipText(asText(v))}) does not match /${e.regex}/`);
    if (e.number) {
      const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
      if (!Number.isFinite(n) || Math.abs(n - e.number.value) > e.number.tolerance)
        failures.push(
          `${where} is ${shownValue(v)}, expected ${e.number.value}${e.number.tolerance ? ` ±${e.number.tolerance}` : ""}`,
        );
    }
    if (e.length !== undefined) {
      const len = Array.isArray(v) || typeof v === "string" ? v.length : undefined;
      if (len !== e.length)
        failures.push(
          `${where} has ${len === undefined ? "no" : len} item${len === 1 ? "" : "s"}, expected ${e.length}`,
        );
    }
  }
  return { failures, seen };
}

function clipText(text: string, max = 120): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function clipValue(v: unknown): unknown {
  const text = JSON.stringify(v) ?? "undefined";
  return text.length > 500 ? `${text.slice(0, 500)}…` : v;
}

/** Parses JSON, or says why not. */
export function parseJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, error: messageOf(e) };
  }
}
