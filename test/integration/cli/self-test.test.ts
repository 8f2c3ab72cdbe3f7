/**
 * `umpire validate --self-test` through the real CLI: a sound task passes every probe; a task
 * whose only required check cannot fail is reported unsound (exit 1), because an agent that
 * answers "Done." at once would pass it.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PassThrough } from "node:stream";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import type { CommandIO } from "../../../src/cli/io.js";
import { readFixtureTask } from "../../support/fixture-tasks.js";

const ROOT = resolve(__dirname, "../../..");
const run = promisify(execFile);
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function io(cwd: string): { io: CommandIO; out: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let text = "";
  stdout.on("data", (c) => (text += c));
  stderr.resume();
  return { io: { stdout, stderr, env: {}, cwd, signal: new AbortController().signal }, out: () => text };
}

function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), "umpire-selftest-"));
  dirs.push(dir);
  mkdirSync(join(dir, "tasks"));
  mkdirSync(join(dir, "schema"));
  copyFileSync(join(ROOT, "schema/task.schema.json"), join(dir, "schema/task.schema.json"));
  return dir;
}

describe("validate --self-test", () => {
  it("proves a sound task: gold passes in both modes, answering at once and the negative fail", async () => {
    const dir = workspace();
    writeFileSync(join(dir, "tasks/answer-only-bb042.yaml"), readFixtureTask(join(ROOT, "tasks/answer-only-bb042.yaml")));
    // The real CLI as a child process: stdout must be exactly one JSON document.
    const child = await run(process.execPath, [join(ROOT, "bin/umpire.js"), "validate", "--self-test", "--json"], { cwd: dir, maxBuffer: 64 * 1024 * 1024 });
    const body = JSON.parse(child.stdout);
    expect(body.ok).toBe(true);
    expect(body.tasks.map((t: { id: string }) => t.id)).toEqual(["answer-only-bb042"]);
    const report = body.selfTest;
    expect(report.sound).toBe(true);
    expect(report.results.map((r: { probe: { name: string } }) => r.probe.name).sort()).toEqual(["answer-now", "gold/structured", "gold/tools", "negative:misread-scores"]);
  });

  it("flags a task whose checks cannot tell right from wrong (exit 1)", async () => {
    const dir = workspace();
    // Same task, but its only check is advisory and the effects check forbids nothing: "Done." passes.
    const source = readFixtureTask(join(ROOT, "tasks/answer-only-bb042.yaml"));
    const weak = source
      .replace(/checks:[\s\S]*?reference:/, "checks:\n  - kind: effects\n    name: nothing deleted\n    forbid:\n      - { type: match_deleted }\nreference:")
      .replace(/negatives:[\s\S]*?tags:/, "tags:");
    writeFileSync(join(dir, "tasks/answer-only-bb042.yaml"), weak);
    const { io: cli, out } = io(dir);
    expect(await main(["validate", "--self-test", "--json"], cli)).toBe(1);
    const report = JSON.parse(out()).selfTest;
    expect(report.sound).toBe(false);
    const answerNow = report.results.find((r: { probe: { name: string } }) => r.probe.name === "answer-now");
    expect(answerNow).toMatchObject({ verdict: "passed", ok: false });
  });
});
