/**
 * The settling example (examples/settling: the pages of issue 37 items 1-4 as a runnable app) as
 * shipped, and the authoring loop of issue 39 §5 on it, through the real CLI, Chromium and the
 * embedded reference model:
 * - `umpire validate --self-test examples/settling`: every task sound, each gold passed in both modes
 *   and at once, each negative and answer-now failed on the app's own state (one run, shared).
 * - The walkthrough of examples/settling/README.md, from a folder holding only serve.mjs: its files
 *   written and its `console run` commands run in order, exactly as written there (`npx umpire` is
 *   this checkout's bin/umpire.js); each must exit 0 (`try --negative` too: the negative failed as it
 *   should), and the run must pass. The time of each command is printed, for the README's figures.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, startCli, type CliResult } from "../../support/cli-child.js";

const EXAMPLE = join(ROOT, "examples/settling");

/** The README in order: `file=NAME` blocks are files of the project, `console run` blocks hold its `$ ` commands. */
function readmeSteps(markdown: string): ({ file: string; text: string } | { command: string })[] {
  const steps: ({ file: string; text: string } | { command: string })[] = [];
  for (const m of markdown.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)) {
    const info = m[1]!.trim().split(/\s+/);
    const file = info.find((w) => w.startsWith("file="))?.slice("file=".length);
    if (file) steps.push({ file, text: m[2]! });
    else if (info[0] === "console" && info.includes("run"))
      for (const line of m[2]!.split("\n"))
        if (line.startsWith("$ "))
          steps.push({
            command: line
              .slice(2)
              .replace(/\s+#.*$/, "")
              .trim(),
          });
  }
  return steps;
}

/** A README command line as argv: single-quoted words kept whole (the `${PORT}` URL). */
function words(command: string): string[] {
  return [...command.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-settling-"));
});
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("examples/settling as shipped", () => {
  let result: CliResult;
  beforeAll(async () => {
    result = await startCli(
      ["validate", "--self-test", "examples/settling", "--db", join(dir, "shipped.db"), "--out", join(dir, "shipped")],
      { killAfterMs: 540_000 },
    ).done;
  }, 560_000);

  it("is sound: every gold passed (both modes, and two at once), every negative and answer-now failed", () => {
    const out = result.stdout + result.stderr;
    expect(result.code, out.slice(-4000)).toBe(0);
    expect(out).toMatch(/every task is sound/);
    for (const task of ["clear-inbox", "rename-node", "delete-record", "archive-all", "look-but-keep"])
      expect(out).toMatch(new RegExp(`│ ${task}\\s+│ yes`));
    // The confirm accepted in one task's gold and declined in another's, each judged by the app's state.
    expect(out).toMatch(
      /look-but-keep negative:accepted \[reference:negative-accepted\/structured\]: failed .*`\/archive\/archived` is true/,
    );
    expect(out).toMatch(
      /archive-all negative:declined \[reference:negative-declined\/structured\]: failed .*`\/archive\/archived` is false/,
    );
  });
});

describe("the README's walkthrough, from an empty folder", () => {
  const ran: { command: string; ms: number; result: CliResult }[] = [];
  let project: string;
  beforeAll(async () => {
    project = join(dir, "walkthrough");
    mkdirSync(project);
    copyFileSync(join(EXAMPLE, "serve.mjs"), join(project, "serve.mjs"));
    for (const step of readmeSteps(readFileSync(join(EXAMPLE, "README.md"), "utf8"))) {
      if ("file" in step) {
        mkdirSync(dirname(join(project, step.file)), { recursive: true });
        writeFileSync(join(project, step.file), step.text);
        continue;
      }
      const argv = words(step.command);
      if (argv[0] !== "npx") {
        // The walkthrough's one shell step (rm), run as written.
        execFileSync("sh", ["-c", step.command], { cwd: project });
        continue;
      }
      expect(argv.slice(0, 2), step.command).toEqual(["npx", "umpire"]);
      const started = Date.now();
      const result = await startCli(argv.slice(2), { cwd: project, killAfterMs: 300_000 }).done;
      ran.push({ command: step.command, ms: Date.now() - started, result });
      console.log(`${((Date.now() - started) / 1000).toFixed(1)} s  ${step.command}`);
      if (result.code !== 0) break;
    }
  }, 590_000);

  it("runs every command of the walkthrough, each exiting 0", () => {
    expect(ran.map((r) => r.command)).toEqual([
      "npx umpire init --url 'http://127.0.0.1:${PORT}' --name settling",
      "npx umpire marks --target settling --path /node",
      "npx umpire validate",
      "npx umpire try tasks/rename-node.yaml",
      "npx umpire try rename-node --negative never-saved",
      "npx umpire validate --self-test --concurrency 1",
      "npx umpire run --concurrency 1",
    ]);
    for (const r of ran) expect(r.result.code, `${r.command}:\n${r.result.stderr.slice(-3000)}`).toBe(0);
    console.log(`walkthrough: ${(ran.reduce((n, r) => n + r.ms, 0) / 1000).toFixed(0)} s of commands`);
  });

  it("shows what the README says: the tray's controls clicked after the slide, a sound task, a passing run", () => {
    const out = (i: number) => ran[i]!.result.stdout + ran[i]!.result.stderr;
    expect(out(1)).toMatch(/button "Edit"\n\s+# edit: a mark already/);
    expect(out(3)).toMatch(/✓ step 2 of 6 \(click name-field\) on mark name-field .* onto mark name-field/);
    expect(out(3)).toMatch(/✓ step 5 of 6 \(click save\) on mark save .* onto mark save/);
    expect(out(4)).toMatch(/rename-node negative:never-saved: failed/);
    expect(out(5)).toMatch(/every task is sound/);
    expect(out(6)).toMatch(/2\/2 passed, 0 failed, 0 errors/);
  });
});
