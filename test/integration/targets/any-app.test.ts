/**
 * Any web app as a target, through the real CLI (`node bin/umpire.js run` as a child process) with
 * the embedded reference model, real Chromium, a real app started by its target's start command,
 * real HTTP and the real SQLite store:
 * - a target started by command and reset by HTTP, and one reset by a command;
 * - a shared-state target runs its trials one at a time while fixture trials run in parallel;
 * - marks by test id, role + name and CSS selector, grounded by the reference model at DPR 1 and 2;
 * - the http, storage (local, session, cookie), command, page-on-target and custom checks, each
 *   passing and failing for the right reason, with evidence (and no secret in it);
 * - a reset failure is environment_error (verdict error), never the agent's failure;
 * - a check or a navigation to an origin outside the target is refused.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/open.js";
import { execChild } from "../../support/cli-child.js";

const run = execChild;
const ROOT = resolve(import.meta.dirname, "../../..");
const APP = join(import.meta.dirname, "app", "app.mjs");
const SECRET = "s3cret-token-9f2";
let dir: string;

const config = (out: string) => `
targets:
  stock:
    baseUrl: http://127.0.0.1:\${PORT}
    start: { command: [node, ${JSON.stringify(APP)}], readyUrl: / }
    reset: { kind: http, url: /reset }
    effects: { url: /effects }
    marks:
      save: { role: button, name: Save, exact: true }
      about: { selector: ".about-link" }
  stock-cmd:
    baseUrl: http://127.0.0.1:\${PORT}
    start: { command: [node, ${JSON.stringify(APP)}] }
    reset:
      kind: command
      command: [node, -e, "require('fs').writeFileSync(process.env.OUT + '/reset-' + process.env.TRIAL_ID + '.json', JSON.stringify({workspace: process.env.WORKSPACE, url: process.env.TARGET_URL}))"]
      env: { OUT: ${JSON.stringify(out)} }
    marks:
      save: { role: button, name: Save, exact: true }
    isolated: true
  stock-broken:
    baseUrl: http://127.0.0.1:\${PORT}
    start: { command: [node, ${JSON.stringify(APP)}] }
    reset: { kind: http, url: /reset-broken }
    isolated: true
`;

const gold = (item: string) => `
  - { tool: click, target: item-name }
  - { tool: write, args: { content: ${item} } }
  - { tool: click, target: save }
  - { tool: click, target: about }
  - { tool: answer, args: { content: Saved ${item} } }`;

const TASKS: Record<string, string> = {
  "stock-apple": `
id: stock-apple
title: Save apple
target: stock
instruction: In the stock app, save an item named apple, then open the About page.
givens: [apple]
tools: [click, write, press, answer]
checks:
  - kind: http
    name: the app holds apple
    url: /api/items
    headers: { authorization: "Bearer \${env:STOCK_TOKEN}" }
    json: [{ path: "", length: 1 }, { path: /0/name, equals: apple }]
  - { kind: http, name: wrong-http, required: false, url: /api/items, headers: { authorization: "Bearer \${env:STOCK_TOKEN}" }, json: [{ path: /0/name, equals: banana }] }
  - { kind: http, name: outside-origin, required: false, url: "http://127.0.0.1:9/x" }
  - { kind: storage, name: local, area: localStorage, key: last-saved, json: [{ path: name, equals: apple }, { path: count, number: { value: 1 } }] }
  - { kind: storage, name: wrong-local, required: false, area: localStorage, key: no-such-key }
  - { kind: storage, name: cookie, area: cookie, key: saved, contains: [apple] }
  - { kind: storage, name: session, area: sessionStorage, key: draft }
  - { kind: command, name: command, command: [node, -e, "console.log(JSON.stringify({trial: process.env.TRIAL_ID, ws: process.env.WORKSPACE}))"], json: [{ path: trial, regex: "-\\\\d{4}$" }] }
  - { kind: command, name: wrong-command, required: false, command: [node, -e, "console.log('nope'); process.exit(3)"] }
  - { kind: page, name: about-page, open: /about, selector: "#about", text: list of items }
  - { kind: custom, name: custom, module: ./checks.mjs, export: itemCount, options: { count: 1 } }
  - { kind: custom, name: wrong-custom, required: false, module: ./checks.mjs, export: itemCount, options: { count: 2 } }
  - { kind: effects, name: effects, require: [{ type: item_saved, where: { name: apple } }] }
reference:${gold("apple")}
`,
  "stock-pear-dpr2": `
id: stock-pear-dpr2
title: Save pear at device scale factor 2
target: stock
instruction: In the stock app, save an item named pear, then open the About page.
givens: [pear]
viewport: { deviceScaleFactor: 2 }
tools: [click, write, press, answer]
checks:
  - { kind: http, url: /api/items, headers: { authorization: "Bearer \${env:STOCK_TOKEN}" }, json: [{ path: "", length: 1 }, { path: /0/name, equals: pear }] }
  - { kind: page, url: { regex: "/about$" } }
reference:${gold("pear")}
`,
  "stock-cmd-reset": `
id: stock-cmd-reset
title: Save fig on the command-reset target
target: stock-cmd
instruction: In the stock app, save an item named fig.
givens: [fig]
tools: [click, write, navigate, answer]
checks:
  - { kind: storage, area: localStorage, key: last-saved, json: [{ path: name, equals: fig }] }
reference:
  - { tool: navigate, args: { url: "http://127.0.0.1:9/elsewhere" } }
  - { tool: click, target: item-name }
  - { tool: write, args: { content: fig } }
  - { tool: click, target: save }
  - { tool: answer, args: { content: Saved fig } }
`,
  "stock-broken-reset": `
id: stock-broken-reset
title: A target whose reset fails
target: stock-broken
instruction: In the stock app, save an item named kiwi.
tools: [click, write, answer]
checks:
  - { kind: page, url: { regex: "/$" } }
reference:
  - { tool: answer, args: { content: Saved kiwi } }
`,
};

interface Judged {
  name: string;
  required?: boolean;
  pass: boolean;
  reason: string;
  evidence: Record<string, unknown>;
}

let runOut: { stdout: string; stderr: string; code: number };
let trials: {
  taskId: string;
  verdict: string | null;
  stopReason: string | null;
  startedAt: string | null;
  endedAt: string | null;
  id: string;
}[];
const checksByTask = new Map<string, Judged[]>();
/** A trial's checks as stored (the real SQLite file), in declaration order. */
const checksOf = (task: string): Judged[] => checksByTask.get(task) ?? [];
const eventsOf = (task: string): string => {
  const runDir = join(dir, "out", readdirSync(join(dir, "out"))[0]!);
  const folder = readdirSync(runDir).find((f) => f.includes(`-${task}--`))!;
  return readFileSync(join(runDir, folder, "events.jsonl"), "utf8");
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "umpire-anyapp-"));
  const project = join(dir, "project");
  const { mkdirSync, copyFileSync } = await import("node:fs");
  mkdirSync(join(project, "tasks"), { recursive: true });
  writeFileSync(join(project, "umpire.config.yaml"), config(dir));
  for (const [id, text] of Object.entries(TASKS)) writeFileSync(join(project, "tasks", `${id}.yaml`), text);
  copyFileSync(join(import.meta.dirname, "app", "checks.mjs"), join(project, "tasks", "checks.mjs"));
  const args = [
    "bin/umpire.js",
    "run",
    project,
    "tasks/answer-only-bb042.yaml",
    "tasks/scorecard-note-bb042.yaml",
    "tasks/api-note-bb042.yaml",
    "--model",
    "reference",
    "--mode",
    "structured",
    "--concurrency",
    "7",
    "--db",
    join(dir, "umpire.db"),
    "--out",
    join(dir, "out"),
    "--json",
  ];
  runOut = await run("node", args, {
    cwd: ROOT,
    env: { ...process.env, STOCK_TOKEN: SECRET },
    maxBuffer: 50_000_000,
    timeout: 540_000,
  }).then(
    (r) => ({ ...r, code: 0 }),
    (e: { stdout: string; stderr: string; code: number }) => ({ stdout: e.stdout, stderr: e.stderr, code: e.code }),
  );
  const store = openStore(join(dir, "umpire.db"));
  const runs = store.listRuns();
  if (runs.length === 0) throw new Error(`the run stored nothing (exit ${runOut.code}):\n${runOut.stderr}`);
  const runId = runs[0]!.id;
  trials = store.trials(runId) as unknown as typeof trials;
  for (const t of trials) checksByTask.set(t.taskId, store.checks(t.id) as unknown as Judged[]);
  store.close();
}, 600_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const trialOf = (task: string) => trials.find((t) => t.taskId === task)!;

