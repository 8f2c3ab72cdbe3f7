/**
 * The loader: line numbers, did-you-mean, YAML errors, duplicate ids across files, how paths
 * and task ids resolve, and that bad input never throws.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { UmpireError } from "../../../src/errors.js";
import { formatProblem } from "../../../src/task/format-problems.js";
import { loadTasks, loadTasksOrThrow } from "../../../src/task/loader.js";
import { REPO_ROOT, tempTasks, validTask } from "./helpers.js";

const temp = tempTasks();
afterAll(() => temp.cleanup());

const WITH_LINES = `# a comment
id: lines-task
title: Line numbers
instruction: Find match BB-042 and save a note.
givens: [BB-042]
tools: [click, write, answer]
checks:
  - kind: file
    path: notes/BB-042.md
  - kind: answer
    required: false
  - kind: file
    exits: false
reference:
  - tool: click
    target: search-box
  - tool: answer
    args:
      content: 3
`;

describe("loadTasks", () => {
  it("names the line of each problem's dotted path", () => {
    temp.write("lines/lines-task.yaml", WITH_LINES);
    const { problems } = loadTasks(["lines"], { cwd: temp.dir });
    const byPath = Object.fromEntries(problems.map((p) => [p.path, p]));
    // The unknown key is reported at the key's own line, with a suggestion.
    expect(byPath["checks[2].exits"]).toMatchObject({
      line: 13,
      message: 'unknown key "exits"',
      fix: "did you mean 'exists'?",
    });
    // A missing key is reported at the mapping that lacks it.
    expect(byPath["checks[2].path"]).toMatchObject({ line: 12, message: "required: expected text" });
    expect(formatProblem(byPath["checks[2].path"])).toBe(
      "lines/lines-task.yaml:12: checks[2].path: required: expected text (fix: add path)",
    );
  });

  it("names the line of a rule's finding too", () => {
    temp.write("lines2/lines-task.yaml", WITH_LINES.replace("    exits: false\n", "    path: /etc/x\n"));
    const { problems } = loadTasks(["lines2"], { cwd: temp.dir });
    expect(problems).toEqual([
      expect.objectContaining({ rule: "paths-in-workspace", path: "checks[2].path", line: 13 }),
      expect.objectContaining({
        rule: "step-args",
        path: "reference[1].args.content",
        line: 19,
        message: "expected text, got the number 3",
      }),
    ]);
  });

  it("reports malformed YAML with its line, and goes on to the other files", () => {
    temp.write("broken/a-broken.yaml", "id: broken\ntitle: [unclosed\ninstruction: x\n");
    temp.write("broken/b-dup-key.yaml", "id: one\nid: two\n");
    temp.write("broken/c-list.yaml", "- id: x\n");
    temp.write("broken/d-empty.yaml", "");
    temp.write("broken/sample-task.yaml", validTask());
    const { problems, tasks, files } = loadTasks(["broken"], { cwd: temp.dir });
    expect(tasks.map((t) => t.id)).toEqual(["sample-task"]);
    expect(files.map((f) => [path.basename(f.file), f.valid])).toEqual([
      ["a-broken.yaml", false],
      ["b-dup-key.yaml", false],
      ["c-list.yaml", false],
      ["d-empty.yaml", false],
      ["sample-task.yaml", true],
    ]);
    const of = (name: string) => problems.filter((p) => p.file.endsWith(name));
    expect(of("a-broken.yaml")[0]).toMatchObject({ rule: "yaml", severity: "error" });
    expect(of("a-broken.yaml")[0].line).toBeGreaterThanOrEqual(2);
    expect(of("b-dup-key.yaml")[0]).toMatchObject({
      rule: "yaml",
      line: 2,
      message: expect.stringContaining("the same key appears twice"),
    });
    expect(of("c-list.yaml")[0].message).toMatch(/expected a mapping of task fields at the top level, got a list/);
    expect(of("d-empty.yaml")[0].message).toBe("the file is empty");
  });

  it("flags duplicate ids across two files, naming the other file in each", () => {
    temp.write("dups/first.yaml", validTask("same-id"));
    temp.write("dups/second.yaml", validTask("same-id"));
    const { problems, tasks } = loadTasks(["dups"], { cwd: temp.dir });
    const dups = problems.filter((p) => p.rule === "unique-ids");
    expect(dups).toHaveLength(2);
    expect(dups[0]).toMatchObject({
      file: "dups/first.yaml",
      path: "id",
      line: 1,
      message: 'id "same-id" is also used by dups/second.yaml',
    });
    expect(dups[1]).toMatchObject({
      file: "dups/second.yaml",
      message: 'id "same-id" is also used by dups/first.yaml',
    });
    expect(tasks).toEqual([]);
  });

  it("counts a file named twice once (no false duplicate)", () => {
    temp.write("twice/sample-task.yaml", validTask());
    const { problems, tasks } = loadTasks(["twice", "twice/sample-task.yaml"], { cwd: temp.dir });
    expect(problems).toEqual([]);
    expect(tasks).toHaveLength(1);
  });

  it("resolves task ids through tasks/, by file name or by the id inside", () => {
    temp.write("tasks/by-name.yaml", validTask("by-name"));
    temp.write("tasks/odd-file-name.yaml", validTask("by-content"));
    const { tasks, problems } = loadTasks(["by-name", "by-content", "no-such-task"], { cwd: temp.dir });
    expect(tasks.map((t) => t.id)).toEqual(["by-name", "by-content"]);
    expect(problems.find((p) => p.rule === "input")).toMatchObject({
      file: "no-such-task",
      message: 'no task file, folder or task id named "no-such-task"',
    });
  });

  it("defaults to tasks/ and throws UmpireError('input') only when that folder cannot be read", () => {
    const empty = tempTasks();
    try {
      expect(() => loadTasks([], { cwd: empty.dir })).toThrow(UmpireError);
      try {
        loadTasks([], { cwd: empty.dir });
      } catch (e) {
        expect((e as UmpireError).code).toBe("input");
        expect((e as UmpireError).message).toMatch(/cannot read the task folder tasks/);
      }
      empty.write("tasks/sample-task.yaml", validTask());
      expect(loadTasks([], { cwd: empty.dir }).tasks.map((t) => t.id)).toEqual(["sample-task"]);
    } finally {
      empty.cleanup();
    }
  });

  it("never throws on garbage input", () => {
    const cases: Record<string, string | Buffer> = {
      "binary.yaml": Buffer.from([0, 1, 2, 255, 254, 10, 58, 58]),
      "scalar.yaml": "just text",
      "nulls.yaml": "id: ~\ntitle: ~\ntools: ~\nchecks: [~, 3, [x]]\nreference: {a: b}\nnegatives: [1]\n",
      "anchors.yaml": "a: &a [*a]\n",
      "deep.yaml": `checks:\n${"  - kind: file\n    contains: [[[[[]]]]]\n".repeat(3)}`,
      "weird-keys.yaml": "? [complex, key]\n: value\n1: one\n",
    };
    for (const [name, content] of Object.entries(cases)) fs.writeFileSync(temp.write(`garbage/${name}`, ""), content);
    const { problems, tasks } = loadTasks(["garbage"], { cwd: temp.dir });
    expect(tasks).toEqual([]);
    for (const name of Object.keys(cases)) {
      expect(
        problems.some((p) => p.file.endsWith(name) && p.severity === "error"),
        name,
      ).toBe(true);
    }
    for (const p of problems) expect(p.message).not.toMatch(/\bat .*\.(ts|js):\d+/);
  });

  it("normalizes the resolved task: defaults, trimmed instruction, canonical paths", () => {
    const task = validTask("normal-task");
    task.instruction = "Find match BB-042 and save a note with its scores and result.\n";
    (task.checks as any[])[0].path = "./notes//BB-042.md";
    temp.write("normal/normal-task.yaml", { ...task, permissions: { writeScope: "notes" } });
    const { tasks, problems } = loadTasks(["normal"], { cwd: temp.dir });
    expect(problems).toEqual([]);
    const [t] = tasks;
    expect(t.instruction.endsWith("result.")).toBe(true);
    expect(t.checks[0]).toMatchObject({ kind: "file", path: "notes/BB-042.md", exists: true, required: true });
    expect(t.permissions).toEqual({
      allowedOrigins: ["fixture"],
      forbiddenEffects: [],
      writeScope: "notes/",
      httpAllow: [],
    });
    expect(t.start).toEqual({ path: "/", scenario: "plain" });
    expect(t.file).toBe("normal/normal-task.yaml");
  });
});

describe("loadTasksOrThrow", () => {
  it("returns the tasks when there are no errors", () => {
    const tasks = loadTasksOrThrow(["tasks"], { cwd: REPO_ROOT });
    expect(tasks.length).toBeGreaterThanOrEqual(12);
  });

  it("throws one UmpireError('input') listing every problem as file:line: path: message (fix: ...)", () => {
    temp.write("throw/throw-task.yaml", WITH_LINES.replace("lines-task", "throw-task"));
    let error: unknown;
    try {
      loadTasksOrThrow(["throw"], { cwd: temp.dir });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UmpireError);
    const message = (error as UmpireError).message;
    expect((error as UmpireError).code).toBe("input");
    // Rules run once the schema passes, so the bad answer content (line 19) is not listed yet.
    expect(message).toMatch(/^2 problems in task files:\n/);
    expect(message).toContain(
      "  throw/throw-task.yaml:13: checks[2].exits: unknown key \"exits\" (fix: did you mean 'exists'?)",
    );
    expect(message).toContain("  throw/throw-task.yaml:12: checks[2].path: required: expected text (fix: add path)");
  });
});
