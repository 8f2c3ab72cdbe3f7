/**
 * The regression loop a team runs (issue 36 item 1), through the real CLI on the embedded reference
 * model: `agents: ours` on the reference model, run; edit `ours` under its own name to the reference
 * model's `wrong-record` variant, run again; `compare R2 --baseline R1 --fail-on-regression` must
 * exit 1 naming the tasks that flipped (api-note-bb042 and trap-date-bb042 declare a wrong-record
 * negative; answer-only-bb042 does not, so it stays passing) and say at the top what changed in the
 * agent. The same change under a new agent name gives the same answer; a task edited between the
 * runs is named, with the part that changed, and left out of the pairs; `report --baseline` and
 * `run --until-decided` pair the same way.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, runCli } from "../../support/cli-child.js";
import { runInProcess } from "../../support/cli-in-process.js";

const TASKS = ["api-note-bb042", "trap-date-bb042", "answer-only-bb042"];
const FLIPS = ["api-note-bb042", "trap-date-bb042"];

let folder: string;
const umpire = async (args: string[]) => {
  const r = await runInProcess(args, { cwd: folder, env: { NO_COLOR: "1" } });
  return { code: r.code, out: r.stdout, err: r.stderr };
};
const config = (agents: Record<string, string>) =>
  writeFileSync(
    join(folder, "umpire.config.yaml"),
    `agents:\n${Object.entries(agents)
      .map(([name, model]) => `  ${name}:\n    model: ${model}\n`)
      .join("")}defaultAgents: [ours]\n`,
  );
const taskFiles = () => TASKS.map((t) => join(folder, "tasks", `${t}.yaml`));
async function runId(args: string[] = []): Promise<string> {
  const r = await umpire(["run", ...taskFiles(), "--json", ...args]);
  expect(r.err).not.toMatch(/internal error/);
  return JSON.parse(r.out).runId as string;
}
/** The task names the gate's "stable task ... now fails" lines give. */
const regressedTasks = (out: string) => [...out.matchAll(/stable task (\S+) now fails:/g)].map((m) => m[1]).sort();

let r1: string;
let r2: string;
beforeAll(async () => {
  folder = mkdtempSync(join(tmpdir(), "umpire-edited-agent-"));
  mkdirSync(join(folder, "tasks"), { recursive: true });
  for (const t of TASKS) copyFileSync(join(ROOT, "tasks", `${t}.yaml`), join(folder, "tasks", `${t}.yaml`));
  // The tasks' custom checks import umpire's check API by a relative path: linked, they load from the repository.
  symlinkSync(join(ROOT, "tasks/checks"), join(folder, "tasks/checks"));
  config({ ours: "reference" });
  r1 = await runId();
  config({ ours: "reference:wrong-record" });
  r2 = await runId();
}, 300_000);
afterAll(() => rmSync(folder, { recursive: true, force: true }));

describe("every run's environment is visible (issue 36 item 4)", () => {
  it("show heads a run with it; show --json gives the run's and each trial's; the report's run header shows it", async () => {
    const text = await umpire(["show", r1]);
    expect(text.out.split("\n")[1]).toMatch(
      /^environment: umpire \d+\.\d+\.\d+, chromium \d+\.\S+ \(local\), playwright \d+\.\S+, node v\d+\S*, \S+ \S+ \S+, fonts /,
    );
    const shown = JSON.parse((await umpire(["show", r1, "--json"])).out);
    const version = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")).version;
    expect(shown.environment).toMatchObject({
      umpire: version,
      chromium: { version: expect.stringMatching(/^\d+\./), endpoint: "local" },
      playwright: expect.stringMatching(/^\d+\./),
      node: process.version,
      os: { platform: process.platform },
    });
    expect(shown.trials).toHaveLength(3);
    for (const t of shown.trials)
      expect(t.environment).toMatchObject({ target: { name: "fixture" }, viewport: { deviceScaleFactor: 1 } });
    expect((await umpire(["report", r1, "--out", join(folder, "report-r1")])).code).toBe(0);
    const index = readFileSync(join(folder, "report-r1/index.html"), "utf8");
    expect(index).toMatch(/<p class="run-meta" id="run-environment">environment: umpire \d+\.\d+\.\d+, chromium \d+\./);
  }, 60_000);
});

