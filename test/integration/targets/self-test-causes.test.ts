/**
 * The self-test names the real cause (issue 37, item 6), through the real CLI on the reading list:
 * with no per-trial reset, the gold clears the list and answer-now then starts on the cleared list,
 * so its check passes. That is said as "the target has no per-trial reset: probe answer-now started
 * on the state probe gold/... left", not "the checks cannot tell it from the gold path", and a run
 * already at --concurrency 1 is never told to run at --concurrency 1. With a reset the same task is
 * sound: the checks could tell all along.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../../support/cli.js";

const APP = join(import.meta.dirname, "app", "reading-list.mjs");
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const TASK = `id: clear-list
title: Clear the reading list
target: reading
instruction: Remove every book from the reading list, then answer Done.
tools: [click, wait, answer]
checks:
  - { kind: http, name: the list is empty, url: /api/books, json: [{ path: "", length: 0 }] }
reference:
  - { tool: click, target: clear-list }
  - { tool: click, target: confirm-clear }
  - { tool: answer, args: { content: Done } }
`;

function project(reset: string): string {
  const dir = mkdtempSync(join(tmpdir(), "umpire-self-test-causes-"));
  dirs.push(dir);
  writeFileSync(
    join(dir, "umpire.config.yaml"),
    `targets:\n  reading:\n    baseUrl: http://127.0.0.1:\${PORT}\n    start: { command: [node, ${JSON.stringify(APP)}], readyUrl: / }\n${reset}`,
  );
  mkdirSync(join(dir, "tasks"));
  writeFileSync(join(dir, "tasks", "clear-list.yaml"), TASK);
  return dir;
}

const selfTest = (dir: string) =>
  runCli(["validate", "--self-test", "--concurrency", "1", "--db", join(dir, "umpire.db"), "--out", join(dir, "out")], {
    cwd: dir,
    killAfterMs: 400_000,
  });

describe("the self-test on a target with no per-trial reset", () => {
  it("says the probe started on the state another probe left, and never suggests --concurrency 1 at 1", async () => {
    const result = await selfTest(project(""));
    const out = result.stdout + result.stderr;
    expect(result.code, out).toBe(1);
    expect(out).toMatch(
      /clear-list answer-now: expected failed, got passed \(answered\)\n {2}- the target reading has no per-trial reset: probe answer-now of clear-list started on the state probe gold\/\w+ of clear-list left; declare reset: on target reading/,
    );
    expect(out).not.toContain("the checks cannot tell it from the gold path");
    expect(out).not.toContain("--concurrency 1");
    expect(out).not.toMatch(/fewer trials at once|a lower --concurrency/);
    expect(out).toContain("some targets have no per-trial reset: a probe started on the state the one before it left");
  }, 420_000);

  it("with a reset the same task is sound", async () => {
    const result = await selfTest(project("    reset: { kind: http, url: /reset }\n"));
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toContain("every task is sound");
  }, 420_000);
});
