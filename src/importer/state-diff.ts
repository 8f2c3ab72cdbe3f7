/**
 * Checks from the state the gold changed: the app's state after the gold (read twice, once per
 * gold mode) against the state nobody touched (the answer-now probe). A test's `expect`s say what
 * the page shows; a wrong agent that shows the same (the other todo completed, both completed, a
 * near-miss title) leaves different state behind, and these checks read it.
 *
 * Every value both gold runs left the same is expected (a JSON value leaf by leaf, with array
 * lengths); a value the two gold runs left different (an id, a timestamp) is not state the task
 * decides, so it is left out.
 */
import type { StateSnapshot } from "./state-snapshot-check.js";

export interface JsonLeaf {
  path: string;
  equals?: unknown;
  length?: number;
  exists?: boolean;
}

export interface DraftStorageCheck {
  kind: "storage";
  name: string;
  area: "localStorage" | "sessionStorage";
  key: string;
  exists?: false;
  contains?: string[];
  json?: JsonLeaf[];
}

export interface DraftHttpStateCheck {
  kind: "http";
  name: string;
  method: "GET";
  url: string;
  json: JsonLeaf[];
}

export type StateCheck = DraftStorageCheck | DraftHttpStateCheck;

/** More leaves than this in one value: the value is too big to spell out, and is left to a person. */
const MAX_LEAVES = 40;
const MAX_TEXT = 300;
const NONE = Symbol("unstable");

const pointer = (segments: readonly (string | number)[]) =>
  segments.length === 0 ? "" : `/${segments.map((s) => String(s).replace(/~/g, "~0").replace(/\//g, "~1")).join("/")}`;

/** The part of the values every gold run agrees on: equal scalars, same-length arrays, shared keys. */
function stable(values: readonly unknown[]): unknown {
  const [first, ...rest] = values;
  if (Array.isArray(first)) {
    if (!rest.every((v) => Array.isArray(v) && v.length === first.length)) return NONE;
    return first.map((_, i) => stable(values.map((v) => (v as unknown[])[i])));
  }
  if (first !== null && typeof first === "object") {
    if (!rest.every((v) => v !== null && typeof v === "object" && !Array.isArray(v))) return NONE;
    const keys = Object.keys(first).filter((k) => rest.every((v) => Object.hasOwn(v as object, k)));
    return Object.fromEntries(keys.map((k) => [k, stable(values.map((v) => (v as Record<string, unknown>)[k]))]));
  }
  return rest.every((v) => v === first) ? first : NONE;
}

/** The expectations a stable value makes: array lengths and scalar leaves, JSON Pointer paths. */
function leavesOf(value: unknown, at: (string | number)[] = []): JsonLeaf[] {
  if (value === NONE) return [];
  if (Array.isArray(value))
    return [{ path: pointer(at), length: value.length }, ...value.flatMap((v, i) => leavesOf(v, [...at, i]))];
  if (value !== null && typeof value === "object")
    return Object.entries(value).flatMap(([k, v]) => leavesOf(v, [...at, k]));
  return [{ path: pointer(at), equals: value }];
}

function parsed(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function storageChecks(
  area: "localStorage" | "sessionStorage",
  before: Record<string, string>,
  after: readonly Record<string, string>[],
): DraftStorageCheck[] {
  const keys = [...new Set([...Object.keys(before), ...after.flatMap((a) => Object.keys(a))])].sort();
  const out: DraftStorageCheck[] = [];
  for (const key of keys) {
    const values = after.map((a) => a[key]);
    if (values.every((v) => v === before[key])) continue;
    const name = `state: ${area} ${JSON.stringify(key)} as the gold left it`;
    if (values.every((v) => v === undefined)) {
      out.push({
        kind: "storage",
        name: `state: ${area} ${JSON.stringify(key)} removed, as the gold did`,
        area,
        key,
        exists: false,
      });
      continue;
    }
    if (values.some((v) => v === undefined)) continue;
    const json = values.map((v) => parsed(v!));
    if (json.every((j) => j.ok)) {
      const leaves = leavesOf(stable(json.map((j) => (j as { value: unknown }).value)));
      if (leaves.length > 0 && leaves.length <= MAX_LEAVES)
        out.push({ kind: "storage", name, area, key, json: leaves });
    } else if (values.every((v) => v === values[0]) && values[0]!.length <= MAX_TEXT) {
      out.push({ kind: "storage", name, area, key, contains: [values[0]!] });
    }
  }
  return out;
}

function httpChecks(before: Record<string, unknown>, after: readonly Record<string, unknown>[]): DraftHttpStateCheck[] {
  const out: DraftHttpStateCheck[] = [];
  for (const url of Object.keys(after[0] ?? {}).sort()) {
    const values = after.map((a) => a[url]);
    if (values.some((v) => v === undefined) || values.every((v) => same(v, before[url]))) continue;
    const leaves = leavesOf(stable(values));
    if (leaves.length > 0 && leaves.length <= MAX_LEAVES)
      out.push({ kind: "http", name: `state: GET ${url} as the gold left it`, method: "GET", url, json: leaves });
  }
  return out;
}

/** Checks on what the gold changed, from the untouched state and the gold runs' states (one or more). */
export function stateChecks(before: StateSnapshot, after: readonly StateSnapshot[]): StateCheck[] {
  if (after.length === 0) return [];
  return [
    ...storageChecks(
      "localStorage",
      before.localStorage,
      after.map((a) => a.localStorage),
    ),
    ...storageChecks(
      "sessionStorage",
      before.sessionStorage,
      after.map((a) => a.sessionStorage),
    ),
    ...httpChecks(
      before.http,
      after.map((a) => a.http),
    ),
  ];
}
