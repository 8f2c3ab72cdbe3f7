/**
 * Every text a target or a task sends in a request gets the trial variables (issue 37, item 5): the
 * test walks the task and config schemas for every field that may hold text, holds each to one of two
 * lists (sent in a request, with the proof; or not sent, with why), and proves each sent field
 * interpolated by a real request to a real local server (recorder-app/app.mjs, started as the target's
 * own start command) that records what it received: the reset, the effects source, the version
 * source, the trial's browser (context headers and cookies, the start path) and the http and page
 * checks, all through umpire's own code.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../../src/browser/chromium.js";
import { runChecks } from "../../../src/checks/registry.js";
import type { CheckResult, PageProbe } from "../../../src/checks/types.js";
import { ConfigFileSchema } from "../../../src/config/schema.js";
import { startUrl } from "../../../src/runner/trial/environment.js";
import { newSeededContext } from "../../../src/runner/trial/trial-context.js";
import type { Target, TrialBrowserSeed } from "../../../src/targets/contract.js";
import { startWebTarget } from "../../../src/targets/web-target.js";
import { loadTasksOrThrow } from "../../../src/task/loader.js";
import { TaskFileSchema, type Task } from "../../../src/task/schema.js";
import { TargetDecl } from "../../../src/task/target-decl.js";
import { textFields } from "../../unit/house/schema-fields.js";

const APP = join(import.meta.dirname, "recorder-app", "app.mjs");
const TRIAL = "vars-run-0007";
const SECRET = "s3cret-value";

interface Recorded {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string;
}

/** What one run of every request source left, for the proofs below. */
interface Seen {
  recorded: Recorded[];
  target: Target;
  workspace: string;
  port: string;
}

const DECL = {
  baseUrl: "http://127.0.0.1:${PORT}",
  start: { command: ["node", APP], readyUrl: "/ready/${INSTANCE}-${PORT}" },
  allowedOrigins: ["http://localhost:${PORT}"],
  reset: {
    kind: "http",
    url: "/reset/${TRIAL_ID}",
    headers: { "x-reset": "${TRIAL_ID}:${env:REQ_SECRET}" },
    body: { trial: "${TRIAL_ID}", nested: ["${WORKSPACE}"] },
  },
  effects: { url: "/effects/${TRIAL_ID}", headers: { "x-namespace": "${TRIAL_ID}" } },
  context: {
    cookies: [{ name: "c-${TRIAL_ID}", value: "v-${TRIAL_ID}-${env:REQ_SECRET}", path: "/t/${TRIAL_ID}" }],
    headers: { "x-context": "${TRIAL_ID}" },
  },
  version: { url: "/version/${INSTANCE}" },
  isolated: true,
};

const TASK = `
id: vars
title: Every request field takes the trial variables
target: rec
instruction: Look at the page.
start: { path: "/t/\${TRIAL_ID}/start?w=\${WORKSPACE}" }
tools: [answer]
checks:
  - kind: http
    name: asks about the trial
    method: POST
    url: /check/\${TRIAL_ID}
    headers: { x-check: "\${TRIAL_ID}-\${env:REQ_SECRET}" }
    body: { id: "\${TRIAL_ID}", list: ["\${TARGET_URL}"] }
  - { kind: page, name: opens the trial's page, open: "/t/\${TRIAL_ID}/open", text: recorded }
reference:
  - { tool: answer, args: { content: done } }
`;

const find = (seen: Seen, method: string, url: string): Recorded => {
  const hit = seen.recorded.find((r) => r.method === method && r.url === url);
  if (!hit)
    throw new Error(`no ${method} ${url} reached the app; it saw ${seen.recorded.map((r) => r.url).join(", ")}`);
  return hit;
};
const browserStart = (s: Seen) => find(s, "GET", `/t/${TRIAL}/start?w=${s.workspace}`);

