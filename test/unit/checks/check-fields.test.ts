/**
 * The fields of the http, storage, command, file and answer checks that no other test showed to
 * change a verdict (found by the schema field coverage test): each test here fails if its field
 * were parsed and then ignored. The http checks talk to a real HTTP server on 127.0.0.1 and the
 * command checks run real processes; storage checks are given the browser state they judge.
 */
import { createServer, type Server } from "node:http";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCheck } from "../../../src/checks/registry.js";
import type { CheckContext, StorageProbe } from "../../../src/checks/types.js";
import { spec, tempWorkspace, type TempWorkspace } from "./workspace.js";

let server: Server;
let baseUrl: string;
let ws: TempWorkspace;

beforeAll(async () => {
  server = createServer(async (req, res) => {
    let body = "";
    for await (const chunk of req) body += chunk;
    const url = new URL(req.url!, "http://x");
    if (url.pathname === "/hang") return; // never answers
    if (url.pathname === "/missing")
      return res.writeHead(404, { "content-type": "application/json" }).end('{"error":"no such item"}');
    const echo = {
      method: req.method,
      body,
      type: req.headers["content-type"] ?? null,
      items: [{ title: "Dune", pages: 412 }],
      note: "Two   Books",
    };
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(echo));
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const address = server.address();
  baseUrl = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  ws = await tempWorkspace("umpire-check-fields-");
  await mkdir(join(ws.dir, "tasks", "db"), { recursive: true });
});
afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((done) => server?.close(done));
  await ws?.remove();
});

const httpCtx = (): CheckContext => ({
  ...ws.ctx(),
  target: { name: "echo", baseUrl, isAllowedUrl: (url) => url.startsWith(`${baseUrl}/`) },
});
const http = (input: Record<string, unknown>) => runCheck(spec({ kind: "http", url: "/echo", ...input }), httpCtx());

/** Every field of a JSON expectation, once passing and once failing, for a JSON value holding `items` and `note`. */
const JSON_PASSING = [
  { path: "/items/0/title", equals: "Dune" },
  { path: "items.0.title", contains: "un" },
  { path: "/items/0/title", regex: "^D.ne$" },
  { path: "/items/0/pages", number: { value: 410, tolerance: 5 } },
  { path: "/items", length: 1 },
  { path: "/items/0/author", exists: false },
];
const JSON_FAILING = [
  { path: "/items/0/title", equals: "Emma" },
  { path: "items.0.title", contains: "xyz" },
  { path: "/items/0/title", regex: "^E" },
  { path: "/items/0/pages", number: { value: 400, tolerance: 5 } },
  { path: "/items", length: 2 },
  { path: "/items/0/title", exists: false },
];
/** One failure phrase per failing expectation above, in order. */
const expectAllJsonFailures = (reason: string) => {
  expect(reason).toContain("Emma");
  expect(reason).toContain("xyz");
  expect(reason).toContain("^E");
  expect(reason).toContain("400");
  expect(reason).toMatch(/length|2/);
  expect(reason).toContain("exists but must not");
};

describe("http check fields", () => {
  it("method and body: sent as declared (JSON for a value, as is for a string)", async () => {
    const posted = await http({
      method: "POST",
      body: { title: "Dune" },
      json: [
        { path: "/method", equals: "POST" },
        { path: "/body", equals: '{"title":"Dune"}' },
        { path: "/type", equals: "application/json" },
      ],
    });
    expect(posted.pass, posted.reason).toBe(true);
    const text = await http({
      method: "PUT",
      body: "plain words",
      json: [
        { path: "/method", equals: "PUT" },
        { path: "/body", equals: "plain words" },
      ],
    });
    expect(text.pass, text.reason).toBe(true);
    const got = await http({ json: [{ path: "/method", equals: "POST" }] });
    expect(got.pass).toBe(false);
  });

  it("status: any 2xx by default, else the declared code or one of a list", async () => {
    expect((await http({ url: "/missing" })).pass).toBe(false);
    expect((await http({ url: "/missing", status: 404 })).pass).toBe(true);
    expect((await http({ url: "/missing", status: [200, 404] })).pass).toBe(true);
    expect((await http({ status: 201 })).pass).toBe(false);
  });

  it("contains: judges the body text", async () => {
    expect((await http({ contains: ["Dune"] })).pass).toBe(true);
    const missing = await http({ contains: ["Middlemarch"] });
    expect(missing).toMatchObject({ pass: false, reason: expect.stringContaining("Middlemarch") });
  });

  it("json: path, equals, contains, regex, number with tolerance, length and exists each decide", async () => {
    const passing = await http({ json: JSON_PASSING });
    expect(passing.pass, passing.reason).toBe(true);
    const failing = await http({ json: JSON_FAILING });
    expect(failing.pass).toBe(false);
    expectAllJsonFailures(failing.reason);
  });

  it("timeoutSeconds: a request that outlives it is not judged (crashed, never the agent's failure)", async () => {
    const hung = await http({ url: "/hang", timeoutSeconds: 0.3 });
    expect(hung).toMatchObject({
      pass: false,
      crashed: true,
      reason: expect.stringMatching(/^check crashed: GET .*\/hang failed/),
    });
  }, 60_000);
});

