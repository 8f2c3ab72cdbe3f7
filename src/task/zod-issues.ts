/**
 * zod's issues rewritten into plain words ("expected a number, got text"), each with the data
 * path it concerns and, for unknown keys and unknown options, a "did you mean" fix.
 */
import type { z } from "zod";
import type { DataPath } from "./problem.js";
import { didYouMean } from "./suggest.js";

/** One issue in plain words; `atKey` means the problem is the key itself (an unknown key). */
export interface PlainIssue {
  path: DataPath;
  message: string;
  fix?: string;
  atKey?: boolean;
}

type Issue = z.core.$ZodIssue;
type AnySchema = z.core.$ZodType;

const EXPECTED_WORDS: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  object: "a mapping (key: value lines)",
  record: "a mapping (key: value lines)",
  array: "a list",
  null: "nothing",
};

/** How a value reads in a message: `text "abc"`, `the number 3`, `a list`. */
export function describeValue(value: unknown): string {
  if (value === undefined) return "nothing";
  if (value === null) return "an empty value";
  if (typeof value === "string") return `text ${quote(value)}`;
  if (typeof value === "number") return `the number ${value}`;
  if (typeof value === "boolean") return `${value}`;
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  return typeof value;
}

function quote(text: string): string {
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 37)}...` : text);
}

function plural(n: number | bigint, word: string): string {
  return `${n} ${word}${Number(n) === 1 ? "" : "s"}`;
}

/**
 * Translates zod issues for `data` validated against `schema`. `schema` and `data` are needed
 * to name the allowed keys at an unknown key's level; `prefix` is where `data` sits in the file.
 */
export function plainIssues(
  issues: readonly Issue[],
  schema: AnySchema,
  data: unknown,
  prefix: DataPath = [],
): PlainIssue[] {
  // Paths stay relative to `data` while translating (the schema walk needs that); the prefix comes last.
  return issues
    .flatMap((issue) => translate(issue, schema, data, issue.path as (string | number)[]))
    .map((plain) => ({ ...plain, path: [...prefix, ...plain.path] }));
}

function translate(issue: Issue, schema: AnySchema, data: unknown, path: DataPath): PlainIssue[] {
  const input = (issue as { input?: unknown }).input;
  switch (issue.code) {
    case "invalid_type": {
      const expected = EXPECTED_WORDS[issue.expected] ?? issue.expected;
      if (input === undefined)
        return [{ path, message: `required: expected ${expected}`, fix: `add ${String(path.at(-1) ?? "it")}` }];
      return [{ path, message: `expected ${expected}, got ${describeValue(input)}` }];
    }
    case "too_small": {
      const min = issue.minimum;
      if (issue.origin === "string")
        return [
          {
            path,
            message: Number(min) === 1 ? "must not be empty" : `must be at least ${plural(min, "character")} long`,
          },
        ];
      if (issue.origin === "array" || issue.origin === "set")
        return [{ path, message: `must have at least ${plural(min, "item")}` }];
      return [
        { path, message: `must be ${issue.inclusive ? "at least" : "more than"} ${min}, got ${describeValue(input)}` },
      ];
    }
    case "too_big": {
      const max = issue.maximum;
      if (issue.origin === "string") return [{ path, message: `must be at most ${plural(max, "character")} long` }];
      if (issue.origin === "array" || issue.origin === "set")
        return [{ path, message: `must have at most ${plural(max, "item")}` }];
      return [
        { path, message: `must be ${issue.inclusive ? "at most" : "less than"} ${max}, got ${describeValue(input)}` },
      ];
    }
    case "invalid_format": {
      const got = typeof input === "string" ? ` (got ${quote(input)})` : "";
      if (issue.format === "starts_with")
        return [{ path, message: `must start with ${quote(String((issue as { prefix?: string }).prefix))}${got}` }];
      // A schema-written message ("lower-case letters, digits and '-'") says what the text must be.
      const custom = !/^Invalid/.test(issue.message);
      const pattern = (issue as { pattern?: string }).pattern;
      return [{ path, message: custom ? `must be ${issue.message}${got}` : `must match the pattern ${pattern}${got}` }];
    }
    case "invalid_value": {
      const options = issue.values.map((v) => String(v));
      const hint = typeof input === "string" ? didYouMean(input, options) : undefined;
      const message =
        options.length === 1
          ? `must be ${quote(options[0])}, got ${describeValue(input)}`
          : input === undefined
            ? `required: expected one of ${options.join(", ")}`
            : `expected one of ${options.join(", ")}, got ${describeValue(input)}`;
      return [{ path, message, fix: hint }];
    }
    case "unrecognized_keys": {
      const allowed = allowedKeysAt(schema, data, path);
      return issue.keys.map((key) => ({
        path: [...path, key],
        atKey: true,
        message: `unknown key ${quote(key)}`,
        fix:
          (allowed && didYouMean(key, allowed)) ??
          (allowed ? `remove it; allowed keys here: ${allowed.join(", ")}` : "remove it"),
      }));
    }
    case "invalid_key": {
      const inner = issue.issues
        .map((i) =>
          translate(i as Issue, schema, data, [])
            .map((p) => p.message)
            .join("; "),
        )
        .join("; ");
      return [{ path, atKey: true, message: `${quote(String(path.at(-1)))} is not an allowed name here: ${inner}` }];
    }
    case "invalid_union":
      return translateUnion(issue, schema, data, path, input);
    case "invalid_element":
      return issue.issues.flatMap((i) =>
        translate(i as Issue, schema, data, [...path, ...(i.path as (string | number)[])]),
      );
    default:
      return [{ path, message: issue.message }];
  }
}

function translateUnion(
  issue: Extract<Issue, { code: "invalid_union" }>,
  schema: AnySchema,
  data: unknown,
  path: DataPath,
  input: unknown,
): PlainIssue[] {
  const discriminated = issue as { discriminator?: string; options?: unknown[] };
  if (discriminated.discriminator) {
    // A member whose discriminator has a default lists `undefined` among the options: not a word to offer.
    const options = (discriminated.options ?? []).filter((o) => o !== undefined).map(String);
    const given = (input as Record<string, unknown> | undefined)?.[discriminated.discriminator];
    const hint = typeof given === "string" ? didYouMean(given, options) : undefined;
    const what =
      given === undefined
        ? "required"
        : `unknown ${discriminated.discriminator} ${typeof given === "string" ? quote(given) : describeValue(given)}`;
    return [{ path, message: `${what}: expected one of ${options.join(", ")}`, fix: hint }];
  }
  // A plain union (a text matcher, a mask): if one branch accepted the value's shape, its
  // complaints are the useful ones; otherwise name the shapes the union accepts.
  const branches = issue.errors as Issue[][];
  const shapeMatched = branches.find(
    (branch) => branch.length > 0 && branch.every((i) => i.path.length > 0 || i.code !== "invalid_type"),
  );
  if (shapeMatched) {
    return shapeMatched.flatMap((i) => translate(i, schema, data, [...path, ...(i.path as (string | number)[])]));
  }
  const expected = branches
    .map((branch) => branch.find((i) => i.code === "invalid_type" && i.path.length === 0))
    .map((i) => (i && i.code === "invalid_type" ? (EXPECTED_WORDS[i.expected] ?? i.expected) : undefined))
    .filter((word): word is string => Boolean(word));
  const unique = [...new Set(expected)];
  return [
    { path, message: `expected ${unique.length ? unique.join(" or ") : "another shape"}, got ${describeValue(input)}` },
  ];
}

interface Def {
  type: string;
  shape?: Record<string, AnySchema>;
  element?: AnySchema;
  valueType?: AnySchema;
  innerType?: AnySchema;
  in?: AnySchema;
  options?: AnySchema[];
  discriminator?: string;
  values?: unknown[];
}

const defOf = (schema: AnySchema): Def => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** Strips defaults, optionals and the like down to the schema that shapes the value. */
function unwrap(schema: AnySchema): AnySchema {
  let current = schema;
  for (let guard = 0; guard < 20; guard++) {
    const def = defOf(current);
    if (def.innerType) current = def.innerType;
    else if (def.type === "pipe" && def.in) current = def.in;
    else break;
  }
  return current;
}

/** For a union at this level, the branch that applies to `value` (by discriminator, else the object one). */
function pickBranch(schema: AnySchema, value: unknown): AnySchema {
  const def = defOf(schema);
  if (def.type !== "union" || !def.options) return schema;
  if (def.discriminator) {
    const wanted = (value as Record<string, unknown> | undefined)?.[def.discriminator];
    const match = def.options.find((option) => {
      const field = defOf(unwrap(option)).shape?.[def.discriminator!];
      return field !== undefined && (defOf(field).values ?? []).includes(wanted);
    });
    if (match) return unwrap(match);
  }
  const objects = def.options.map(unwrap).filter((o) => defOf(o).type === "object");
  if (objects.length === 0) return schema;
  // Of several object shapes, prefer the one whose keys overlap the value's keys most.
  const keys = value && typeof value === "object" ? Object.keys(value) : [];
  const score = (o: AnySchema) => keys.filter((k) => k in (defOf(o).shape ?? {})).length;
  return objects.reduce((best, o) => (score(o) > score(best) ? o : best));
}

/** The keys a mapping at `path` may have, or undefined when `path` is not a fixed-key mapping. */
export function allowedKeysAt(schema: AnySchema, data: unknown, path: DataPath): string[] | undefined {
  let current = unwrap(schema);
  let value = data;
  for (const segment of path) {
    current = pickBranch(current, value);
    const def = defOf(current);
    let next: AnySchema | undefined;
    if (def.type === "object") next = def.shape?.[String(segment)];
    else if (def.type === "array") next = def.element;
    else if (def.type === "record") next = def.valueType;
    if (!next) return undefined;
    current = unwrap(next);
    value = value && typeof value === "object" ? (value as Record<string, unknown>)[String(segment)] : undefined;
  }
  current = pickBranch(current, value);
  const def = defOf(current);
  return def.type === "object" && def.shape ? Object.keys(def.shape) : undefined;
}