/** Each text field sent in a request, and what the app must have received for it. */
const SENT: Record<string, (s: Seen) => void> = {
  "targets.*.baseUrl": (s) => expect(s.target.baseUrl).toBe(`http://127.0.0.1:${s.port}`),
  "targets.*.start.readyUrl": (s) => find(s, "GET", `/ready/0-${s.port}`),
  // Not itself sent: where the trial's browser may go, so its ${PORT} must be the instance's.
  "targets.*.allowedOrigins[]": (s) => expect(s.target.origins).toContain(`http://localhost:${s.port}`),
  "targets.*.reset[kind=http].url": (s) => find(s, "POST", `/reset/${TRIAL}`),
  "targets.*.reset[kind=http].headers.*": (s) =>
    expect(find(s, "POST", `/reset/${TRIAL}`).headers["x-reset"]).toBe(`${TRIAL}:${SECRET}`),
  "targets.*.reset[kind=http].body": (s) =>
    expect(JSON.parse(find(s, "POST", `/reset/${TRIAL}`).body)).toEqual({ trial: TRIAL, nested: [s.workspace] }),
  "targets.*.effects.url": (s) => find(s, "GET", `/effects/${TRIAL}`),
  "targets.*.effects.headers.*": (s) => expect(find(s, "GET", `/effects/${TRIAL}`).headers["x-namespace"]).toBe(TRIAL),
  // The cookie reaches the start page only if its path was filled in too (/t/<trial id>).
  "targets.*.context.cookies[].name": (s) => expect(browserStart(s).headers.cookie).toContain(`c-${TRIAL}=`),
  "targets.*.context.cookies[].value": (s) => expect(browserStart(s).headers.cookie).toContain(`=v-${TRIAL}-${SECRET}`),
  "targets.*.context.cookies[].path": (s) => expect(browserStart(s).headers.cookie).toBeTruthy(),
  "targets.*.context.headers.*": (s) => expect(browserStart(s).headers["x-context"]).toBe(TRIAL),
  "targets.*.version.url": (s) => find(s, "GET", "/version/0"),
  "start.path": (s) => browserStart(s),
  "checks[kind=http].url": (s) => find(s, "POST", `/check/${TRIAL}`),
  "checks[kind=http].headers.*": (s) =>
    expect(find(s, "POST", `/check/${TRIAL}`).headers["x-check"]).toBe(`${TRIAL}-${SECRET}`),
  "checks[kind=http].body": (s) =>
    expect(JSON.parse(find(s, "POST", `/check/${TRIAL}`).body)).toEqual({ id: TRIAL, list: [s.target.baseUrl] }),
  "checks[kind=page].open": (s) => find(s, "GET", `/t/${TRIAL}/open`),
};

/** Text fields that umpire never sends in a request (a prefix covers a whole part), and why. */
const NOT_SENT: Record<string, string> = {
  $schema: "the editor's schema link",
  id: "names the task",
  title: "shown in reports",
  instruction: "the prompt (the model's request, not the app's)",
  "givens[]": "the prompt",
  target: "names a target",
  "start.scenario": "the fixture's scenario, sent as a fixed word",
  "tools[]": "the model's tools",
  "permissions.": "limits umpire enforces, never sent",
  observation: "how the model is shown the page",
  dialogs: "who answers dialogs",
  "repetition.": "selectors read in the page",
  "marks.": "selectors read in the page",
  "checks[kind=file].": "read from the workspace",
  "checks[kind=page].name": "a label",
  "checks[kind=page].url": "a matcher on the page's URL",
  "checks[kind=page].selector": "read in the page",
  "checks[kind=page].text": "a matcher",
  "checks[kind=effects].": "matched against the effects log already read",
  "checks[kind=answer].": "matched against the answer",
  "checks[kind=http].name": "a label",
  "checks[kind=episode].name": "a label",
  "checks[kind=http].json[]": "expectations on the response",
  "checks[kind=http].contains[]": "a matcher on the response",
  "checks[kind=storage].": "read from the trial's browser storage",
  "checks[kind=command].": "a local command (its variables come as environment variables)",
  "checks[kind=custom].": "the custom check's module sends what it sends",
  "reference[]": "the gold steps",
  "negatives.": "the negative steps",
  "tags[]": "labels",
  "targets.*.start.command": "a local command",
  "targets.*.start.cwd": "a local folder",
  "targets.*.start.env.*": "the start command's environment",
  "targets.*.reset[kind=command].": "a local command (its variables come as environment variables)",
  "targets.*.reset[kind=restore].": "local paths",
  "targets.*.marks.": "selectors read in the page",
  "targets.*.testIdAttribute": "read in the page",
  "targets.*.context.localStorage.*": "seeded in the browser, not sent",
  "targets.*.context.sessionStorage.*": "seeded in the browser, not sent",
  "targets.*.context.storageState": "a local file",
  "targets.*.version.command": "a local command",
  "targets.*.version.cwd": "a local folder",
};

