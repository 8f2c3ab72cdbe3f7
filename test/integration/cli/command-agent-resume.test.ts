/**
 * --resume and --last-failed bring back agents of kind command (through the real CLI, real
 * Chromium, a real SQLite file). The run stores such an agent without its environment values, so
 * it is rebuilt from the config file, and refused with the reason and the fix when the config
 * file no longer defines it, or defines another agent under its name.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/open.js";
import { runCli } from "../../support/cli.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-cmd-resume-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const TOKEN = "s3cr3t-token-41f7";
/** Gives up at once (no browser work), and says whether the config's environment value reached it. */
const QUITTER = `import { writeFileSync } from "node:fs";
writeFileSync(process.env.UMPIRE_RESULT_FILE, JSON.stringify({ answer: process.env.TOKEN === ${JSON.stringify(TOKEN)} ? "env ok" : "env missing", outcome: "failure" }));`;

function config(name: string, agents: Record<string, unknown>): string {
  const file = join(dir, "cfg", `${name}.yaml`);
  writeFileSync(file, stringify({ agents }));
  return file;
}
const quitter = (script = "quitter.mjs") => ({ kind: "command", command: [process.execPath, script], env: { TOKEN } });

const db = () => join(dir, "umpire.db");
const umpire = (args: string[]) =>
  runCli([...args, "--db", db(), "--out", join(dir, "runs")], { env: { CI: "" }, killAfterMs: 300_000 });

describe("command agents come back with --resume and --last-failed", () => {
  let runId: string;
  let cfg: string;

  it("-x leaves a command agent's trial unstarted; --resume runs it with the agent rebuilt from the config file", async () => {
    mkdirSync(join(dir, "cfg"), { recursive: true });
    writeFileSync(join(dir, "cfg", "quitter.mjs"), QUITTER);
    cfg = config("umpire.config", { quitter: quitter() });
    const first = await umpire([
      "run",
      "answer-only-bb042",
      "--agent",
      "quitter",
      "--config",
      cfg,
      "--repeat",
      "2",
      "--concurrency",
      "1",
      "-x",
    ]);
    expect(first.code, first.stderr).toBe(1);
    runId = /umpire run --resume (\S+) runs them/.exec(first.stderr)![1]!;

    const listed = await umpire(["run", "--resume", runId, "--config", cfg, "--list"]);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(/answer-only-bb042\s+quitter\s+1/);
    expect(listed.stdout).toContain("1 trial (1 task, 1 agent); nothing was run");

    const resumed = await umpire(["run", "--resume", runId, "--config", cfg]);
    expect(resumed.code, resumed.stderr).toBe(1);
    const store = openStore(db(), { readonly: true });
    try {
      const trials = store.trials(runId);
      expect(trials.map((t) => [t.agentLabel, t.mode, t.verdict, t.answer])).toEqual([
        ["quitter", "external", "failed", "env ok"],
        ["quitter", "external", "failed", "env ok"],
      ]);
      expect(store.getRun(runId).status).toBe("finished");
    } finally {
      store.close();
    }
    // The environment value reached the command, never the store.
    expect(readFileSync(db()).includes(TOKEN)).toBe(false);
  });

  it("--last-failed re-runs the command agent's failed pair", async () => {
    const again = await umpire(["run", "--last-failed", "--config", cfg]);
    expect(again.code, again.stderr).toBe(1);
    expect(again.stderr).toContain(`re-running 1 trials: the tasks x agents that did not pass in run ${runId}`);
    const store = openStore(db(), { readonly: true });
    try {
      const latest = store.getRun("latest");
      expect(latest.id).not.toBe(runId);
      expect(store.trials(latest.id).map((t) => [t.taskId, t.agentLabel, t.mode, t.answer])).toEqual([
        ["answer-only-bb042", "quitter", "external", "env ok"],
      ]);
    } finally {
      store.close();
    }
  });

  it("refuses, saying why and what to do, when the config file no longer defines the agent or defines another one", async () => {
    const none = await umpire(["run", "--resume", runId, "--config", config("empty", {})]);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(`--resume: run ${runId} ran the command agent quitter, which`);
    expect(none.stderr).toContain("without its environment values, so it is rebuilt from the config file");
    expect(none.stderr).toContain(`or pass --config ${cfg}`);

    const other = await umpire([
      "run",
      "--last-failed",
      "--config",
      config("changed", { quitter: quitter("other.mjs") }),
    ]);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(
      /--last-failed: the command agent quitter in \S+changed\.yaml is not the one run \S+ ran \(command: .*quitter\.mjs.* then, .*other\.mjs.* now\)/,
    );
    expect(other.stderr).toContain("--agent <name>");
  });
});
