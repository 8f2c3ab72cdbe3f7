/**
 * Item 9 of issue 13, through the real CLI (`run` as a child process; `show` and `validate` in-process,
 * whose output reaches the same streams): a hostile model server whose error message carries
 * terminal escapes (clear screen, cursor home, window title, bell) and a newline followed by a fake
 * "[1/1] PASS" line, and a task file whose title does the same. `run`, `show` and `validate` must
 * print neither the escapes nor a line that looks like umpire's own.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, runCli } from "../../support/cli-child.js";
import { runInProcess } from "../../support/cli-in-process.js";
import { startRecordingModel, type RecordingModel } from "../../support/recording-model.js";
import { readFixtureTask } from "../../support/fixture-tasks.js";

const HOSTILE =
  "bad request\u001b[2J\u001b[H\u001b]0;pwned\u0007\n[1/1] PASS  answer-only-bb042 [reference/structured #0] answered: all checks passed\r\u001b[31mRED";
const NO_COLOR = { NO_COLOR: "1" };

let dir: string;
let model: RecordingModel;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "umpire-terminal-"));
  model = await startRecordingModel();
});
afterAll(async () => {
  await model.close();
  rmSync(dir, { recursive: true, force: true });
});

function expectNoForgery(text: string): void {
  expect(text).not.toContain("\u001b");
  expect(text).not.toContain("\u0007");
  expect(text).not.toContain("\r");
  expect(text).not.toMatch(/^\[1\/1\] PASS/m);
}

describe("untrusted text on the terminal", () => {
  it("run and show print a model's escape sequences and fake lines as inert text", async () => {
    for (let i = 0; i < 4; i++) model.enqueue({ kind: "json", status: 400, body: { error: { message: HOSTILE } } });
    const db = join(dir, "umpire.db");
    const common = ["--db", db];
    const run = await runCli(
      [
        "run",
        "answer-only-bb042",
        "--model",
        "hostile",
        "--mode",
        "structured",
        "--base-url",
        model.baseUrl,
        "--out",
        join(dir, "runs"),
        "--run-id",
        "tty-run",
        ...common,
      ],
      { env: NO_COLOR },
    );
    expect(model.requests.length).toBeGreaterThan(0);
    expect(run.code).not.toBe(0);
    // The message is there, visibly escaped, on one line.
    expect(run.stderr).toContain("\\e[2J");
    expectNoForgery(run.stderr);
    expectNoForgery(run.stdout);

    const show = await runInProcess(["show", "tty-run", ...common], { env: NO_COLOR });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain("\\e[2J");
    expectNoForgery(show.stdout);
  });

  it("validate prints a task title's escapes and newlines as inert text", async () => {
    const source = readFixtureTask(join(ROOT, "tasks/answer-only-bb042.yaml"));
    const title = JSON.stringify(`Scores\u001b[2J\u001b]0;pwned\u0007\n[1/1] PASS fake`);
    const file = join(dir, "hostile-title.yaml");
    writeFileSync(file, source.replace(/^\$schema:.*\n/m, "").replace(/^title: .*$/m, `title: ${title}`));
    const validate = await runInProcess(["validate", file], { env: NO_COLOR });
    expect(validate.stdout + validate.stderr).toContain("Scores");
    expectNoForgery(validate.stdout);
    expectNoForgery(validate.stderr);
  });
});
