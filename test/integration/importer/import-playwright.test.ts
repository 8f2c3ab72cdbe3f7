/**
 * `umpire import playwright` and `umpire negatives` through the real CLI (`node bin/umpire.js` as a
 * child process) on a temporary copy of the TodoMVC example: its own Playwright Test suite runs with
 * its config and webServer (real Chromium, the real TodoMVC app from npm), one test becomes a draft
 * task on the example's declared target, its gold's mutations are played on the embedded reference
 * model (kept when caught, named as check gaps when not), and the result self-tests sound. Only one
 * Playwright test is imported (`--grep`, passed through to Playwright) to keep it short.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { requireChromium } from "../../../src/browser/chromium.js";
import { type CliResult, runCli } from "../../support/cli-child.js";

const ROOT = resolve(import.meta.dirname, "../../..");
let dir: string;

/** `umpire <args>` in the copied suite's folder, as a user runs it there. */
function umpire(args: string[]): Promise<CliResult> {
  // A port of its own, so a parallel run of the example's suite cannot collide with this one.
  // The example's Playwright config launches the Chromium umpire uses (UMPIRE_CHROMIUM), as its own tests would.
  const env = {
    UMPIRE_CHROMIUM: requireChromium().path,
    TODOMVC_PORT: String(20_000 + (process.pid % 20_000)),
    CI: "1",
  };
  return runCli(args, { cwd: dir, env });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-import-"));
  cpSync(join(ROOT, "examples/todomvc"), dir, {
    recursive: true,
    filter: (src) => !src.includes(`${join("tasks", "imported")}`),
  });
  // The copy finds @playwright/test, playwright and the todomvc package where a project has them.
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("umpire import playwright", () => {
  it("turns a Playwright test into a draft task on the declared target, keeps the mutations its checks catch and names the gaps", async () => {
    const configBefore = readFileSync(join(dir, "umpire.config.yaml"), "utf8");
    const imported = await umpire([
      "import",
      "--negatives",
      "--concurrency",
      "2",
      "playwright",
      "--grep",
      "first of two",
    ]);
    expect(imported.code, imported.stderr).toBe(0);
    const file = join(dir, "tasks/imported/completes-the-first-of-two-todos.yaml");
    expect(imported.stdout).toContain("wrote tasks/imported/completes-the-first-of-two-todos.yaml");
    expect(imported.stdout).toContain("umpire.config.yaml: reused target todomvc");
    // The example's config declares the target and its marks already: nothing to add, comments kept.
    expect(readFileSync(join(dir, "umpire.config.yaml"), "utf8")).toBe(configBefore);

    const text = readFileSync(file, "utf8");
    expect(text).toContain("# TODO: write as a user would ask");
    const task = parse(text);
    expect(task).toMatchObject({ draft: true, target: "todomvc", start: { path: "/" } });
    // getByTestId('new-todo') with testIdAttribute id is the target's test id; the CSS toggle is its first-toggle.
    expect(task.reference).toEqual([
      { tool: "click", target: "new-todo" },
      { tool: "write", args: { content: "Walk the dog", press_enter: true } },
      { tool: "write", args: { content: "Feed the cat", press_enter: true } },
      { tool: "click", target: "first-toggle" },
      { tool: "answer", args: { content: "Done" } },
    ]);
    expect(task.checks.map((c: { selector?: string }) => c.selector)).toEqual([
      '[id="todo-count"]',
      "#todo-list li.completed >> nth=0",
      "#todo-list li.completed >> nth=1",
    ]);

    // Dropping the toggle is caught and kept; clicking the other toggle is not: the checks count, they do not name.
    expect(imported.stdout).toMatch(/kept mutation-drop-step-4: dropping step 4 \(click first-toggle\) failed/);
    expect(imported.stdout).toContain(
      "check gap: aiming step 4 (click first-toggle) at second-toggle passed every check: the checks do not see whether first-toggle or second-toggle was clicked",
    );
    expect(Object.keys(task.negatives)).toEqual(["mutation-drop-step-4"]);

    const refused = await umpire(["validate", "tasks/imported"]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toContain("this task is a draft");

    const selfTest = await umpire([
      "validate",
      "--self-test",
      "--allow-drafts",
      "--concurrency",
      "2",
      "tasks/imported",
    ]);
    expect(selfTest.code, selfTest.stdout + selfTest.stderr).toBe(0);
    expect(selfTest.stdout).toContain("negative:mutation-drop-step-4 failed: ok");
    expect(selfTest.stdout).toContain("every task is sound");
  }, 600_000);
});
