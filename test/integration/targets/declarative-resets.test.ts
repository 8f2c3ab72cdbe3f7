/**
 * Declarative resets for apps that keep state in one server process, through the real CLI: `restore`
 * puts the app's data folder back from a seed copy (restarting the app so it reads it) and `restart`
 * restarts an app whose state lives in memory; two trials in a row each start from an empty list,
 * where the same app with no reset shows the first trial's item to the second. Declarations that
 * cannot work are config errors naming the field.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/open.js";
import { runCli } from "../../support/cli.js";
import { runInProcess } from "../../support/cli-in-process.js";

const APP = join(import.meta.dirname, "stateful-app", "app.mjs");
let dir: string;

const target = (name: string, env: string, reset: string) => `
  ${name}:
    baseUrl: http://127.0.0.1:\${PORT}
    start: { command: [node, ${JSON.stringify(APP)}], env: { ${env} } }
    marks: { add: { role: button, name: Add item } }
${reset ? `    reset: ${reset}\n` : ""}`;

const CONFIG = `targets:${target("restored", "DATA_DIR: data", "{ kind: restore, from: seed, to: data }")}${target("restarted", "", "{ kind: restart }")}${target("kept", "", "")}`;

const task = (on: string) => `
id: add-on-${on}
title: Add an item on ${on}
target: ${on}
instruction: Add one item.
tools: [click, answer]
checks:
  - { kind: http, name: exactly one item, url: /api/items, json: [{ path: "", length: 1 }] }
reference:
  - { tool: click, target: add }
  - { tool: answer, args: { content: Added } }
`;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-resets-"));
  mkdirSync(join(dir, "tasks"));
  mkdirSync(join(dir, "seed"));
  writeFileSync(join(dir, "seed", "items.json"), "[]");
  writeFileSync(join(dir, "umpire.config.yaml"), CONFIG);
  for (const on of ["restored", "restarted", "kept"]) writeFileSync(join(dir, "tasks", `${on}.yaml`), task(on));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("declarative resets", () => {
  it("restore and restart give every trial the seed's state; no reset leaks the first trial's item into the second", async () => {
    const db = join(dir, "umpire.db");
    const result = await runCli(
      ["run", "tasks", "--mode", "structured", "--repeat", "2", "--db", db, "--out", join(dir, "out")],
      { cwd: dir },
    );
    const store = openStore(db);
    const trials = store.trials(store.listRuns()[0]!.id) as unknown as { taskId: string; verdict: string }[];
    store.close();
    const of = (id: string) => trials.filter((t) => t.taskId === id).map((t) => t.verdict);
    expect(of("add-on-restored"), result.stderr).toEqual(["passed", "passed"]);
    expect(of("add-on-restarted")).toEqual(["passed", "passed"]);
    expect(of("add-on-kept")).toEqual(["passed", "failed"]);
    // The app wrote its item into data/, and the seed itself was never touched.
    expect(JSON.parse(readFileSync(join(dir, "data", "items.json"), "utf8"))).toHaveLength(1);
    expect(readFileSync(join(dir, "seed", "items.json"), "utf8")).toBe("[]");
  });

  it("a restart reset without a start command, or on an isolated target, is a config error naming the field", async () => {
    const bad = join(dir, "bad");
    mkdirSync(join(bad, "tasks"), { recursive: true });
    writeFileSync(join(bad, "tasks", "t.yaml"), task("broken"));
    writeFileSync(
      join(bad, "umpire.config.yaml"),
      "targets:\n  broken:\n    baseUrl: http://127.0.0.1:3999\n    reset: { kind: restart }\n",
    );
    const noStart = await runInProcess(["validate", "tasks"], { cwd: bad });
    expect(noStart.code).not.toBe(0);
    expect(noStart.stdout + noStart.stderr).toMatch(
      /umpire\.config\.yaml[\s\S]*reset\.kind[\s\S]*restarts the start command, and this target has none/,
    );
    writeFileSync(
      join(bad, "umpire.config.yaml"),
      `targets:${target("broken", "", "{ kind: restore, from: seed, to: data }")}    isolated: true\n`,
    );
    const isolated = await runInProcess(["validate", "tasks"], { cwd: bad });
    expect(isolated.code).not.toBe(0);
    expect(isolated.stdout + isolated.stderr).toMatch(
      /isolated[\s\S]*a restore reset changes the app under every trial running on it/,
    );
  });
});
