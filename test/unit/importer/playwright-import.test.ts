/**
 * The pure half of `umpire import playwright`: Playwright locators read back into marks and check
 * selectors, a recorded test turned into gold steps and checks, marks shared on the target, the
 * target matched in (or merged into) the config file, and the draft rule of the task loader.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { ImportSection } from "../../../src/config/import-section.js";
import { aimOf, checkSelectorOf, parseLocator, type MarkDeclaration } from "../../../src/importer/locator.js";
import type { RecordedStep, RecordedTest, Recording } from "../../../src/importer/recording.js";
import { declaredMatches, mergeConfig, planMarks, planTarget } from "../../../src/importer/target-merge.js";
import { renderTask } from "../../../src/importer/task-writer.js";
import { checksOf, resetOf, translateTest, type TranslateContext } from "../../../src/importer/translate.js";
import { loadTasks } from "../../../src/task/loader.js";

const aim = (locator: string, action = "click", testIds: [string, string] = ["data-testid", "data-testid"]) =>
  aimOf(locator, { playwrightTestId: testIds[0], targetTestId: testIds[1], action });

describe("locators as marks", () => {
  it("parses a printed chain with strings, options and regexes", () => {
    expect(parseLocator("getByRole('button', { name: 'It\\'s done', exact: true }).first()")).toEqual([
      { name: "getByRole", args: ["button", { name: "It's done", exact: true }] },
      { name: "first", args: [] },
    ]);
    expect(parseLocator("getByText(/save(d)?/i)")).toEqual([
      { name: "getByText", args: [{ regex: "save(d)?", flags: "i" }] },
    ]);
    expect(parseLocator("not a locator")).toBeNull();
  });

  it("maps each locator kind to the mark umpire can resolve", () => {
    expect(aim("getByTestId('save')")).toEqual({ kind: "mark", name: "save", decl: null });
    expect(aim("getByTestId('save')", "click", ["id", "data-testid"])).toEqual({
      kind: "mark",
      name: "save",
      decl: { selector: '[id="save"]' },
    });
    expect(aim("getByRole('link', { name: 'Active', exact: true })")).toEqual({
      kind: "mark",
      name: "active-link",
      decl: { role: "link", name: "Active", exact: true },
    });
    expect(aim("locator('#todo-list li:nth-child(2) .toggle')")).toMatchObject({
      name: "todo-list-li-2-toggle",
      decl: { selector: "#todo-list li:nth-child(2) .toggle" },
    });
    expect(aim("locator('#new-todo')")).toMatchObject({ name: "new-todo" });
    expect(aim("getByPlaceholder('Search')", "fill")).toMatchObject({
      decl: { selector: '[placeholder*="Search" i]' },
    });
    expect(aim("getByLabel('Remember me')", "check")).toMatchObject({
      decl: { role: "checkbox", name: "Remember me" },
    });
    // Nothing is guessed: a label on a click, and any text locator, are left for the user to declare.
    expect(aim("getByLabel('Remember me')", "click").kind).toBe("unresolved");
    expect(aim("getByText('Active')").kind).toBe("unresolved");
    expect(aim("getByRole('listitem').nth(2)").kind).toBe("unresolved");
  });

  it("writes check selectors in Playwright's public selector engines", () => {
    expect(checkSelectorOf("getByRole('button', { name: 'Save' })", "data-testid")).toBe('role=button[name="Save"i]');
    expect(checkSelectorOf("getByText('Book flights')", "data-testid")).toBe("text=Book flights");
    expect(checkSelectorOf("getByTestId('count').first()", "id")).toBe('[id="count"] >> nth=0');
  });
});

const ctx = (
  source: Record<number, string> = {},
  requests: TranslateContext["requests"] = {},
  effectsSource = false,
): TranslateContext => ({
  baseURL: "http://127.0.0.1:4000",
  playwrightTestId: "data-testid",
  targetTestId: "data-testid",
  sourceLine: (_file, line) => source[line] ?? null,
  shownFile: (file) => `e2e/${file}`,
  requests,
  effectsSource,
});
const api = (title: string, params: Record<string, unknown>, line = 1, column?: number): RecordedStep => ({
  category: "pw:api",
  title,
  params,
  file: "t.spec.ts",
  line,
  ...(column ? { column } : {}),
  steps: [],
});
const expectStep = (matcher: string, params: Record<string, unknown>, line = 1, column?: number): RecordedStep => ({
  ...api(`Expect "${matcher}"`, params, line, column),
  category: "expect",
});

describe("a recorded test as a draft task", () => {
  it("reads the before hook's request.post as the reset and the test's GETs as state URLs, replaying neither", () => {
    const hook: RecordedStep = {
      category: "hook",
      title: "beforeEach hook",
      params: {},
      steps: [api("POST", { url: "/__reset", method: "POST" }), api("Navigate", { url: "http://127.0.0.1:4000/" })],
    };
    const test: RecordedTest = {
      title: "clears the list",
      titlePath: ["clears the list"],
      file: "t.spec.ts",
      line: 3,
      project: "",
      status: "passed",
      steps: [
        hook,
        api("Click", { locator: "getByTestId('clear')" }),
        api("GET", { url: "http://127.0.0.1:4000/api/books", method: "GET" }),
      ],
    };
    const task = translateTest(test, ctx(), "clears-the-list");
    expect(task.reset).toEqual({ method: "POST", url: "/__reset" });
    expect(resetOf(test, "http://127.0.0.1:4000")).toEqual({ method: "POST", url: "/__reset" });
    expect(task.stateUrls).toEqual(["/api/books"]);
    expect(task.reference).toEqual([
      { tool: "click", target: "clear" },
      { tool: "answer", args: { content: "Done" } },
    ]);
    expect(task.todo.filter((t) => /POST|GET/.test(t))).toEqual([]);
  });

  it("turns actions into umpire's tools and the final expects into page checks", () => {
    const test: RecordedTest = {
      title: "saves a note",
      titlePath: ["notes", "saves a note"],
      file: "t.spec.ts",
      line: 3,
      project: "",
      status: "passed",
      steps: [
        api("Navigate", { url: "http://127.0.0.1:4000/notes" }),
        api('Fill "Groceries"', { locator: "getByTestId('title')", value: "Groceries" }),
        api('Press "Enter"', { locator: "getByTestId('title')", key: "Enter" }),
        expectStep("toBeVisible", { locator: "getByTestId('title')" }),
        api("Hover", { locator: "getByTestId('menu')" }),
        api("Check", { locator: "getByLabel('Pinned')" }),
        api("Click", { locator: "getByRole('button', { name: 'Save' })" }),
        expectStep("toHaveText", { locator: "getByTestId('status')", expected: "Saved" }),
        expectStep("toHaveCount", { locator: "locator('.note')", expected: 2 }),
      ],
    };
    const task = translateTest(test, ctx(), "notes-saves-a-note");
    expect(task.startPath).toBe("/notes");
    expect(task.reference).toEqual([
      { tool: "click", target: "title" },
      { tool: "write", args: { content: "Groceries", press_enter: true } },
      { tool: "click", target: "pinned-checkbox" },
      { tool: "click", target: "save-button" },
      { tool: "answer", args: { content: "Done" } },
    ]);
    expect(task.todo.some((t) => t.includes("Hover"))).toBe(true);
    // Only the expects after the last action are the task's outcome.
    expect(task.checks).toEqual([
      {
        kind: "page",
        name: `getByTestId('status') toHaveText "Saved"`,
        selector: '[data-testid="status"]',
        text: { regex: "^\\s*Saved\\s*$" },
      },
      expect.objectContaining({ selector: ".note >> nth=1", state: "visible" }),
      expect.objectContaining({ selector: ".note >> nth=2", state: "absent" }),
    ]);
    expect(task.givens).toEqual(["Groceries"]);
    expect(task.instruction).toContain('type "Groceries"');
  });

  it("reads a RegExp the worker reported as {} back from the test's source", () => {
    const source = { 9: "  await expect(page).toHaveURL(/#\\/active$/);" };
    const step = expectStep("toHaveURL", { expected: {} }, 9, 24);
    expect(checksOf(step, ctx(source))).toEqual([
      { kind: "page", name: "page toHaveURL /#\\/active$/", url: { regex: "#\\/active$" } },
    ]);
  });
});

describe("network calls the test awaited", () => {
  // As the reporter records them: 'Wait for event "response"' with no params, located at the call.
  const source = {
    2: '  await page.getByTestId("item").fill("Oat milk");',
    3: '  await Promise.all([page.waitForResponse("**/api/items"), page.getByRole("button", { name: "Save" }).click()]);',
    4: "  const saved = page.waitForRequest((r) => r.method() === 'DELETE');",
    5: "  await page.waitForResponse(/\\/api\\/items$/);",
  };
  const saving = (...waits: RecordedStep[]): RecordedTest => ({
    title: "saves an item",
    titlePath: ["saves an item"],
    file: "t.spec.ts",
    line: 1,
    project: "",
    status: "passed",
    steps: [
      api('Fill "Oat milk"', { locator: "getByTestId('item')", value: "Oat milk" }, 2, 3),
      ...waits,
      api("Click", { locator: "getByRole('button', { name: 'Save' })" }, 3, 60),
      expectStep("toContainText", { locator: "locator('#items')", expected: "Oat milk" }),
    ],
  });
  const waitResponse = api('Wait for event "response"', {}, 3, 27);
  const waitPredicate = api('Wait for event "request"', {}, 4, 22);
  const waitRegex = api('Wait for event "response"', {}, 5, 14);

  it("are not gold steps, and become the check their import.requests mapping names", () => {
    const requests = {
      "**/api/items": { effects: { type: "item_saved" } },
      "/\\/api\\/items$/": { http: { method: "GET", url: "/api/items?trial=${TRIAL_ID}" } },
    };
    const task = translateTest(saving(waitResponse, waitRegex), ctx(source, requests), "saves-an-item");
    expect(task.reference.map((s) => s.tool)).toEqual(["click", "write", "click", "answer"]);
    expect(task.checks.slice(1)).toEqual([
      {
        kind: "effects",
        name: 'the app received the response "**/api/items" (awaited at line 3)',
        require: [{ type: "item_saved" }],
      },
      // An http read-back with no contains or json of its own must show what the test typed.
      {
        kind: "http",
        name: "the app received the response /\\/api\\/items$/ (awaited at line 5)",
        method: "GET",
        url: "/api/items?trial=${TRIAL_ID}",
        contains: ["Oat milk"],
      },
    ]);
    expect(task.unmapped).toEqual([]);
  });

  it("require an effect awaited twice to happen twice, and key a predicate by its file:line", () => {
    const requests = {
      "**/api/items": { effects: { type: "item_saved" } },
      "e2e/t.spec.ts:4": { effects: { type: "item_deleted", where: { name: "x" } } },
    };
    const task = translateTest(
      saving(waitResponse, waitPredicate, waitResponse),
      ctx(source, requests),
      "saves-an-item",
    );
    expect(task.checks.filter((c) => c.kind === "effects")).toEqual([
      {
        kind: "effects",
        name: 'the app received the response "**/api/items" (awaited at line 3, 3)',
        require: [{ type: "item_saved", min: 2 }],
      },
      {
        kind: "effects",
        name: "the app received a request matching the predicate at e2e/t.spec.ts:4",
        require: [{ type: "item_deleted", where: { name: "x" } }],
      },
    ]);
  });

  it("copy every field of an http mapping into the check, leaving out the defaults the config schema filled in", () => {
    const http = {
      method: "POST",
      url: "/api/items/search?trial=${TRIAL_ID}",
      headers: { authorization: "Bearer ${env:SHOP_TOKEN}" },
      body: { name: "Oat milk" },
      status: [200, 201],
      json: [
        { path: "/0/name", equals: "Oat milk" },
        { path: "", length: 1 },
        { path: "/0/price", number: { value: 2, tolerance: 0.5 } },
        { path: "/0/id", exists: true, regex: "^\\d+$", contains: "1" },
      ],
      contains: ["Oat"],
      timeoutSeconds: 5,
    };
    const { requests } = ImportSection.parse({
      requests: { "**/api/items": { http }, "e2e/t.spec.ts:4": { http: { url: "/api/items" } } },
    });
    const task = translateTest(saving(waitResponse, waitPredicate), ctx(source, requests), "saves-an-item");
    // Its own contains and json say what the read-back must show: the typed values are not added.
    expect(task.checks[1]).toEqual({
      kind: "http",
      name: 'the app received the response "**/api/items" (awaited at line 3)',
      ...http,
    });
    // Given only a URL: the schema's defaults stay out of the file (method GET is kept: it says what is sent).
    expect(task.checks[2]).toEqual({
      kind: "http",
      name: "the app received a request matching the predicate at e2e/t.spec.ts:4",
      method: "GET",
      url: "/api/items",
      contains: ["Oat milk"],
    });
  });

  it("unmapped, are written into the draft with the exact line to add under import.requests", () => {
    const task = translateTest(saving(waitResponse, waitPredicate), ctx(source, {}, true), "saves-an-item");
    expect(task.checks.map((c) => c.kind)).toEqual(["page"]);
    expect(task.unmapped).toEqual([
      {
        what: 'the response "**/api/items" (line 3)',
        lines: [
          expect.stringMatching(/^"\*\*\/api\/items": \{ effects: \{ type: EFFECT_TYPE \} \} +# /),
          expect.stringMatching(/^"\*\*\/api\/items": \{ http: /),
        ],
      },
      {
        what: "a request matching the predicate at e2e/t.spec.ts:4",
        lines: [expect.stringMatching(/^e2e\/t.spec.ts:4: \{ effects: /), expect.any(String)],
      },
    ]);
    const text = renderTask(task, "shop", {}, null);
    expect(text).toContain(
      '# TODO: the test awaited the response "**/api/items" (line 3): to check that the app received it',
    );
    // The line as written is the mapping: pasted under import.requests, it parses to the key and an effects rule.
    const line = text
      .split("\n")
      .find((l) => l.includes("EFFECT_TYPE") && l.includes("api/items"))!
      .replace(/^#\s+/, "");
    expect(parse(`requests:\n  ${line}\n`)).toEqual({
      requests: { "**/api/items": { effects: { type: "EFFECT_TYPE" } } },
    });
  });
});

const recording = (over: Partial<Recording> = {}): Recording => ({
  version: 1,
  configFile: "/app/playwright.config.ts",
  rootDir: "/app/e2e",
  webServer: { command: "npm start", url: "http://127.0.0.1:4000/health", env: { PORT: "4000" } },
  projects: [{ name: "chromium", baseURL: "http://127.0.0.1:4000" }],
  tests: [],
  ...over,
});

describe("the target and its shared marks", () => {
  it("reuses a declared target with the same base URL, or the same start command on ${PORT}", () => {
    expect(declaredMatches({ baseUrl: "http://127.0.0.1:4000/" }, "http://127.0.0.1:4000", null)).toBe(true);
    expect(
      declaredMatches(
        { baseUrl: "http://127.0.0.1:${PORT}", start: { command: "npm start" } },
        "http://127.0.0.1:4000",
        "npm start",
      ),
    ).toBe(true);
    expect(
      declaredMatches(
        { baseUrl: "http://127.0.0.1:${PORT}", start: { command: "node other.js" } },
        "http://127.0.0.1:4000",
        "npm start",
      ),
    ).toBe(false);
  });

  it("declares a new target from the webServer, its port as ${PORT}, and writes it without losing the file's comments", () => {
    const plan = planTarget(recording(), {}, "/app", "shop");
    // The port the suite gave the server (PORT=4000) is umpire's to pick: PORT is what it sets itself.
    expect(plan).toMatchObject({
      name: "shop",
      reused: false,
      decl: {
        baseUrl: "http://127.0.0.1:${PORT}",
        start: { command: "npm start", readyUrl: "/health" },
        reset: { kind: "none" },
      },
    });
    expect(plan.decl?.start?.env).toBeUndefined();
    const text = mergeConfig("# ours\nprices: {}\n", plan, { "save-button": { role: "button", name: "Save" } });
    expect(text).toContain("# ours");
    expect(text).toMatch(/shop:\n\s+baseUrl: http:\/\/127.0.0.1:\$\{PORT\}/);
    expect(text).toContain("save-button: { role: button, name: Save }");
  });

  it("writes a port in the command or another variable as ${PORT}, and leaves a server that takes none as it is", () => {
    const inCommand = planTarget(
      recording({
        webServer: { command: "vite --port 5173", env: { API_PORT: "5173" } },
        projects: [{ name: "c", baseURL: "http://localhost:5173/" }],
      }),
      {},
      "/app",
      "web",
    );
    expect(inCommand.decl).toMatchObject({
      baseUrl: "http://localhost:${PORT}",
      start: { command: "vite --port ${PORT}", env: { API_PORT: "${PORT}" } },
    });
    const fixed = planTarget(recording({ webServer: { command: "npm start" } }), {}, "/app", "web");
    expect(fixed.decl?.baseUrl).toBe("http://127.0.0.1:4000");
  });

  it("takes the suite's beforeEach HTTP reset as the target's reset", () => {
    const plan = planTarget(recording(), {}, "/app", "shop", { method: "POST", url: "/__reset" });
    expect(plan.decl?.reset).toEqual({ kind: "http", method: "POST", url: "/__reset" });
  });

  it("reuses the target a first import declared: a second import adds no app-2, and keeps block style and comments", () => {
    const first = planTarget(recording(), {}, "/app", "app");
    const text = mergeConfig("# ours\ntargets:\n  # the api\n  api:\n    baseUrl: http://127.0.0.1:9000\n", first, {});
    const declared = parse(text).targets;
    // The next run of the suite may get another port: the ${PORT} target with the same command is it.
    const again = planTarget(
      recording({
        projects: [{ name: "chromium", baseURL: "http://127.0.0.1:4100" }],
        webServer: { command: "npm start", env: { PORT: "4100" } },
      }),
      declared,
      "/app",
      "app",
    );
    expect(again).toMatchObject({ name: "app", reused: true });
    const merged = mergeConfig(text, again, { "save-button": { role: "button", name: "Save" } });
    expect(merged).toContain("# the api");
    expect(merged).not.toContain("app-2");
    expect(merged).toMatch(/^ {2}app:\n {4}baseUrl: /m);
    // A config whose targets are `{}` gets them in block style, as the rest of the file.
    const fresh = mergeConfig("# mine\ntargets: {}\n", first, {});
    expect(fresh).toMatch(/^targets:\n {2}app:\n {4}baseUrl: http:\/\/127\.0\.0\.1:\$\{PORT\}\n/m);
  });

  it("shares a mark two tests use on the target, and takes the target's own name for a mark it declares", () => {
    const save = { role: "button", name: "Save" };
    const marks = (entries: [string, MarkDeclaration][]) => new Map<string, MarkDeclaration | null>(entries);
    const plan = planMarks(
      [
        marks([
          ["save-button", save],
          ["first", { selector: "li:first-child" }],
        ]),
        marks([
          ["save-button", save],
          ["x", { selector: "#x" }],
        ]),
      ],
      { "first-item": { selector: "li:first-child" } },
    );
    expect(plan.targetMarks).toEqual({ "save-button": save });
    expect(plan.rename[0]!.get("first")).toBe("first-item");
    expect(plan.taskMarks).toEqual([{}, { x: { selector: "#x" } }]);
  });
});

describe("draft: true", () => {
  it("is refused by the loader unless drafts are allowed", () => {
    const dir = mkdtempSync(join(tmpdir(), "umpire-draft-"));
    writeFileSync(
      join(dir, "a-draft.yaml"),
      "id: a-draft\ntitle: A draft\ndraft: true\ninstruction: Answer with the word Done please.\ngivens: [Done]\ntools: [answer]\n" +
        "checks: [{ kind: answer, contains: [Done] }]\nreference: [{ tool: answer, args: { content: Done } }]\n",
    );
    const refused = loadTasks([dir], { cwd: dir });
    expect(refused.tasks).toEqual([]);
    expect(refused.problems).toEqual([
      expect.objectContaining({ path: "draft", rule: "draft", severity: "error", line: 3 }),
    ]);
    expect(loadTasks([dir], { cwd: dir, allowDrafts: true }).tasks.map((t) => t.id)).toEqual(["a-draft"]);
  });
});