describe("a declared target", () => {
  it("is started by its command, reset over HTTP, and grounded by selector, role and test id at DPR 1 and 2", () => {
    expect(runOut.stderr).not.toMatch(/Error:/);
    const failing = (task: string) =>
      JSON.stringify(
        checksOf(task)
          .filter((c) => c.required !== false && !c.pass)
          .map((c) => `${c.name}: ${c.reason}`),
      );
    expect(trialOf("stock-apple").verdict, failing("stock-apple")).toBe("passed");
    expect(
      trialOf("stock-pear-dpr2").verdict,
      failing("stock-pear-dpr2") + eventsOf("stock-pear-dpr2").slice(-3000),
    ).toBe("passed");
    // Each trial started with the app reset: the second trial saw only its own item.
    expect(checksOf("stock-pear-dpr2")[0]!.evidence.body).toBe(JSON.stringify([{ name: "pear" }]));
  });

  it("runs a shared-state target's trials one at a time while the fixture's run in parallel", () => {
    const interval = (t: (typeof trials)[number]) => [Date.parse(t.startedAt!), Date.parse(t.endedAt!)] as const;
    const overlap = (a: readonly [number, number], b: readonly [number, number]) => a[0] < b[1] && b[0] < a[1];
    expect(overlap(interval(trialOf("stock-apple")), interval(trialOf("stock-pear-dpr2")))).toBe(false);
    const fixture = ["answer-only-bb042", "scorecard-note-bb042", "api-note-bb042"].map((id) => interval(trialOf(id)));
    const pairs = [
      [0, 1],
      [0, 2],
      [1, 2],
    ].filter(([a, b]) => overlap(fixture[a!]!, fixture[b!]!));
    expect(pairs.length).toBeGreaterThan(0);
    for (const id of ["answer-only-bb042", "scorecard-note-bb042", "api-note-bb042"]) {
      expect(
        trialOf(id).verdict,
        `${id}: ${JSON.stringify(
          checksOf(id)
            .filter((c) => !c.pass)
            .map((c) => c.reason),
        )} ${trialOf(id).stopReason}`,
      ).toBe("passed");
    }
  });

  it("is reset by a command given the trial id, the workspace and the target URL", () => {
    const trial = trialOf("stock-cmd-reset");
    expect(trial.verdict).toBe("passed");
    const file = join(dir, `reset-${trial.id}.json`);
    expect(existsSync(file)).toBe(true);
    const seen = JSON.parse(readFileSync(file, "utf8")) as { workspace: string; url: string };
    expect(seen.workspace).toMatch(/workspace$/);
    expect(seen.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it("refuses a navigation to an origin outside the target", () => {
    expect(eventsOf("stock-cmd-reset")).toMatch(/http:\/\/127\.0\.0\.1:9\/elsewhere is not an allowed origin/);
  });

  it("ends a trial whose reset fails as environment_error, not as the agent's failure", () => {
    const trial = trialOf("stock-broken-reset");
    expect(trial.verdict).toBe("error");
    expect(trial.stopReason).toBe("environment_error");
    expect(eventsOf("stock-broken-reset")).toMatch(/reset POST http:\/\/127\.0\.0\.1:\d+\/reset-broken answered 500/);
  });
});

describe("checks on any app", () => {
  const by = (name: string) => checksOf("stock-apple").find((c) => c.name === name)!;

  it("http: passes on the app's JSON and fails for the right value, sending the secret without storing it", () => {
    expect(by("the app holds apple").pass).toBe(true);
    expect(by("wrong-http")).toMatchObject({
      pass: false,
      reason: expect.stringContaining("`/0/name` is 'apple', expected 'banana'"),
    });
    expect(checksOf("stock-apple").length).toBe(13);
    expect(JSON.stringify(checksOf("stock-apple"))).not.toContain(SECRET);
    expect(
      (by("the app holds apple").evidence.request as { headers: Record<string, string> }).headers.authorization,
    ).toBe("Bearer ${env:STOCK_TOKEN}");
    const db = readFileSync(join(dir, "umpire.db"));
    expect(db.includes(Buffer.from(SECRET))).toBe(false);
  });

  it("refuses an http check outside the target's origins (not judged, not the agent's fault)", () => {
    expect(by("outside-origin")).toMatchObject({
      pass: false,
      reason: expect.stringMatching(/^check crashed: .*not on an allowed origin of target stock/),
    });
  });

  it("storage: localStorage, cookie and sessionStorage of the trial's context", () => {
    expect(by("local")).toMatchObject({ pass: true, evidence: { value: JSON.stringify({ name: "apple", count: 1 }) } });
    expect(by("wrong-local")).toMatchObject({
      pass: false,
      reason: expect.stringContaining("is not set (keys there: "),
    });
    expect(by("cookie").pass).toBe(true);
    expect(by("session").pass).toBe(true);
  });

  it("command: trial variables in, exit code and output judged", () => {
    expect(by("command").pass, by("command").reason).toBe(true);
    expect(by("command").evidence.stdout).toContain(trialOf("stock-apple").id);
    expect(by("wrong-command")).toMatchObject({
      pass: false,
      reason: expect.stringContaining("exited with 3, expected 0"),
      evidence: { stdout: "nope\n" },
    });
  });

  it("page opens a path on the target; custom checks judge through the public API; effects come from the app's source", () => {
    expect(by("about-page").pass).toBe(true);
    expect(by("custom")).toMatchObject({ pass: true, reason: "the app holds 1 item(s)" });
    expect(by("wrong-custom")).toMatchObject({ pass: false, reason: "the app holds 1 item(s), expected 2" });
    expect(by("effects").pass).toBe(true);
  });
});
