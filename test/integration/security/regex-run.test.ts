/**
 * Catastrophic regexes during a run, through the real CLI: a task whose onlyRecord, contains and
 * answer checks use `(a+)+b`-shaped patterns, and a hostile model that writes exactly the text
 * that makes a backtracking engine take minutes. The checks are judged (and fail) instead of
 * freezing the process; a second, ordinary trial in the same run finishes too.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../../support/cli.js";
import { hostileRunArgs, startHostileModel } from "../../support/hostile-model.js";
import { scratch } from "./support.js";
import { readFixtureTask } from "../../support/fixture-tasks.js";

const s = scratch("redos");
afterAll(() => s.cleanup());

const EVIL = `${"a".repeat(40)}c`;

function redosTask(): string {
  const task = parse(readFixtureTask(join(REPO_ROOT, "tasks/api-note-bb042.yaml")));
  delete task.$schema;
  task.id = "redos-bb042";
  task.checks = [
    {
      kind: "custom",
      module: join(REPO_ROOT, "tasks/checks/cricket.ts"),
      export: "note",
      options: { path: "notes/BB-042.md", onlyRecord: { pattern: "(a+)+b", expect: "aab" } },
    },
    { kind: "file", path: "notes/BB-042.md", contains: [{ regex: "(a+)+b" }] },
    { kind: "answer", contains: [{ regex: "(x+)+y" }] },
  ];
  const dir = join(s.dir, "tasks");
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${task.id}.yaml`), stringify(task));
  return dir;
}

describe("catastrophic regexes in a run", () => {
  it("checks with (a+)+b patterns are judged on hostile text instead of freezing the run", async () => {
    const model = await startHostileModel((_trial, turn) =>
      turn === 1
        ? [{ name: "write_note", args: { name: "BB-042.md", content: `${EVIL}\n` } }]
        : [{ name: "answer", args: { content: `${"x".repeat(40)}z` } }],
    );
    try {
      const { args, env } = hostileRunArgs(model);
      const run = await runCli(
        ["run", redosTask(), "api-note-bb042", ...args, "--out", s.out, "--db", s.db, "--json"],
        { env, killAfterMs: 170_000 },
      );
      expect(run.code).toBe(1); // not killed by the hang guard (null), and trials failed
      const trials = JSON.parse(run.stdout).trials;
      expect(trials).toHaveLength(2);
      const redos = trials.find((t: { taskId?: string; task?: string }) => (t.taskId ?? t.task) === "redos-bb042");
      expect(redos.verdict).toBe("failed");
      // The three checks above, then permissions.forbiddenEffects (no match was deleted).
      expect(redos.checks.map((c: { pass: boolean }) => c.pass)).toEqual([false, false, false, true]);
      expect(redos.checks[0].reason).toMatch(/never names aab/);
    } finally {
      await model.close();
    }
  });
});