const notSent = (field: string) => Object.keys(NOT_SENT).some((k) => field === k || field.startsWith(k));

const dirs: string[] = [];
let browser: Browser | undefined;
let target: Target | undefined;
let seen: Seen;
let results: CheckResult[];

/** Plays every request source once for one trial, the way a run does. */
async function sendEverything(task: Task, workspace: string): Promise<Recorded[]> {
  const t = target!;
  const seed: TrialBrowserSeed = await t.prepareTrial({ trialId: TRIAL, workspaceDir: workspace, task });
  browser = await launchChromium();
  const context = await newSeededContext(browser, task, seed);
  const page = await context.newPage();
  await page.goto(startUrl(task, t, { trialId: TRIAL, workspaceDir: workspace }));
  await t.effects(TRIAL);
  await t.version?.();
  const probe: PageProbe = {
    current: async () => page,
    isTaskPage: () => true,
    open: async (pathOrUrl) => {
      const opened = await context.newPage();
      await opened.goto(new URL(pathOrUrl, `${t.baseUrl}/`).toString());
      return opened;
    },
  };
  results = await runChecks(task.checks, {
    workspaceDir: workspace,
    effects: [],
    answer: null,
    page: probe,
    trialId: TRIAL,
    target: { name: t.name, baseUrl: t.baseUrl, vars: t.vars, isAllowedUrl: () => true },
    env: { REQ_SECRET: SECRET },
  });
  return (await (await fetch(`${t.baseUrl}/__recorded`)).json()) as Recorded[];
}

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), "umpire-request-vars-"));
  const workspace = join(dir, "workspace");
  dirs.push(dir);
  mkdirSync(join(dir, "tasks"));
  mkdirSync(workspace);
  writeFileSync(join(dir, "tasks", "vars.yaml"), TASK);
  const decl = TargetDecl.parse(DECL);
  const task = loadTasksOrThrow(["tasks/vars.yaml"], { cwd: dir, targets: { rec: decl } })[0]!;
  target = await startWebTarget({
    name: "rec",
    decl,
    configDir: dir,
    logDir: dir,
    env: { ...process.env, REQ_SECRET: SECRET },
  });
  const recorded = await sendEverything(task, workspace);
  seen = { recorded, target, workspace, port: new URL(target.baseUrl).port };
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await target?.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe("every text sent in a request gets the trial variables", () => {
  it("every text field of a task and a target is either sent (and proved below) or listed as not sent", () => {
    const fields = [
      ...textFields(TaskFileSchema),
      ...textFields(ConfigFileSchema).filter((f) => f.startsWith("targets.")),
    ];
    const unlisted = fields.filter((f) => !(f in SENT) && !notSent(f));
    expect(unlisted, "add each to SENT (with a proof) or NOT_SENT (with why)").toEqual([]);
    const gone = Object.keys(SENT).filter((f) => !fields.includes(f));
    expect(gone, "SENT names fields the schemas no longer have").toEqual([]);
  });

  it("the checks that sent requests passed on what they received", () => {
    expect(results.map((r) => [r.name, r.pass, r.reason])).toEqual([
      ["asks about the trial", true, expect.any(String)],
      ["opens the trial's page", true, expect.any(String)],
    ]);
  });

  it.each(Object.keys(SENT))("%s reached the app filled in", (field) => {
    SENT[field]!(seen);
  });

  it("no request the app received carries a ${NAME} as written", () => {
    const text = JSON.stringify(seen.recorded);
    expect(text).not.toMatch(/\$\{|%7B[A-Z_]+%7D/);
  });
});
