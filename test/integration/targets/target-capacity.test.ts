/**
 * `targets.<name>.capacity` through the real CLI: an isolated target with capacity 1 takes one trial
 * at a time even when the run may start three at once; with a capacity of 3 the same trials overlap.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/open.js";
import { execChild } from "../../support/cli-child.js";

const exec = execChild;
const ROOT = resolve(import.meta.dirname, "../../..");
const APP = join(import.meta.dirname, "app", "reading-list.mjs");
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const task = (target: string) => `
id: count-on-${target}
title: Count the books
target: ${target}
instruction: How many books are on the reading list? Answer with the number of books.
tools: [click, answer]
checks:
  - { kind: answer, contains: ["3"] }
reference:
  - { tool: answer, args: { content: 3 books } }
`;

/** Runs three trials on a target of the given capacity; returns their [start, end] times. */
async function intervals(capacity: number): Promise<[number, number][]> {
  const dir = mkdtempSync(join(tmpdir(), "umpire-capacity-"));
  dirs.push(dir);
  const target = `cap${capacity}`;
  const config = `targets:
  ${target}:
    baseUrl: http://127.0.0.1:\${PORT}
    start: { command: [node, ${JSON.stringify(APP)}], readyUrl: / }
    isolated: true
    capacity: ${capacity}
`;
  writeFileSync(join(dir, "umpire.config.yaml"), config);
  mkdirSync(join(dir, "tasks"));
  writeFileSync(join(dir, "tasks", `count-on-${target}.yaml`), task(target));
  const args = [
    "run",
    ".",
    "--model",
    "reference",
    "--mode",
    "structured",
    "--repeat",
    "3",
    "--concurrency",
    "3",
    "--db",
    join(dir, "u.db"),
    "--out",
    join(dir, "out"),
  ];
  await exec("node", [join(ROOT, "bin/umpire.js"), ...args], {
    cwd: dir,
    maxBuffer: 50_000_000,
    timeout: 400_000,
  }).catch((e: { stderr: string }) => {
    throw new Error(`the run failed: ${e.stderr}`);
  });
  const store = openStore(join(dir, "u.db"));
  const trials = store.trials(store.listRuns()[0]!.id) as unknown as {
    startedAt: string;
    endedAt: string;
    verdict: string;
  }[];
  store.close();
  expect(trials.map((t) => t.verdict)).toEqual(["passed", "passed", "passed"]);
  return trials.map((t) => [Date.parse(t.startedAt), Date.parse(t.endedAt)]);
}
const overlaps = (all: [number, number][]) =>
  all.some((a, i) => all.some((b, j) => i < j && a[0] < b[1] && b[0] < a[1]));

describe("target capacity", () => {
  it("takes at most capacity trials at once", async () => {
    expect(overlaps(await intervals(1))).toBe(false);
    expect(overlaps(await intervals(3))).toBe(true);
  }, 600_000);
});
