/**
 * One recorded Playwright test -> one draft umpire task: the gold `reference` in umpire's tools from
 * the test's actions, page checks from its final `expect`s, the marks its locators name, and an
 * instruction drafted from the title and steps. What umpire cannot replay or check is kept as a
 * comment (`todo`), and the task stays a draft until a person has read it.
 */
import {
  awaitedCallOf,
  awaitedChecks,
  type AwaitedCheck,
  type AwaitedUnmapped,
  type RequestMapping,
} from "./awaited-requests.js";
import type { RecordedStep, RecordedTest } from "./recording.js";
import { aimOf, checkSelectorOf, firstArgumentAt, slug, type MarkDeclaration } from "./locator.js";

export interface GoldStep {
  tool: string;
  target?: string;
  args?: Record<string, unknown>;
}

export type DraftCheck = DraftPageCheck | AwaitedCheck;

export interface DraftPageCheck {
  kind: "page";
  name: string;
  url?: string | { regex: string; flags?: string };
  selector?: string;
  text?: string | { regex: string; flags?: string };
  state?: "visible" | "hidden" | "absent";
}

export interface DraftTask {
  id: string;
  title: string;
  /** Where the test came from: file:line. */
  source: string;
  instruction: string;
  givens: string[];
  startPath: string;
  tools: string[];
  /** Every mark the gold aims at; null: a test id the target marks already. */
  marks: Map<string, MarkDeclaration | null>;
  reference: GoldStep[];
  checks: DraftCheck[];
  /** Lines for the task's header comment: what was not replayed or checked, and how marks were mapped. */
  todo: string[];
  /** Network calls the test awaited that no `import.requests` mapping names, with the lines to add. */
  unmapped: AwaitedUnmapped[];
  /** The HTTP call a `beforeEach` hook made before the test (`request.post("/__reset")`): the target's reset. */
  reset: ApiCall | null;
  /** Paths the test read with GET through the `request` fixture: where the app's state can be read back. */
  stateUrls: string[];
}

/** A call through Playwright's `request` fixture (APIRequestContext). */
export interface ApiCall {
  method: string;
  url: string;
}

export interface TranslateContext {
  baseURL: string;
  playwrightTestId: string;
  targetTestId: string;
  /** The source line at a step's location (its method name is read from there), or null. */
  sourceLine(file: string, line: number): string | null;
  /** A test file as the draft names it (relative to the working folder): the key of a predicate's wait. */
  shownFile(file: string): string;
  /** The config's `import.requests`: awaited network calls as checks. */
  requests: Readonly<Record<string, RequestMapping>>;
  /** Whether the target has an effects source (which way of mapping an awaited call to suggest first). */
  effectsSource: boolean;
}

