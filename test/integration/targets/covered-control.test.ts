/**
 * The covered-control wording of stuck reports on a site that is not the fixture: a real app
 * (started by its target's start command) shows a newsletter modal whose backdrop covers the
 * Save button. Each task's gold keeps clicking Save (a mark declared by role and name); run
 * through the real CLI with the embedded reference model, real Chromium and the real SQLite store,
 * the trial must stop `stuck` with the fixture's wording, naming the control and its cover by the
 * cover's mark, declared by selector or by role: "Save stayed covered by newsletter after N
 * attempts". (The backdrop itself carries no name; the dialog it holds does, as on the fixture.)
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/open.js";
import { execChild } from "../../support/cli-child.js";

const run = execChild;
const ROOT = resolve(import.meta.dirname, "../../..");
const APP = join(import.meta.dirname, "app", "app.mjs");

const CONFIG = `
targets:
  promo-app:
    baseUrl: http://127.0.0.1:\${PORT}
    start: { command: [node, ${JSON.stringify(APP)}], readyUrl: / }
    reset: { kind: http, url: /reset }
    marks:
      save: { role: button, name: Save, exact: true }
`;

/** The same page and gold; the cover is a mark of the task, declared by selector or by role and name. */
const task = (id: string, cover: string) => `
id: ${id}
title: Save an item while a newsletter modal covers the form
target: promo-app
instruction: In the stock app, save an item named plum (${id}).
givens: [plum]
start: { path: /promo }
tools: [click, write, answer]
marks:
  ${cover}
checks:
  - { kind: storage, name: plum was saved, area: localStorage, key: last-saved, json: [{ path: name, equals: plum }] }
reference:
${Array.from({ length: 8 }, () => "  - { tool: click, target: save, args: { element: Save button } }").join("\n")}
  - { tool: answer, args: { content: Saved plum } }
`;

const TASKS: Record<string, string> = {
  "promo-cover-by-selector": task("promo-cover-by-selector", `newsletter: { selector: ".newsletter" }`),
  "promo-cover-by-role": task("promo-cover-by-role", `signup-dialog: { role: dialog, name: Get our newsletter }`),
};

let dir: string;
let code: number;
let stderr: string;
interface Trial {
  id: string;
  taskId: string;
  verdict: string | null;
  stopReason: string | null;
  stopDetail: string | null;
  folder: string | null;
}
const trials = new Map<string, { trial: Trial; skipped: string[]; events: string }>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "umpire-covered-"));
  const project = join(dir, "project");
  mkdirSync(join(project, "tasks"), { recursive: true });
  writeFileSync(join(project, "umpire.config.yaml"), CONFIG);
  for (const [id, text] of Object.entries(TASKS)) writeFileSync(join(project, "tasks", `${id}.yaml`), text);
  const args = [
    "bin/umpire.js",
    "run",
    project,
    "--model",
    "reference",
    "--mode",
    "structured",
    "--db",
    join(dir, "umpire.db"),
    "--out",
    join(dir, "out"),
    "--json",
  ];
  const out = await run("node", args, { cwd: ROOT, maxBuffer: 50_000_000, timeout: 240_000 }).then(
    (r) => ({ ...r, code: 0 }),
    (e: { stdout: string; stderr: string; code: number }) => ({ stdout: e.stdout, stderr: e.stderr, code: e.code }),
  );
  code = out.code;
  stderr = out.stderr;
  const store = openStore(join(dir, "umpire.db"));
  const runs = store.listRuns();
  if (runs.length === 0) throw new Error(`the run stored nothing (exit ${code}):\n${stderr}`);
  const runDir = join(dir, "out", readdirSync(join(dir, "out"))[0]!);
  for (const trial of store.trials(runs[0]!.id) as unknown as Trial[]) {
    const skipped = store
      .actions(trial.id)
      .filter((a) => a.status === "skipped")
      .map((a) => a.message ?? "");
    trials.set(trial.taskId, {
      trial,
      skipped,
      events: readFileSync(join(runDir, trial.folder!, "events.jsonl"), "utf8"),
    });
  }
  store.close();
}, 300_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("covered control on a non-fixture target", () => {
  it.each([
    ["promo-cover-by-selector", "newsletter"],
    ["promo-cover-by-role", "signup-dialog"],
  ])("%s: stops stuck, naming the covered control and the mark that covers it (%s)", (taskId, cover) => {
    expect(stderr).not.toMatch(/Error:/);
    const { trial, events } = trials.get(taskId)!;
    expect(trial.stopReason, events.slice(-3000)).toBe("stuck");
    expect(trial.stopDetail).toMatch(new RegExp(`Save stayed covered by ${cover} after \\d+ attempts to click`));
    // The agent kept clicking a control it could not reach: its failure, judged by the checks.
    expect(trial.verdict).toBe("failed");
  });

  it.each([
    ["promo-cover-by-selector", "newsletter"],
    ["promo-cover-by-role", "signup-dialog"],
  ])("%s: the reflection that paused the trial first says the same", (taskId, cover) => {
    const { skipped } = trials.get(taskId)!;
    expect(skipped.length).toBeGreaterThanOrEqual(1);
    expect(skipped[0]).toMatch(new RegExp(`paused: Save stayed covered by ${cover}\\b`));
  });

  it("exits 1: some trial failed", () => {
    expect(code).toBe(1);
  });
});