describe("the gate judges an agent edited under its own name", () => {
  it("exits 1 naming the flipped tasks, and says first what changed in the agent", async () => {
    const gate = await runCli(["compare", r2, "--baseline", r1, "--fail-on-regression"], { cwd: folder });
    expect(gate.stderr).toBe("");
    expect(gate.code).toBe(1);
    expect(gate.stdout.split("\n")[0]).toBe(
      "agent ours changed (the change under test): model reference -> reference:wrong-record",
    );
    expect(gate.stdout).toMatch(/3 paired tasks, 3 paired repeats/);
    expect(gate.stdout).toMatch(/flipped\s+pass -> fail: api-note-bb042, trap-date-bb042; fail -> pass: none/);
    expect(gate.stdout).toMatch(/REGRESSION/);
    expect(regressedTasks(gate.stdout)).toEqual(FLIPS);
    expect(gate.stdout).not.toMatch(/not a like-for-like|left out/);

    const json = JSON.parse((await umpire(["compare", r1, r2, "--json"])).out);
    expect(json.changes).toEqual([
      "agent ours changed (the change under test): model reference -> reference:wrong-record",
    ]);
    expect(json.comparison.paired[0]).toMatchObject({ tasks: 3, changedAgents: ["ours"], changedTasks: [] });
  }, 120_000);

  it("an old --include-changed-agents still runs, with a one-line note, and gives the same answer", async () => {
    const gate = await umpire(["compare", r2, "--baseline", r1, "--fail-on-regression", "--include-changed-agents"]);
    expect(gate.code).toBe(1);
    expect(gate.err.trim().split("\n")).toEqual([
      "umpire compare: --include-changed-agents: no longer needed: an agent changed under its own name is the change under test, and its pairs always count",
    ]);
    expect(regressedTasks(gate.out)).toEqual(FLIPS);
  }, 60_000);

  it("report --baseline finds the same flips and heads divergence.html with the change", async () => {
    const r = await umpire(["report", r2, "--baseline", r1, "--out", join(folder, "report")]);
    expect(r.code).toBe(0);
    const page = readFileSync(join(folder, "report/divergence.html"), "utf8");
    expect(page).not.toMatch(/No task flipped/);
    expect(page).toContain("agent ours changed (the change under test): model reference -&gt; reference:wrong-record");
    for (const task of FLIPS) expect(page).toContain(`id="divergence-${task}"`);
    expect(page).not.toContain('id="divergence-answer-only-bb042"');
  }, 120_000);

  it("the same change under a new agent name gives the same answer", async () => {
    config({ ours: "reference", theirs: "reference:wrong-record" });
    const r3 = await runId(["--agent", "theirs"]);
    const gate = await umpire(["compare", r3, "--baseline", r1, "--fail-on-regression"]);
    expect(gate.code).toBe(1);
    expect(gate.out.split("\n")[0]).toBe(
      "agent theirs compared with ours (the change under test): model reference -> reference:wrong-record",
    );
    expect(gate.out).toMatch(/3 paired tasks, 3 paired repeats/);
    expect(regressedTasks(gate.out)).toEqual(FLIPS);
  }, 120_000);

  it("a task edited between the runs is named with what changed and left out; --until-decided leaves it out too", async () => {
    config({ ours: "reference:wrong-record" });
    const file = join(folder, "tasks/api-note-bb042.yaml");
    writeFileSync(file, readFileSync(file, "utf8").replace("look up match BB-042", "look up match BB-042 first"));
    const r4 = await runId();
    const gate = await umpire(["compare", r4, "--baseline", r1, "--fail-on-regression"]);
    expect(gate.code).toBe(1);
    const head = gate.out.split("\n\n")[0]!.split("\n");
    expect(head).toEqual([
      "agent ours changed (the change under test): model reference -> reference:wrong-record",
      "task api-note-bb042 changed: instruction; not like-for-like, its pairs are left out",
    ]);
    expect(gate.out).toMatch(/2 paired tasks, 2 paired repeats/);
    expect(regressedTasks(gate.out)).toEqual(["trap-date-bb042"]);

    const decided = await umpire([
      "run",
      join(folder, "tasks/api-note-bb042.yaml"),
      join(folder, "tasks/answer-only-bb042.yaml"),
      "--until-decided",
      "--baseline",
      r1,
      "--max-trials",
      "2",
    ]);
    expect(decided.out).toContain(
      "  agent ours changed (the change under test): model reference -> reference:wrong-record\n",
    );
    expect(decided.out).toMatch(/ {2}task changed {4}api-note-bb042 \[ours\] 1\/1 -> 0\/1/);
    expect(decided.out).not.toMatch(/undecided\s+api-note-bb042/);
    // Only the unchanged task got repeats: no repeat makes an edited task like-for-like.
    expect(decided.err).not.toMatch(/api-note-bb042 \[ours #1\]/);
  }, 240_000);
});
