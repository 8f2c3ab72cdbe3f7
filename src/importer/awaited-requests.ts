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

/** The awaited call of one pw:api step whose method is a wait for a request or response; null for any other step. */
export function awaitedCallOf(step: RecordedStep, method: string, sourceLine: (file: string, line: number) => string | null, shownFile: string): AwaitedCall | null {
  if (!WAIT_METHODS.has(method) || !step.line) return null;
  const text = step.file && step.column ? (sourceLine(step.file, step.line)?.slice(step.column - 1) ?? "") : "";
  const pattern = patternKey(firstArgumentAt(text));
  const event = method === "waitForRequest" ? "request" : "response";
  if (pattern) return { event, key: pattern.key, line: step.line, what: `the ${event} ${pattern.shown}` };
  const key = `${shownFile}:${step.line}`;
  return { event, key, line: step.line, what: `a ${event} matching the predicate at ${key}` };
}

/** Only the fields the user gave a value: the defaults the config schema filled in stay out of the task file. */
function declaredFields(http: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(http).filter(([k, v]) => !(Array.isArray(v) && v.length === 0) && !(k === "headers" && v && Object.keys(v).length === 0) && !(k === "timeoutSeconds" && v === 15)),
  );
}

/**
 * The checks of a test's awaited calls (one per mapping key; an effect awaited twice must happen twice)
 * and the calls no mapping names. `typed`: the values the test wrote, which an http read-back with no
 * `contains` or `json` of its own must show.
 */
export function awaitedChecks(calls: readonly AwaitedCall[], mappings: Readonly<Record<string, RequestMapping>>, typed: readonly string[], effectsSource: boolean): { checks: AwaitedCheck[]; unmapped: AwaitedUnmapped[]; todo: string[] } {
  const checks: AwaitedCheck[] = [];
  const unmapped: AwaitedUnmapped[] = [];
  const todo: string[] = [];
  const byKey = new Map<string, AwaitedCall[]>();
  for (const call of calls) byKey.set(call.key, [...(byKey.get(call.key) ?? []), call]);
  for (const [key, same] of byKey) {
    const mapping = mappings[key];
    // A predicate's key already says where it was awaited.
    const where = same[0]!.key.endsWith(`:${same[0]!.line}`) && same.length === 1 ? "" : ` (line ${same.map((c) => c.line).join(", ")})`;
    if (!mapping) {
      unmapped.push({ what: `${same[0]!.what}${where}`, lines: mappingLines(key, effectsSource) });
      continue;
    }
    const name = `the app received ${same[0]!.what}${where.replace("(line", "(awaited at line")}`;
    if ("effects" in mapping) {
      checks.push({ kind: "effects", name, require: [{ ...mapping.effects, ...(same.length > 1 ? { min: same.length } : {}) }] });
      continue;
    }
    const http = declaredFields(mapping.http);
    const own = (mapping.http.contains?.length ?? 0) + (mapping.http.json?.length ?? 0) > 0;
    if (!own && typed.length === 0) todo.push(`the http check of ${same[0]!.what} checks only the status: give it contains or json in import.requests`);
    checks.push({ kind: "http", name, ...http, ...(own || typed.length === 0 ? {} : { contains: [...typed] }) });
  }
  return { checks, unmapped, todo };
}

/** The lines a person adds under `import.requests` to map `key`: as YAML, quoted as YAML needs. */
export function mappingLines(key: string, effectsSource: boolean): string[] {
  const flow = (value: unknown) => stringify(value, { collectionStyle: "flow", lineWidth: 0 }).trim().replace(/^\{ | \}$/g, "");
  const effects = `${flow({ [key]: { effects: { type: "EFFECT_TYPE" } } })}   # an effect your target's effects source logs`;
  const http = `${flow({ [key]: { http: { method: "GET", url: "/api/PATH" } } })}   # a read-back of what the call stored`;
  return effectsSource ? [effects, http] : [http, effects];
}