/** An action's Playwright method: read from the source at the step's location, else from its title. */
export function methodOf(step: RecordedStep, ctx: TranslateContext): string {
  if (step.file && step.line && step.column) {
    const text = ctx.sourceLine(step.file, step.line)?.slice(step.column - 1) ?? "";
    const m = /^([A-Za-z]+)\s*\(/.exec(text);
    if (m) return m[1]!;
  }
  const byTitle: [RegExp, string][] = [
    [/^Navigate/, "goto"],
    [/^Double click/, "dblclick"],
    [/^Click/, "click"],
    [/^Fill/, "fill"],
    [/^Press sequentially|^Type/, "pressSequentially"],
    [/^Press/, "press"],
    [/^Uncheck/, "uncheck"],
    [/^Check/, "check"],
    [/^Select option/, "selectOption"],
    [/^Go back/, "goBack"],
  ];
  return byTitle.find(([re]) => re.test(step.title))?.[1] ?? step.title;
}

/** pw:api and expect steps in order, from inside test.step blocks too. */
function flatSteps(steps: readonly RecordedStep[]): RecordedStep[] {
  return steps.flatMap((s) => (s.category === "pw:api" || s.category === "expect" ? [s] : flatSteps(s.steps)));
}

/** Calls that read or wait and change nothing a task replays. */
const PASSIVE =
  /^(textContent|innerText|innerHTML|inputValue|getAttribute|isVisible|isHidden|isChecked|isEnabled|count|all|waitFor\w*|evaluate\w*|screenshot|boundingBox|title|url|content|allTextContents|allInnerTexts|newPage|close|setViewportSize|route\w*|on|once)$/;

const SUPPORTED = new Set([
  "goto",
  "click",
  "dblclick",
  "fill",
  "press",
  "pressSequentially",
  "type",
  "check",
  "uncheck",
  "setChecked",
  "selectOption",
  "goBack",
]);

interface Builder {
  reference: GoldStep[];
  marks: Map<string, MarkDeclaration | null>;
  todo: string[];
  words: string[];
  givens: Set<string>;
  focused: string | null;
  startPath: string | null;
}

function pathOf(url: string, baseURL: string): string {
  if (baseURL && url.startsWith(baseURL)) return url.slice(baseURL.replace(/\/$/, "").length) || "/";
  return url;
}

/** A locator in words, for the drafted instruction: its name, placeholder, label or test id. */
function humanOf(locator: string): string {
  const m = /^\w+\((['"])(.*?)\1(?:,\s*\{\s*name:\s*(['"])(.*?)\3)?/.exec(locator);
  if (!m) return locator;
  return m[4] ? `the ${m[4]} ${m[2]}` : `"${m[2]}"`;
}

function aim(b: Builder, step: RecordedStep, method: string, ctx: TranslateContext): string | null {
  const locator = String(step.params.locator ?? "");
  const result = aimOf(locator, {
    playwrightTestId: ctx.playwrightTestId,
    targetTestId: ctx.targetTestId,
    action: method,
  });
  if (result.kind === "unresolved") {
    b.todo.push(`line ${step.line ?? "?"}: ${result.why}`);
    return null;
  }
  const known = b.marks.get(result.name);
  if (known === undefined) b.marks.set(result.name, result.decl);
  if (result.note && !b.todo.includes(result.note)) b.todo.push(result.note);
  return result.name;
}

function clickOn(b: Builder, mark: string, tool = "click"): void {
  b.reference.push({ tool, target: mark });
  b.focused = mark;
}

function addAction(b: Builder, step: RecordedStep, method: string, ctx: TranslateContext): void {
  const locator = typeof step.params.locator === "string" ? step.params.locator : null;
  const label = `line ${step.line ?? "?"}: ${step.title}${locator ? ` ${locator}` : ""}`;
  if (method === "goto") {
    const path = pathOf(String(step.params.url ?? "/"), ctx.baseURL);
    if (b.reference.length === 0 && b.startPath === null) b.startPath = path;
    else b.reference.push({ tool: "navigate", args: { url: path } });
    b.focused = null;
    return;
  }
  if (method === "goBack") {
    b.reference.push({ tool: "go_back" });
    b.focused = null;
    return;
  }
  if (!locator && method === "press") {
    b.reference.push({ tool: "press", args: { keys: String(step.params.key).split("+") } });
    b.words.push(`press ${step.params.key}`);
    return;
  }
  const mark = locator ? aim(b, step, method, ctx) : null;
  if (!mark) {
    if (locator) b.todo.push(`not replayed: ${label}`);
    return;
  }
  const focus = () => {
    if (b.focused !== mark) clickOn(b, mark);
  };
  switch (method) {
    case "click":
    case "check":
    case "uncheck":
    case "setChecked":
      clickOn(b, mark);
      b.words.push(`${method === "click" ? "click" : method === "uncheck" ? "uncheck" : "check"} ${humanOf(locator!)}`);
      return;
    case "dblclick":
      clickOn(b, mark, "double_click");
      b.words.push(`double-click ${humanOf(locator!)}`);
      return;
    case "fill":
    case "type":
    case "pressSequentially": {
      const value = String(step.params.value ?? step.params.text ?? "");
      focus();
      b.reference.push({ tool: "write", args: { content: value } });
      if (value) b.givens.add(value);
      b.words.push(`type "${value}" into ${humanOf(locator!)}`);
      return;
    }
    case "press": {
      const key = String(step.params.key ?? "");
      const last = b.reference[b.reference.length - 1];
      if (key === "Enter" && b.focused === mark && last?.tool === "write" && !last.args?.press_enter) {
        last.args = { ...last.args, press_enter: true };
      } else {
        focus();
        b.reference.push({ tool: "press", args: { keys: key.split("+") } });
      }
      b.words.push(`press ${key}`);
      return;
    }
    case "selectOption": {
      const value = String(step.params.value ?? step.params.values ?? step.params.options ?? "");
      focus();
      b.reference.push({ tool: "write", args: { content: value } });
      b.todo.push(
        `${label}: selectOption is replayed as a click on the select and typing the option (umpire has no select tool); check it picks the option`,
      );
      b.words.push(`choose "${value}" in ${humanOf(locator!)}`);
      return;
    }
  }
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function matcherOf(step: RecordedStep): string | null {
  return /^Expect "(.+)"$/.exec(step.title)?.[1] ?? null;
}

function textExpected(value: unknown): string | { regex: string; flags?: string } | null {
  if (typeof value === "string" || typeof value === "number") return String(value);
  if (value && typeof value === "object" && "regex" in value) {
    const { regex, flags } = value as { regex: string; flags: string };
    return flags ? { regex, flags: flags.replace(/[^imsu]/g, "") } : { regex };
  }
  return null;
}

function shown(expected: unknown): string {
  if (expected === undefined) return "";
  if (expected && typeof expected === "object" && "regex" in expected) {
    const { regex, flags } = expected as { regex: string; flags?: string };
    return `/${regex}/${flags ?? ""}`;
  }
  return JSON.stringify(expected);
}

/** What the matcher expects: the step's param, or, where the param lost it (a RegExp arrives as `{}`), the source's argument. */
function expectedOf(step: RecordedStep, ctx: TranslateContext): unknown {
  const given = step.params.expected;
  const lost =
    given === undefined ||
    (typeof given === "object" && given !== null && !Array.isArray(given) && Object.keys(given).length === 0);
  if (!lost || !step.file || !step.line || !step.column) return given;
  const fromSource = firstArgumentAt(ctx.sourceLine(step.file, step.line)?.slice(step.column - 1) ?? "");
  return fromSource === undefined || (typeof fromSource === "object" && fromSource !== null && "locator" in fromSource)
    ? given
    : fromSource;
}

/** One final `expect` as page checks; null when umpire has no page check that says the same. */
export function checksOf(step: RecordedStep, ctx: TranslateContext): DraftPageCheck[] | null {
  const matcher = matcherOf(step);
  const locator = typeof step.params.locator === "string" ? step.params.locator : null;
  const expected = expectedOf(step, ctx);
  const name = `${locator ?? "page"} ${matcher} ${shown(expected)}`.trim();
  if (matcher === "toHaveURL") {
    const url = textExpected(expected);
    if (url === null) return null;
    return [
      {
        kind: "page",
        name,
        url: typeof url === "string" ? { regex: `${escapeRegex(pathOf(url, ctx.baseURL))}$` } : url,
      },
    ];
  }
  const selector = locator ? checkSelectorOf(locator, ctx.playwrightTestId) : null;
  if (!selector) return null;
  switch (matcher) {
    case "toBeVisible":
    case "toBeAttached":
      return [{ kind: "page", name, selector, state: "visible" }];
    case "toBeHidden":
      return [{ kind: "page", name, selector, state: "hidden" }];
    case "toHaveText": {
      const text = textExpected(expected);
      if (text === null) return null;
      return [
        {
          kind: "page",
          name,
          selector,
          text: typeof text === "string" ? { regex: `^\\s*${escapeRegex(text)}\\s*$` } : text,
        },
      ];
    }
    case "toContainText": {
      const text = textExpected(expected);
      return text === null ? null : [{ kind: "page", name, selector, text }];
    }
    case "toHaveCount": {
      if (typeof expected !== "number") return null;
      if (expected === 0) return [{ kind: "page", name, selector, state: "absent" }];
      return [
        {
          kind: "page",
          name: `${name}: the ${ordinal(expected)} is there`,
          selector: `${selector} >> nth=${expected - 1}`,
          state: "visible",
        },
        {
          kind: "page",
          name: `${name}: no ${ordinal(expected + 1)}`,
          selector: `${selector} >> nth=${expected}`,
          state: "absent",
        },
      ];
    }
  }
  return null;
}

function ordinal(n: number): string {
  const suffix =
    n % 10 === 1 && n % 100 !== 11
      ? "st"
      : n % 10 === 2 && n % 100 !== 12
        ? "nd"
        : n % 10 === 3 && n % 100 !== 13
          ? "rd"
          : "th";
  return `${n}${suffix}`;
}

function apiCallOf(step: RecordedStep, baseURL: string): ApiCall | null {
  const { method, url } = step.params;
  if (step.category !== "pw:api" || typeof method !== "string" || typeof url !== "string") return null;
  return { method: method.toUpperCase(), url: pathOf(url, baseURL) };
}

/** The API calls of the test: a state-changing one in a before hook resets; GETs read state back. */
function apiCallsOf(test: RecordedTest, baseURL: string): { reset: ApiCall | null; reads: string[] } {
  const hooks = test.steps.filter((s) => s.category === "hook");
  const inHooks = flatSteps(hooks).flatMap((s) => apiCallOf(s, baseURL) ?? []);
  const reset = inHooks.find((c) => c.method !== "GET" && c.method !== "HEAD") ?? null;
  const reads = flatSteps(test.steps).flatMap((s) => {
    const call = apiCallOf(s, baseURL);
    return call?.method === "GET" ? [call.url] : [];
  });
  return { reset, reads: [...new Set(reads)] };
}

/** The reset a test's before hooks made through the `request` fixture, if any. */
export function resetOf(test: RecordedTest, baseURL: string): ApiCall | null {
  return apiCallsOf(test, baseURL).reset;
}

export function translateTest(test: RecordedTest, ctx: TranslateContext, id: string): DraftTask {
  const api = apiCallsOf(test, ctx.baseURL);
  // API calls change nothing on the page a gold replays: the reset becomes the target's, GETs read state.
  const steps = flatSteps(test.steps).filter((s) => apiCallOf(s, ctx.baseURL) === null);
  const b: Builder = {
    reference: [],
    marks: new Map(),
    todo: [],
    words: [],
    givens: new Set(),
    focused: null,
    startPath: null,
  };
  const methods = steps.map((s) => (s.category === "pw:api" ? methodOf(s, ctx) : "expect"));
  const actionAt = methods.map((m) => SUPPORTED.has(m) || (m !== "expect" && !PASSIVE.test(m)));
  const lastAction = actionAt.lastIndexOf(true);
  for (const [i, step] of steps.entries()) {
    if (!actionAt[i]) continue;
    if (SUPPORTED.has(methods[i]!)) addAction(b, step, methods[i]!, ctx);
    else
      b.todo.push(`not replayed: line ${step.line ?? "?"}: ${step.title} ${String(step.params.locator ?? "")}`.trim());
  }
  const checks: DraftCheck[] = [];
  for (const step of steps.slice(lastAction + 1).filter((s) => s.category === "expect")) {
    const made = checksOf(step, ctx);
    if (made) checks.push(...made);
    else
      b.todo.push(`not a check: line ${step.line ?? "?"}: ${step.title} ${String(step.params.locator ?? "")}`.trim());
  }
  const calls = steps.flatMap((s, i) => awaitedCallOf(s, methods[i]!, ctx.sourceLine, ctx.shownFile(test.file)) ?? []);
  const awaited = awaitedChecks(calls, ctx.requests, [...b.givens], ctx.effectsSource);
  checks.push(...awaited.checks);
  b.todo.push(...awaited.todo);
  if (checks.length === 0) {
    b.todo.push("no expect after the last action became a check: write the checks that prove the task was done");
    checks.push({
      kind: "page",
      name: "TODO: what shows the task was done",
      text: "TODO: what shows the task was done",
    });
  }
  b.reference.push({ tool: "answer", args: { content: "Done" } });
  const tools = ["click", "write", "press", "answer", ...new Set(b.reference.map((s) => s.tool))];
  const title = test.titlePath.join(" › ") || test.title;
  const sentence = b.words.length ? `: ${b.words.join(", ")}` : "";
  return {
    id,
    title: title.charAt(0).toUpperCase() + title.slice(1),
    source: `${test.file}:${test.line}`,
    instruction: `${title.charAt(0).toUpperCase() + title.slice(1)}${sentence}. Then answer "Done".`,
    givens: [...b.givens],
    startPath: b.startPath ?? "/",
    tools: [...new Set(tools)],
    marks: b.marks,
    reference: b.reference,
    checks,
    todo: b.todo,
    unmapped: awaited.unmapped,
    reset: api.reset,
    stateUrls: api.reads,
  };
}

/** A task id from a test's title path, unique among `taken`. */
export function taskIdOf(test: RecordedTest, taken: Set<string>): string {
  const base = slug(test.titlePath.join(" ") || test.title).replace(/[^a-z0-9-]/g, "") || "imported";
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}-${n}`;
  taken.add(id);
  return id;
}
