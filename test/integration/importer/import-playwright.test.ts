/**
 * `umpire import playwright` through the real CLI (`node bin/umpire.js` as a child process) on a
 * temporary copy of the TodoMVC example: its own Playwright Test suite runs with its config and
 * webServer (real Chromium, the real TodoMVC app from npm), every test becomes a draft task on the
 * example's declared target, and the import plays the drafts itself (the state the gold changed,
 * answer-now, the gold's mutations). Issue #39's measure: with no hand edit, the drafts fail the
 * three kinds of wrong agent: one that does nothing (answer-now), one that changes the wrong record
 * (the other toggle, a near-miss title) and one that toggles both. No UMPIRE_CHROMIUM is given: the
 * import hands Playwright the Chromium umpire resolves.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { type CliResult, runCli } from "../../support/cli-child.js";

const ROOT = resolve(import.meta.dirname, "../../..");
let dir: string;

/** `umpire <args>` in the copied suite's folder, as a user runs it there. */
function umpire(args: string[]): Promise<CliResult> {
  // A port of its own, so a parallel run of the example's suite cannot collide with this one.
  // The example's Playwright config launches the Chromium umpire uses (UMPIRE_CHROMIUM), as its own tests would.
  const env = { TODOMVC_PORT: String(20_000 + (process.pid % 20_000)), CI: "1", UMPIRE_CHROMIUM: "" };
  // The import plays every draft's probes: on two shared cores that outlasts the default hang guard.
  return runCli(args, { cwd: dir, env, killAfterMs: 1_200_000 });
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

interface SelfTestJson {
  selfTest: { sound: boolean; results: { task: string; probe: { name: string }; verdict: string }[] };
}

const TASKS = [
  "adds-a-todo",
  "clears-completed-todos",
  "completes-the-first-of-two-todos",
  "shows-only-the-active-todos",
];

describe("umpire import playwright", () => {
  it("writes drafts whose checks fail a do-nothing, a wrong-record and a toggle-both agent, with no hand edit", async () => {
    const configBefore = readFileSync(join(dir, "umpire.config.yaml"), "utf8");
    const imported = await umpire(["import", "--concurrency", "2", "playwright"]);
    expect(imported.code, imported.stdout + imported.stderr).toBe(0);
    for (const id of TASKS) expect(imported.stdout).toContain(`wrote tasks/imported/${id}.yaml`);
    expect(imported.stdout).toContain("umpire.config.yaml: reused target todomvc");
    // The example's config declares the target and its marks already: nothing to add, comments kept.
    expect(readFileSync(join(dir, "umpire.config.yaml"), "utf8")).toBe(configBefore);

    const file = join(dir, "tasks/imported/completes-the-first-of-two-todos.yaml");
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
    // The test's expects count completed todos; the state the gold left names which one.
    expect(task.checks.at(-1)).toEqual({
      kind: "storage",
      name: 'state: localStorage "todos-angularjs" as the gold left it',
      area: "localStorage",
      key: "todos-angularjs",
      json: [
        { path: "", length: 2 },
        { path: "/0/title", equals: "Walk the dog" },
        { path: "/0/completed", equals: true },
        { path: "/1/title", equals: "Feed the cat" },
        { path: "/1/completed", equals: false },
      ],
    });
    expect(text).toMatch(
      /# shown to fail: answer-now, .*mutation-sibling-4.*mutation-both-4.* \(umpire import\)\n {2}- kind: storage/,
    );
    // Before #39 the other toggle passed every check; now no mutation does.
    expect(imported.stdout).not.toContain("check gap");
    expect(imported.stdout).toContain(
      "completes-the-first-of-two-todos: 4 of 4 checks shown to fail a wrong trajectory",
    );
    expect(Object.keys(task.negatives)).toEqual(
      expect.arrayContaining(["mutation-drop-step-4", "mutation-sibling-4", "mutation-both-4"]),
    );

    const refused = await umpire(["validate", "tasks/imported"]);
    expect(refused.code).toBe(2);
    expect(refused.stdout).toContain("this task is a draft");

    // The drafts as the import left them, self-tested: every wrong agent fails, every gold passes.
    const selfTest = await umpire([
      "validate",
      "--self-test",
      "--allow-drafts",
      "--json",
      "--concurrency",
      "2",
      "tasks/imported",
    ]);
    expect(selfTest.code, selfTest.stdout + selfTest.stderr).toBe(0);
    const { results, sound } = (JSON.parse(selfTest.stdout) as SelfTestJson).selfTest;
    expect(sound).toBe(true);
    const verdicts = (id: string, pattern: RegExp) =>
      results.filter((r) => r.task === id && pattern.test(r.probe.name)).map((r) => r.verdict);
    for (const id of TASKS) {
      expect(verdicts(id, /^gold\/(structured|tools)$/), id).toEqual(["passed", "passed"]);
      // Does nothing.
      expect(verdicts(id, /^answer-now$/), id).toEqual(["failed"]);
      // Changes the wrong record: the other control, or a near-miss value.
      const wrongRecord = verdicts(id, /^negative:mutation-(sibling|near-miss)-/);
      expect(wrongRecord.length, id).toBeGreaterThan(0);
      expect(new Set(wrongRecord), id).toEqual(new Set(["failed"]));
    }
    // Toggles both, in the two tests that toggle one of two todos.
    for (const id of ["completes-the-first-of-two-todos", "clears-completed-todos"])
      expect(verdicts(id, /^negative:mutation-both-/), id).toEqual(["failed"]);
  }, 1_800_000);
});