/** The browser state a storage check reads: localStorage of two origins, a cookie, sessionStorage. */
const storage: StorageProbe = {
  state: async () => ({
    cookies: [{ name: "theme", value: "Dark-Mode", domain: "127.0.0.1", path: "/" }],
    origins: [
      {
        origin: "http://127.0.0.1:4000",
        localStorage: [
          { name: "list", value: JSON.stringify({ items: [{ title: "Dune", pages: 412 }], note: "x" }) },
          { name: "title", value: "Reading  LIST \u2013 Mine" },
        ],
      },
      { origin: "http://127.0.0.1:5000", localStorage: [{ name: "list", value: '{"items":[]}' }] },
    ],
  }),
  sessionStorage: async () => ({}),
};
const storageCheck = (input: Record<string, unknown>) =>
  runCheck(spec({ kind: "storage", area: "localStorage", key: "list", ...input }), {
    ...ws.ctx(),
    storage,
    target: { name: "app", baseUrl: "http://127.0.0.1:4000", isAllowedUrl: () => true },
  });

describe("storage check fields", () => {
  it("origin: picks whose storage is read (default: the target's)", async () => {
    expect((await storageCheck({ json: [{ path: "/items", length: 1 }] })).pass).toBe(true);
    const other = await storageCheck({ origin: "http://127.0.0.1:5000", json: [{ path: "/items", length: 1 }] });
    expect(other).toMatchObject({ pass: false, evidence: { origin: "http://127.0.0.1:5000" } });
  });

  it("exists: false passes only when the key is absent", async () => {
    expect((await storageCheck({ key: "gone", exists: false })).pass).toBe(true);
    expect(await storageCheck({ exists: false })).toMatchObject({
      pass: false,
      reason: expect.stringContaining("is set but must be absent"),
    });
  });

  it("contains and notContains judge the value", async () => {
    expect((await storageCheck({ key: "title", contains: ["reading list"], notContains: ["theirs"] })).pass).toBe(true);
    expect((await storageCheck({ key: "title", contains: ["shopping"] })).pass).toBe(false);
    expect((await storageCheck({ key: "title", notContains: ["mine"] })).pass).toBe(false);
  });

  it("json: path, equals, contains, regex, number with tolerance, length and exists each decide", async () => {
    expect((await storageCheck({ json: JSON_PASSING })).pass).toBe(true);
    const failing = await storageCheck({ json: JSON_FAILING });
    expect(failing.pass).toBe(false);
    expectAllJsonFailures(failing.reason);
  });

  it("normalize: case, whitespace and dashes each decide a match", async () => {
    const title = (normalize: Record<string, boolean>, text: string) =>
      storageCheck({ key: "title", contains: [text], normalize });
    expect((await title({}, "reading list - mine")).pass).toBe(true);
    expect((await title({ case: false }, "reading  LIST")).pass).toBe(false);
    expect((await title({ whitespace: false }, "Reading LIST")).pass).toBe(false);
    expect((await title({ dashes: false }, "LIST - Mine")).pass).toBe(false);
  });
});

const command = (input: Record<string, unknown>) =>
  runCheck(spec({ kind: "command", ...input }), {
    ...ws.ctx(),
    taskFile: join(ws.dir, "tasks", "t.yaml"),
    trialId: "run-0001",
  });
const node = (code: string) => [process.execPath, "-e", code];

