/**
 * `umpire validate --self-test` through the real CLI: a sound task passes every probe; a task
 * whose only required check cannot fail is reported unsound (exit 1), because an agent that
 * answers "Done." at once would pass it.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import type { CommandIO } from "../../../src/cli/io.js";
import { readFixtureTask } from "../../support/fixture-tasks.js";
import { execChild } from "../../support/cli-child.js";

const ROOT = resolve(__dirname, "../../..");
const run = execChild;
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function io(cwd: string): { io: CommandIO; out: () => string; err: () => string } {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let text = "";
  let errors = "";
  stdout.on("data", (c) => (text += c));
  stderr.on("data", (c) => (errors += c));
  return {
    io: { stdout, stderr, env: {}, cwd, signal: new AbortController().signal },
    out: () => text,
    err: () => errors,
  };
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
  it("proves a sound task: gold passes in both modes, answering at once and the negatives fail, every required check fails in some probe", async () => {
    const dir = workspace();
    writeFileSync(
      join(dir, "tasks/answer-only-bb042.yaml"),
      readFixtureTask(join(ROOT, "tasks/answer-only-bb042.yaml")),
    );
    // The real CLI as a child process: stdout must be exactly one JSON document.
    const child = await run(process.execPath, [join(ROOT, "bin/umpire.js"), "validate", "--self-test", "--json"], {
      cwd: dir,
      maxBuffer: 64 * 1024 * 1024,
    });
    const body = JSON.parse(child.stdout);
    expect(body.ok).toBe(true);
    expect(body.tasks.map((t: { id: string }) => t.id)).toEqual(["answer-only-bb042"]);
    const report = body.selfTest;
    expect(report.sound).toBe(true);
    expect(report.results.map((r: { probe: { name: string } }) => r.probe.name).sort()).toEqual([
      "answer-now",
      "gold/structured",
      "gold/tools",
      "negative:misread-scores",
      "negative:saves-note",
    ]);
    // Every required check failed in some probe: the answer check in answer-now, the effects check in saves-note.
    expect(report.uncovered).toEqual([]);
    expect(
      report.results.find((r: { probe: { name: string } }) => r.probe.name === "negative:saves-note"),
    ).toMatchObject({ exercised: true, failedChecks: expect.arrayContaining(["nothing saved or deleted"]) });
  }, 900_000);

  it("flags a task whose checks cannot tell right from wrong (exit 1)", async () => {
    const dir = workspace();
    // Same task, but its only check is advisory and the effects check forbids nothing: "Done." passes.
    const source = readFixtureTask(join(ROOT, "tasks/answer-only-bb042.yaml"));
    const weak = source
      .replace(
        /checks:[\s\S]*?reference:/,
        "checks:\n  - kind: effects\n    name: nothing deleted\n    forbid:\n      - { type: match_deleted }\nreference:",
      )
      .replace(/negatives:[\s\S]*?tags:/, "tags:");
    writeFileSync(join(dir, "tasks/answer-only-bb042.yaml"), weak);
    const { io: cli, out } = io(dir);
    expect(await main(["validate", "--self-test", "--json"], cli)).toBe(1);
    const report = JSON.parse(out()).selfTest;
    expect(report.sound).toBe(false);
    const answerNow = report.results.find((r: { probe: { name: string } }) => r.probe.name === "answer-now");
    expect(answerNow).toMatchObject({ verdict: "passed", ok: false });
  }, 900_000); // hang guards: real Chromium trials on a shared machine
});

/** answer-only-bb042 with its negatives replaced (YAML text), its instruction made its own (the model finds tasks by it). */
function answerOnlyVariant(id: string, extraInstruction: string, negatives: string, extraChecks = ""): string {
  const source = readFixtureTask(join(ROOT, "tasks/answer-only-bb042.yaml"));
  return source
    .replace(/^id: .*$/m, `id: ${id}`)
    .replace("Do not save any notes.", `Do not save any notes. ${extraInstruction}`)
    .replace(/^checks:\n/m, `checks:\n${extraChecks}`)
    .replace(/^negatives:[\s\S]*?^tags:/m, `negatives:\n${negatives}tags:`);
}

