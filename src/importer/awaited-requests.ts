/**
 * The network calls a test awaited (`page.waitForResponse(url)`, `page.waitForRequest(url)`, also
 * inside `Promise.all([...])`) as checks. Playwright's Reporter API shows such a wait as a pw:api step
 * ('Wait for event "response"') without its argument; the URL pattern is read from the test's source at
 * the step's location, as the importer reads a RegExp a matcher was given. What the app did with the
 * call is the team's knowledge, not the test's: the config's `import.requests` maps a pattern (or, for
 * a predicate function, the wait's file:line) to an `effects` rule or an `http` read-back. A call no
 * mapping names is handed back with the exact mapping line to add.
 */
import { stringify } from "yaml";
import { firstArgumentAt, type RegexLiteral } from "./locator.js";
import type { RecordedStep } from "./recording.js";

export const WAIT_METHODS = new Set(["waitForResponse", "waitForRequest"]);

/** What `import.requests` maps a key to (src/config/import-section.ts validates it). */
export type RequestMapping =
  | { effects: { type: string; where?: Record<string, string> } }
  | { http: { method?: string; url: string; contains?: unknown[]; json?: unknown[]; [field: string]: unknown } };

export interface AwaitedCall {
  event: "request" | "response";
  /** The mapping key: the pattern as the test wrote it ("**\/api/items", "/\\/api\\/items$/"), else file:line. */
  key: string;
  /** Where the test awaited it. */
  line: number;
  /** Awaited with a predicate function: the key is the wait's file:line. */
  predicate: boolean;
  /** The call in words: 'the response "**\/api/items"', "a request matching the predicate at e2e/a.spec.ts:4". */
  what: string;
}

export type AwaitedCheck =
  | { kind: "effects"; name: string; require: { type: string; where?: Record<string, string>; min?: number }[] }
  | ({ kind: "http"; name: string } & Record<string, unknown>);

export interface AwaitedUnmapped {
  /** "the response \"**\/api/items\" (line 7)" */
  what: string;
  /** Lines to add under `import.requests` in the config file, one per way to map it, first the likelier. */
  lines: string[];
}

/** The pattern as the test wrote it: a string as is, a RegExp as its literal; null for a predicate. */
const patternKey = (arg: unknown): { key: string; shown: string } | null => {
  if (typeof arg === "string") return { key: arg, shown: `"${arg}"` };
  if (arg && typeof arg === "object" && "regex" in arg) {
    const { regex, flags } = arg as RegexLiteral;
    return { key: `/${regex}/${flags ?? ""}`, shown: `/${regex}/${flags ?? ""}` };
  }
  return null;
};

type SourceLine = (file: string, line: number) => string | null;

/** The awaited call of a pw:api step whose method is a wait for a request or response; null for any other step. */
export function awaitedCallOf(
  step: RecordedStep,
  method: string,
  sourceLine: SourceLine,
  shownFile: string,
): AwaitedCall | null {
  if (!WAIT_METHODS.has(method) || !step.line) return null;
  const text = step.file && step.column ? (sourceLine(step.file, step.line)?.slice(step.column - 1) ?? "") : "";
  const pattern = patternKey(firstArgumentAt(text));
  const event = method === "waitForRequest" ? "request" : "response";
  const line = step.line;
  if (pattern) return { event, key: pattern.key, line, predicate: false, what: `the ${event} ${pattern.shown}` };
  const key = `${shownFile}:${line}`;
  return { event, key, line, predicate: true, what: `a ${event} matching the predicate at ${key}` };
}

/** Only the fields the user gave a value: the defaults the config schema filled in stay out of the task file. */
function declaredFields(http: Record<string, unknown>): Record<string, unknown> {
  const isDefault = (k: string, v: unknown) =>
    (Array.isArray(v) && v.length === 0) ||
    (k === "headers" && Object.keys(v ?? {}).length === 0) ||
    (k === "timeoutSeconds" && v === 15);
  return Object.fromEntries(Object.entries(http).filter(([k, v]) => !isDefault(k, v)));
}

export interface AwaitedResult {
  checks: AwaitedCheck[];
  unmapped: AwaitedUnmapped[];
  todo: string[];
}

/**
 * The checks of a test's awaited calls (one per mapping key; an effect awaited twice must happen twice)
 * and the calls no mapping names. `typed`: the values the test wrote, which an http read-back with no
 * `contains` or `json` of its own must show.
 */
export function awaitedChecks(
  calls: readonly AwaitedCall[],
  mappings: Readonly<Record<string, RequestMapping>>,
  typed: readonly string[],
  effectsSource: boolean,
): AwaitedResult {
  const result: AwaitedResult = { checks: [], unmapped: [], todo: [] };
  const byKey = new Map<string, AwaitedCall[]>();
  for (const call of calls) byKey.set(call.key, [...(byKey.get(call.key) ?? []), call]);
  for (const [key, same] of byKey) {
    const mapping = mappings[key];
    // A predicate's key already says where it was awaited.
    const lines = same.map((c) => c.line).join(", ");
    const at = (words: string) => (same[0]!.predicate && same.length === 1 ? "" : ` (${words} ${lines})`);
    if (!mapping) {
      result.unmapped.push({ what: `${same[0]!.what}${at("line")}`, lines: mappingLines(key, effectsSource) });
      continue;
    }
    const name = `the app received ${same[0]!.what}${at("awaited at line")}`;
    result.checks.push(checkOf(mapping, name, same.length, typed, result.todo));
  }
  return result;
}

/** One mapping as its check; `times`: how often the test awaited the call. */
function checkOf(
  mapping: RequestMapping,
  name: string,
  times: number,
  typed: readonly string[],
  todo: string[],
): AwaitedCheck {
  if ("effects" in mapping) {
    return { kind: "effects", name, require: [{ ...mapping.effects, ...(times > 1 ? { min: times } : {}) }] };
  }
  const own = (mapping.http.contains?.length ?? 0) + (mapping.http.json?.length ?? 0) > 0;
  if (!own && typed.length === 0) {
    todo.push(`'${name}' checks only the status: give it contains or json in import.requests`);
  }
  const contains = own || typed.length === 0 ? {} : { contains: [...typed] };
  return { kind: "http", name, ...declaredFields(mapping.http), ...contains };
}

/** The lines a person adds under `import.requests` to map `key`: as YAML, quoted as YAML needs. */
export function mappingLines(key: string, effectsSource: boolean): string[] {
  const flow = (value: unknown) =>
    stringify(value, { collectionStyle: "flow", lineWidth: 0 })
      .trim()
      .replace(/^\{ | \}$/g, "");
  const effects = flow({ [key]: { effects: { type: "EFFECT_TYPE" } } });
  const http = flow({ [key]: { http: { method: "GET", url: "/api/PATH" } } });
  const lines = [
    `${effects}   # an effect your target's effects source logs`,
    `${http}   # a read-back of what the call stored`,
  ];
  return effectsSource ? lines : lines.reverse();
}
