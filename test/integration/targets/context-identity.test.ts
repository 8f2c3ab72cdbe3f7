/**
 * The trial's identity reaches its browser (a target's `context:`), so a namespaced app runs trials in
 * parallel: through the real CLI, three trials at once on a real multi-tenant app, each seeing its own
 * tenant in the header, the cookie, the start path's ${TRIAL_ID}, and the localStorage and
 * sessionStorage seeds; without the context, the same app's trials share one counter and fail.
 * A trial variable that does not exist is a validation error naming the file and field.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/open.js";
import { runCli } from "../../support/cli.js";
import { runInProcess } from "../../support/cli-in-process.js";

const APP = join(import.meta.dirname, "tenant-app", "app.mjs");
let dir: string;

const target = (name: string, context: string) => `
  ${name}:
    baseUrl: http://127.0.0.1:\${PORT}
    start: { command: [node, ${JSON.stringify(APP)}] }
    marks: { add: { role: button, name: Add one } }
    isolated: true
${context}`;

const CONFIG = `targets:${target(
  "tenants",
  `    context:
      headers: { x-tenant: "\${TRIAL_ID}" }
      cookies: [{ name: tenant, value: "\${TRIAL_ID}" }]
      localStorage: { tenant: "\${TRIAL_ID}" }
      sessionStorage: { tab: "tab-\${TRIAL_ID}" }
      storageState: state.json`,
)}${target("shared", "")}${target("accepting", "    dialogs: accept\n")}${target("dismissing", "    dialogs: dismiss\n")}`;

/** A Playwright storage-state file: one cookie the app reports as `file`. */
const STATE = JSON.stringify({
  cookies: [
    {
      name: "from_file",
      value: "yes",
      domain: "127.0.0.1",
      path: "/",
      expires: -1,
      httpOnly: false,
      secure: false,
      sameSite: "Lax",
    },
  ],
  origins: [],
});

const task = (id: string, on: string) => `
id: ${id}
title: Add one on ${on}
target: ${on}
instruction: Press Add one once.
start: { path: "/?t=\${TRIAL_ID}" }
tools: [click, answer]
checks:
  - kind: http
    name: this trial's tenant counted one, and its identity arrived every way
    url: "/api/seen?tenant=\${TRIAL_ID}"
    json:
      - { path: count, equals: 1 }
      - { path: cookie, equals: true }
      - { path: file, equals: true }
      - { path: query, equals: true }
      - { path: local, equals: true }
      - { path: session, equals: true }
reference:
  - { tool: click, target: add }
  - { tool: answer, args: { content: Added one } }
`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-context-"));
  mkdirSync(join(dir, "tasks"));
  writeFileSync(join(dir, "umpire.config.yaml"), CONFIG);
  writeFileSync(join(dir, "state.json"), STATE);
  writeFileSync(join(dir, "tasks", "tenant.yaml"), task("tenant-add", "tenants"));
  writeFileSync(join(dir, "tasks", "shared.yaml"), task("shared-add", "shared"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function verdicts(db: string): { taskId: string; verdict: string | null }[] {
  const store = openStore(db);
  try {
    const runId = store.listRuns()[0]!.id;
    return (store.trials(runId) as unknown as { taskId: string; verdict: string | null }[]).map((t) => ({
      taskId: t.taskId,
      verdict: t.verdict,
    }));
  } finally {
    store.close();
  }
}

describe("a target's browser context carries the trial's identity", () => {
  it("three trials at once on a namespaced app each see their own tenant, every way; without the context they collide", async () => {
    const db = join(dir, "umpire.db");
    const result = await runCli(
      [
        "run",
        "tasks/tenant.yaml",
        "tasks/shared.yaml",
        "--mode",
        "structured",
        "--repeat",
        "3",
        "--concurrency",
        "6",
        "--db",
        db,
        "--out",
        join(dir, "out"),
      ],
      { cwd: dir },
    );
    const all = verdicts(db);
    const of = (id: string) => all.filter((t) => t.taskId === id).map((t) => t.verdict);
    expect(of("tenant-add"), result.stderr).toEqual(["passed", "passed", "passed"]);
    // The same app without a context: all trials count on one tenant, the storage seeds never arrive.
    expect(of("shared-add")).toEqual(["failed", "failed", "failed"]);
    expect(result.code).not.toBe(0);
  });

  it("a target's dialogs policy answers the app's confirm: accept lets it add two, dismiss adds none", async () => {
    const confirmTask = (on: string) => `
id: add-two-on-${on}
title: Add two on ${on}
target: ${on}
instruction: Press Add two once.
tools: [click, answer]
checks:
  - { kind: http, name: two added, url: "/api/seen?tenant=(no tenant header)", json: [{ path: count, equals: 2 }] }
reference:
  - { tool: click, target: add-two }
  - { tool: answer, args: { content: Added two } }
`;
    const tasks = join(dir, "confirm-tasks");
    mkdirSync(tasks);
    writeFileSync(join(tasks, "accepting.yaml"), confirmTask("accepting"));
    writeFileSync(join(tasks, "dismissing.yaml"), confirmTask("dismissing"));
    const db = join(dir, "confirm.db");
    const result = await runCli(
      ["run", "confirm-tasks", "--mode", "structured", "--db", db, "--out", join(dir, "out-confirm")],
      { cwd: dir },
    );
    const all = verdicts(db);
    expect(all.find((t) => t.taskId === "add-two-on-accepting")?.verdict, result.stderr).toBe("passed");
    expect(all.find((t) => t.taskId === "add-two-on-dismissing")?.verdict).toBe("failed");
  });

  it("a ${NAME} that is not a trial variable is an error naming the file and the field", async () => {
    const bad = join(dir, "bad");
    mkdirSync(join(bad, "tasks"), { recursive: true });
    writeFileSync(join(bad, "umpire.config.yaml"), CONFIG.replace('x-tenant: "${TRIAL_ID}"', 'x-tenant: "${TRIALID}"'));
    writeFileSync(
      join(bad, "tasks", "t.yaml"),
      task("tenant-typo", "tenants").replace("/?t=${TRIAL_ID}", "/?t=${TRIAL}"),
    );
    const config = await runInProcess(["validate", "tasks"], { cwd: bad });
    expect(config.code).not.toBe(0);
    expect(config.stdout + config.stderr).toMatch(
      /umpire\.config\.yaml[\s\S]*context[\s\S]*x-tenant[\s\S]*\$\{TRIALID\} is not a trial variable/,
    );
    writeFileSync(join(bad, "umpire.config.yaml"), CONFIG);
    const taskFile = await runInProcess(["validate", "tasks"], { cwd: bad });
    expect(taskFile.code).not.toBe(0);
    expect(taskFile.stdout + taskFile.stderr).toMatch(
      /t\.yaml[\s\S]*start\.path[\s\S]*\$\{TRIAL\} is not a trial variable/,
    );
  });
});