describe("validate --self-test proves the checks, not only the trajectories", () => {
  it("names a negative it could not play, a check no probe failed, failsOn that did not fail, each failed probe's reason, and stores the run", async () => {
    const dir = workspace();
    // A negative aimed at a mark that does not exist, and a required check that can never fail.
    writeFileSync(
      join(dir, "tasks/typo-bb042.yaml"),
      answerOnlyVariant(
        "typo-bb042",
        "Take your time.",
        [
          "  typo:",
          "    - { tool: click, target: search-box }",
          "    - { tool: write, args: { content: BB-042, press_enter: true } }",
          "    - { tool: click, target: result-BB-042 }",
          "    - { tool: click, target: confirm-yess }",
          '    - { tool: answer, args: { content: "Pune Pioneers scored 28." } }',
          "",
        ].join("\n"),
        "  - kind: file\n    name: no draft left behind\n    path: notes/draft.md\n    exists: false\n",
      ),
    );
    // failsOn: one negative names a check it does not fail, the other exactly the one it breaks.
    writeFileSync(
      join(dir, "tasks/fails-on-bb042.yaml"),
      answerOnlyVariant(
        "fails-on-bb042",
        "Be exact.",
        [
          "  misread-scores:",
          "    failsOn: [the answer states both scores and the result, nothing saved or deleted]",
          "    steps:",
          "      - { tool: click, target: search-box }",
          "      - { tool: write, args: { content: BB-042, press_enter: true } }",
          "      - { tool: click, target: result-BB-042 }",
          '      - { tool: answer, args: { content: "Pune Pioneers 168/6, Jaipur Kites 169/4. Pune Pioneers won." } }',
          "  saves-note:",
          "    failsOn: [nothing saved or deleted]",
          "    steps:",
          "      - { tool: click, target: search-box }",
          "      - { tool: write, args: { content: BB-042, press_enter: true } }",
          "      - { tool: click, target: result-BB-042 }",
          "      - { tool: click, target: add-note }",
          "      - { tool: click, target: note-body }",
          '      - { tool: write, args: { content: "match: BB-042\\n" } }',
          "      - { tool: click, target: note-save }",
          "      - { tool: click, target: confirm-save }",
          '      - { tool: answer, args: { content: "BB-042: Pune Pioneers 168/6 (20 ov), Jaipur Kites 169/4 (18.3 ov). Jaipur Kites won by 6 wickets." } }',
          "",
        ].join("\n"),
      ),
    );
    const { io: cli, out } = io(dir);
    expect(await main(["validate", "--self-test", "--concurrency", "2"], cli)).toBe(1);
    const text = out();
    const lines = text.split("\n");
    const block = (head: RegExp) => {
      const at = lines.findIndex((l) => head.test(l));
      expect(at, `no line matching ${head} in:\n${text}`).toBeGreaterThanOrEqual(0);
      const rest = lines.slice(at + 1);
      const end = rest.findIndex((l) => !l.startsWith("  - "));
      return rest.slice(0, end < 0 ? undefined : end).join("\n");
    };

    // Not exercised: the probe, the step, the mark, the page and the marks it had instead.
    const typo = block(/^typo-bb042 negative:typo: NOT EXERCISED/);
    expect(typo).toMatch(
      /not exercised: step 4 of 5 \(click confirm-yess\): mark confirm-yess not found on \/match\/BB-042/,
    );
    expect(typo).toMatch(/the page had: .*add-note/);
    // A typo'd mark is never explained as slowness: only a mark another probe found may be. (A settle wait
    // that really ran out on a busy machine is named as such, with its own words; that is not this.)
    expect(typo).not.toMatch(/waited for mark confirm-yess|another probe found/);
    // Check coverage: a check no probe failed is named (a warning without --strict).
    expect(text).toContain(
      "warning: typo-bb042: check 'no draft left behind' never failed in any probe: it may be unable to fail; add a negative that breaks it",
    );
    // failsOn: the check that did not fail is named with its own reason; the one that broke it is fine.
    const misread = block(/^fails-on-bb042 negative:misread-scores: expected failed, got failed/);
    expect(misread).toMatch(
      /failsOn 'nothing saved or deleted' did not fail: check 'nothing saved or deleted' passed: /,
    );
    expect(text).not.toMatch(/^fails-on-bb042 negative:saves-note/m);
    // The fails-on task's coverage is complete: answer-now fails the answer, saves-note the effects check.
    expect(text).not.toMatch(/fails-on-bb042: check .* never failed/);
    expect(text).toMatch(/^some tasks are unsound/m);
    // Every failed probe line carries its reason on the lines under it.
    const probeLines = lines
      .map((l, i) => [l, lines[i + 1] ?? ""] as const)
      .filter(([l]) => /^[a-z0-9-]+ (gold|answer-now|negative)\S*: (NOT EXERCISED|expected)/.test(l));
    expect(probeLines.length).toBeGreaterThanOrEqual(2);
    for (const [line, next] of probeLines) expect(next, line).toMatch(/^ {2}- \S/);

    // Stored as a run tagged self-test: `runs` lists it, `show` shows it.
    const runId = /stored as run (selftest-\S+) \(tagged self-test\)/.exec(text)?.[1];
    expect(runId, text).toBeTruthy();
    const runs = io(dir);
    expect(await main(["runs", "--json"], runs.io)).toBe(0);
    const listed = JSON.parse(runs.out()).runs.find((r: { id: string }) => r.id === runId);
    expect(listed).toMatchObject({ tags: ["self-test"], status: "finished", trials: 9 });
    const shown = io(dir);
    expect(await main(["show", runId!], shown.io)).toBe(0);
    expect(shown.out()).toContain("typo-bb042");
    expect(shown.out()).toContain("fails-on-bb042");
    // A self-test's run stores its environment too (issue 36).
    const json = io(dir);
    expect(await main(["show", runId!, "--json"], json.io)).toBe(0);
    expect(JSON.parse(json.out()).environment).toMatchObject({
      umpire: expect.stringMatching(/^\d+\./),
      chromium: { version: expect.stringMatching(/^\d+\./) },
    });
    // Its probes are no evaluation: `latest` skips the run, and --resume refuses it.
    expect(await main(["show"], io(dir).io)).toBe(2);
    const resumed = io(dir);
    expect(await main(["run", "--resume", runId!], resumed.io)).toBe(2);
    expect(resumed.err()).toContain(`run ${runId} is a self-test's (tagged self-test)`);
  }, 900_000); // a hang guard: nine probes in real Chromium on a shared machine
});
