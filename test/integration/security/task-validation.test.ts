import { join } from "node:path";
import { parse, stringify } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../../support/cli.js";
import { scratch } from "./support.js";
import { mkdirSync, writeFileSync } from "node:fs";
import { readFixtureTask } from "../../support/fixture-tasks.js";

const s = scratch("validate");
afterAll(() => s.cleanup());

/** A copy of a real task file with `patch` applied, written under a folder of its own. */
function taskCopy(folder: string, id: string, patch: (task: any) => void): string {
  const task = parse(readFixtureTask(join(REPO_ROOT, "tasks/api-note-bb042.yaml")));
  delete task.$schema;
  task.id = id;
  patch(task);
  const dir = join(s.dir, folder);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${id}.yaml`);
  writeFileSync(file, stringify(task));
  return dir;
}

describe("task validation of allowedOrigins", () => {
  it('allowedOrigins: ["not a url"] is an error naming the file and field, in validate and before run', async () => {
    const dir = taskCopy(
      "origins",
      "bad-origin",
      (t) => (t.permissions.allowedOrigins = ["fixture", "not a url", "https://example.com/path"]),
    );
    const validate = await runCli(["validate", dir]);
    expect(validate.code).toBe(2);
    const all = validate.stdout + validate.stderr;
    expect(all).toMatch(/bad-origin\.yaml:\d+: permissions\.allowedOrigins\[1\]: "not a url" is not a URL origin/);
    expect(all).toMatch(/permissions\.allowedOrigins\[2\]: .*has a path/);
    expect(all).toMatch(/https:\/\/example\.com/); // the fix shows the form

    const run = await runCli(["run", dir, "--out", s.out, "--db", s.db]);
    expect(run.code).toBe(2);
    expect(run.stdout + run.stderr).toMatch(/permissions\.allowedOrigins\[1\]/);
    expect(run.stdout + run.stderr).not.toMatch(/environment_error/);
  });

  it("real origins and fixture pass", async () => {
    const dir = taskCopy(
      "good-origins",
      "good-origin",
      (t) => (t.permissions.allowedOrigins = ["fixture", "https://example.com", "http://127.0.0.1:8080/"]),
    );
    const validate = await runCli(["validate", dir]);
    expect(validate.stdout + validate.stderr).not.toMatch(/allowedOrigins/);
    expect(validate.code).toBe(0);
  });
});

describe("task validation of regular expressions", () => {
  it("a catastrophic pattern no longer hangs validate: (a+)+b against a non-matching expect is judged at once", async () => {
    const dir = taskCopy("redos", "redos-expect", (t) => {
      // On a backtracking engine, checking expect against ^(?:(a+)+b)$ takes minutes.
      t.checks[0].options.onlyRecord = { pattern: "(a+)+b", expect: `${"a".repeat(40)}c` };
    });
    const validate = await runCli(["validate", dir], { killAfterMs: 120_000 });
    expect(validate.code).toBe(2);
    expect(validate.stdout + validate.stderr).toMatch(
      /redos-expect\.yaml:\d+: checks\[0\]\.options\.onlyRecord\.expect: "a+c" does not match the pattern/,
    );
  });

  it("a pattern the linear-time engine cannot run is an error naming the file, the field and why", async () => {
    const dir = taskCopy("lookaround", "lookaround-task", (t) => {
      t.checks[1].options.contains = [{ regex: "(?<!not )Jaipur Kites won" }];
      t.checks[0].options.onlyRecord = { pattern: "(BB)-\\1", expect: "BB-BB" };
    });
    const validate = await runCli(["validate", dir], { killAfterMs: 120_000 });
    expect(validate.code).toBe(2);
    const all = validate.stdout + validate.stderr;
    expect(all).toMatch(
      /lookaround-task\.yaml:\d+: checks\[1\]\.options\.contains\[0\]\.regex: the regular expression does not compile: .*lookahead and lookbehind are not supported/,
    );
    expect(all).toMatch(
      /checks\[0\]\.options\.onlyRecord\.pattern: the regular expression does not compile: .*backreferences are not supported/,
    );
  });
});
