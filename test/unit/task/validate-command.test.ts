/** `umpire validate` through the real CLI entry, with a fake io that captures output. */
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import type { CommandIO } from "../../../src/cli/io.js";
import { REPO_ROOT, tempTasks, validTask } from "./helpers.js";

function fakeIO(cwd: string): { io: CommandIO; out: () => string; err: () => string } {
  const capture = () => {
    const stream = new PassThrough();
    let text = "";
    stream.on("data", (chunk) => (text += chunk.toString()));
    return { stream, read: () => text };
  };
  const stdout = capture();
  const stderr = capture();
  return {
    io: { stdout: stdout.stream, stderr: stderr.stream, env: {}, cwd, signal: new AbortController().signal },
    out: stdout.read,
    err: stderr.read,
  };
}

const temp = tempTasks();
afterAll(() => temp.cleanup());

describe("umpire validate", () => {
  it("exits 0 for the project's tasks/ and lists every task", async () => {
    const { io, out, err } = fakeIO(REPO_ROOT);
    expect(await main(["validate"], io)).toBe(0);
    expect(out()).toContain("scorecard-note-bb042");
    expect(out()).toMatch(/(\d+) of \1 task files valid; 0 errors/);
    expect(err()).toBe("");
  });

  it("exits 2 for a broken file, with a clear message and no stack trace", async () => {
    temp.write("broken/broken-task.yaml", "id: broken-task\ntitle: [oops\n");
    temp.write("types/types-task.yaml", { ...validTask("types-task"), limits: { turns: "ten" }, tools: ["clik"] });
    temp.write("dups/a.yaml", validTask("same"));
    temp.write("dups/b.yaml", validTask("same"));
    for (const [folder, expected] of [
      ["broken", /broken-task\.yaml:\d+: malformed YAML/],
      ["types", /types-task\.yaml:\d+: limits\.turns: expected a number, got text "ten"/],
      ["types", /tools\[0\]: unknown tool "clik" \(fix: did you mean 'click'\?\)/],
      ["dups", /dups\/a\.yaml:1: id: id "same" is also used by dups\/b\.yaml/],
    ] as const) {
      const { io, out, err } = fakeIO(temp.dir);
      expect(await main(["validate", folder], io)).toBe(2);
      const all = out() + err();
      expect(all).toMatch(expected);
      expect(all).toContain("invalid");
      expect(all).not.toMatch(/\n\s+at .*:\d+:\d+/); // no stack frames
      expect(all).not.toContain("internal error");
    }
  });

  it("exits 2 for a path that names nothing", async () => {
    const { io, out } = fakeIO(temp.dir);
    expect(await main(["validate", "missing-task"], io)).toBe(2);
    expect(out()).toContain('no task file, folder or task id named "missing-task"');
  });

  it("exits 2 with a one-line message when the default tasks/ folder is missing", async () => {
    const { io, err } = fakeIO(temp.dir);
    expect(await main(["validate"], io)).toBe(2);
    expect(err()).toMatch(/^umpire: cannot read the task folder tasks/);
    expect(err()).not.toMatch(/\n\s+at /);
  });

  it("finds tasks in subfolders (tasks/imported/); none at all is exit 2 naming where it looked, for validate and run --list (#39)", async () => {
    const project = mkdtempSync(join(tmpdir(), "umpire-subfolders-"));
    mkdirSync(join(project, "tasks", "imported"), { recursive: true });
    const { io: emptyIo, out: emptyOut, err: emptyErr } = fakeIO(project);
    expect(await main(["validate"], emptyIo)).toBe(2);
    expect(emptyOut()).toBe("");
    expect(emptyErr()).toContain("validate: no task files (*.yaml) in tasks/, tasks/imported/, subfolders included");
    const { io: listIo, err: listErr } = fakeIO(project);
    expect(await main(["run", "--list", "--db", join(project, "none.db")], listIo)).toBe(2);
    expect(listErr()).toContain("run: no task files (*.yaml) in tasks/, tasks/imported/, subfolders included");
    expect(listErr()).not.toContain("selects none");

    writeFileSync(join(project, "tasks", "imported", "sub-task.yaml"), JSON.stringify(validTask("sub-task")));
    const { io, out } = fakeIO(project);
    expect(await main(["validate"], io)).toBe(0);
    expect(out()).toContain("sub-task");
    expect(out()).toContain("1 of 1 task file valid");
  });

  it("checks that a restore reset's from: exists, relative to the config file (#39)", async () => {
    const project = mkdtempSync(join(tmpdir(), "umpire-restore-from-"));
    mkdirSync(join(project, "tasks"));
    writeFileSync(join(project, "tasks", "sample-task.yaml"), JSON.stringify(validTask("sample-task")));
    const config = (from: string) =>
      `targets:\n  app:\n    baseUrl: http://127.0.0.1:\${PORT}\n    start: { command: npm start }\n    reset: { kind: restore, from: ${from}, to: ./data }\n`;
    writeFileSync(join(project, "umpire.config.yaml"), config("./seed/data"));
    const { io, out } = fakeIO(project);
    expect(await main(["validate"], io)).toBe(2);
    expect(out()).toContain(
      `umpire.config.yaml: targets.app.reset.from: the restore reset's seed ./seed/data does not exist (${join(project, "seed", "data")})`,
    );
    mkdirSync(join(project, "seed", "data"), { recursive: true });
    const { io: fixedIo, out: fixedOut } = fakeIO(project);
    expect(await main(["validate"], fixedIo), fixedOut()).toBe(0);
  });

  it("--json prints the tasks and problems as JSON", async () => {
    temp.write("json/sample-task.yaml", validTask());
    temp.write("json/bad-task.yaml", { ...validTask("bad-task"), intsruction: "x" });
    const { io, out } = fakeIO(temp.dir);
    expect(await main(["validate", "json", "--json"], io)).toBe(2);
    const parsed = JSON.parse(out());
    expect(parsed.ok).toBe(false);
    expect(parsed.tasks.map((t: { id: string; status: string }) => [t.id, t.status])).toEqual([
      ["bad-task", "invalid (1 error)"],
      ["sample-task", "ok"],
    ]);
    expect(parsed.problems[0]).toMatchObject({
      file: "json/bad-task.yaml",
      path: "intsruction",
      fix: "did you mean 'instruction'?",
      severity: "error",
      rule: "schema",
    });
  });

  it("rejects an unknown option as a usage error", async () => {
    const { io, err } = fakeIO(REPO_ROOT);
    expect(await main(["validate", "--bogus"], io)).toBe(2);
    expect(err()).toMatch(/umpire: .*bogus/);
  });

  it("refuses --self-test on invalid task files (exit 2) before starting anything", async () => {
    const dir = mkdtempSync(join(tmpdir(), "umpire-selftest-bad-"));
    writeFileSync(join(dir, "broken.yaml"), "id: broken\ntitle: x\n");
    const { io, err } = fakeIO(dir);
    expect(await main(["validate", ".", "--self-test"], io)).toBe(2);
    expect(err()).toContain("fix the task files first");
  });
});