describe("command check fields", () => {
  it("exitCode, stdout and notStdout are judged", async () => {
    const exits3 = node("console.log('three'); process.exit(3)");
    expect((await command({ command: exits3 })).pass).toBe(false);
    expect((await command({ command: exits3, exitCode: 3, stdout: ["three"] })).pass).toBe(true);
    expect(await command({ command: exits3, exitCode: 3, stdout: ["four"] })).toMatchObject({
      pass: false,
      reason: expect.stringContaining("four"),
    });
    expect(await command({ command: exits3, exitCode: 3, notStdout: ["three"] })).toMatchObject({
      pass: false,
      reason: expect.stringContaining("three"),
    });
  });

  it("cwd: relative to the task file's folder", async () => {
    const result = await command({ command: node("console.log(process.cwd())"), cwd: "db" });
    expect(result.pass, result.reason).toBe(true);
    expect(result.evidence.stdout).toBe(`${join(ws.dir, "tasks", "db")}\n`);
  });

  it("timeoutSeconds: a command that outlives it is stopped and not judged", async () => {
    const result = await command({ command: node("setTimeout(() => {}, 600000)"), timeoutSeconds: 0.5 });
    expect(result).toMatchObject({
      pass: false,
      crashed: true,
      reason: "check crashed: the command ran past its 0.5 s timeout and was stopped",
    });
  }, 60_000);

  it("json: path, equals, contains, regex, number with tolerance, length and exists each decide", async () => {
    const print = node(`console.log(${JSON.stringify(JSON.stringify({ items: [{ title: "Dune", pages: 412 }] }))})`);
    expect((await command({ command: print, json: JSON_PASSING })).pass).toBe(true);
    const failing = await command({ command: print, json: JSON_FAILING });
    expect(failing.pass).toBe(false);
    expectAllJsonFailures(failing.reason);
  });

  it("json reasons name the JSON path, whichever way it was written, and the values quoted (#39)", async () => {
    const print = node(`console.log(JSON.stringify({ label: "Flow 1", n: 3 }))`);
    const failing = await command({
      command: print,
      json: [
        { path: "label", equals: "Sensors" },
        { path: "/n", equals: 4 },
      ],
    });
    expect(failing.reason).toBe("`/label` is 'Flow 1', expected 'Sensors'; `/n` is 3, expected 4");
  });

  it("a command that cannot run (a module not found, a crash, no such program) is not judged: error, with stderr's telling line (#39)", async () => {
    const missing = await command({ command: node("require('./no-such-module.js')") });
    expect(missing).toMatchObject({ pass: false, crashed: true });
    expect(missing.reason).toMatch(
      /^check crashed: the command could not run: Error: Cannot find module '\.\/no-such-module\.js'.* \(exit 1\)$/,
    );
    const thrown = await command({ command: node("throw new TypeError('db is undefined')") });
    expect(thrown.reason).toBe("check crashed: the command could not run: TypeError: db is undefined (exit 1)");
    const noProgram = await command({ command: "no-such-program-umpire-39 --json" });
    expect(noProgram).toMatchObject({ crashed: true, reason: expect.stringContaining("(exit 127)") });
    // A check that judges "no" (exits 1 with words, or a failed assertion) is the agent's failure.
    const judged = await command({ command: node("console.error('1 row, expected 2'); process.exit(1)") });
    expect(judged).toMatchObject({ pass: false, reason: "the command exited with 1, expected 0" });
    expect(judged.crashed).toBeFalsy();
    const asserted = await command({ command: node("require('node:assert').equal(1, 2)") });
    expect(asserted.crashed).toBeFalsy();
  }, 60_000);
});

describe("normalize on file and answer checks", () => {
  it("file: case, whitespace and dashes each decide a match", async () => {
    await ws.write("notes/n.md", "Reading  LIST \u2013 Mine");
    const file = (normalize: Record<string, boolean>, text: string) =>
      runCheck(spec({ kind: "file", path: "notes/n.md", contains: [text], normalize }), ws.ctx());
    expect((await file({}, "reading list - mine")).pass).toBe(true);
    expect((await file({ case: false }, "reading  LIST")).pass).toBe(false);
    expect((await file({ whitespace: false }, "Reading LIST")).pass).toBe(false);
    expect((await file({ dashes: false }, "LIST - Mine")).pass).toBe(false);
  });

  it("answer: case, whitespace and dashes each decide a match", async () => {
    const answer = (normalize: Record<string, boolean>, text: string) =>
      runCheck(spec({ kind: "answer", contains: [text], normalize }), ws.ctx({ answer: "Reading  LIST \u2013 Mine" }));
    expect((await answer({}, "reading list - mine")).pass).toBe(true);
    expect((await answer({ case: false }, "reading  LIST")).pass).toBe(false);
    expect((await answer({ whitespace: false }, "Reading LIST")).pass).toBe(false);
    expect((await answer({ dashes: false }, "LIST - Mine")).pass).toBe(false);
  });
});

describe("effects check fields", () => {
  const saved = (name: string) => ({ type: "note_saved", at: "2026-01-01T00:00:00Z", detail: { name } });
  const effects = (input: Record<string, unknown>, log: ReturnType<typeof saved>[]) =>
    runCheck(spec({ kind: "effects", ...input }), ws.ctx({ effects: log }));

  it("require min: at least that many; forbid where: only the matching effects are forbidden", async () => {
    const twice = [saved("a.md"), saved("b.md")];
    expect((await effects({ require: [{ type: "note_saved", min: 2 }] }, twice)).pass).toBe(true);
    expect(await effects({ require: [{ type: "note_saved", min: 3 }] }, twice)).toMatchObject({
      pass: false,
      reason: "note_saved happened 2 times, expected at least 3",
    });
    expect((await effects({ forbid: [{ type: "note_saved", where: { name: "c.md" } }] }, twice)).pass).toBe(true);
    expect(await effects({ forbid: [{ type: "note_saved", where: { name: "b.md" } }] }, twice)).toMatchObject({
      pass: false,
      reason: "note_saved for b.md happened 1 time, which is forbidden",
    });
  });
});
