/**
 * A custom reporter through the real CLI (issue 28): the documented example
 * examples/reporters/my-reporter.mjs, loaded by `--reporter ./my-reporter.mjs:FILE` from the
 * working folder, gets the live hooks of `umpire run` and the stored run; `umpire show` calls its
 * stored-run hook alone. A name that is neither built in nor a module stays a usage error.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../../support/cli.js";

const example = join(REPO_ROOT, "examples/reporters");
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-custom-reporter-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const store = () => ["--db", join(dir, "umpire.db"), "--out", join(dir, "runs")];
// A hang guard only: one trial under a loaded two-core machine has taken minutes.
const umpire = (args: string[], cwd = example) => runCli(args, { cwd, env: { CI: "" }, killAfterMs: 500_000 });

describe("a custom reporter module", () => {
  it("the example reporter writes a line per trial and the stored run's tally, through run and show", async () => {
    const out = join(dir, "run-report.txt");
    const task = join(REPO_ROOT, "tasks/scorecard-note-bb042.yaml");
    const r = await umpire(["run", task, "--mode", "structured", "--reporter", `./my-reporter.mjs:${out}`, ...store()]);
    expect(r.code, r.stderr).toBe(0);
    const runId = /run (\S+): 1 trials/.exec(readFileSync(out, "utf8"))?.[1];
    expect(runId).toBeTruthy();
    expect(readFileSync(out, "utf8")).toBe(
      `run ${runId}: 1 trials\n` +
        `scorecard-note-bb042 [reference/structured] passed (answered, ${turnsOf(out)} turns)\n` +
        `stored ${runId}: 1/1 passed\n`,
    );
    // The default list view and the summary still print beside it; the reporter's note follows them.
    expect(r.stdout).toContain(`my-reporter: ${out}`);

    const again = join(dir, "show-report.txt");
    const shown = await umpire(["show", runId!, "--reporter", `./my-reporter.mjs:${again}`, ...store().slice(0, 2)]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(readFileSync(again, "utf8")).toBe(`stored ${runId}: 1/1 passed\n`);
  }, 600_000);

  it("a module without a default export, and a name that is no reporter, are usage errors naming the fix", async () => {
    writeFileSync(join(dir, "no-default.mjs"), "export const x = 1;\n");
    const bad = await umpire(["run", "--list", "--reporter", "./no-default.mjs", ...store()], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--reporter \.\/no-default\.mjs: .*no-default\.mjs has no default export/);
    expect(bad.stderr).toMatch(/fix: export default a class or a function/);
    const typo = await umpire(["run", "--list", "--reporter", "jsno", ...store()], dir);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain("did you mean 'json'");
  }, 300_000);
});

/** The turn count the example wrote (the reference model's gold path decides it). */
function turnsOf(file: string): string {
  return /, (\d+) turns\)/.exec(readFileSync(file, "utf8"))?.[1] ?? "?";
}
