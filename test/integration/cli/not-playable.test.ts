/**
 * A task a protocol cannot play (#41), through the real CLI with real Chromium and a real SQLite file:
 * the API-only task's gold needs http_get and write_note, which UI-TARS's action space cannot express.
 * The self-test says "not playable" (not unsound, exit 0); `try` and a run of that one agent are
 * refused before any trial; a run of two named agents leaves that pair out with one line, stores it,
 * and `show` lists it as not played (and the agent whose protocol was not written); `compare --by
 * agent` names each arbitrarily named agent's row with its protocol.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../../support/cli.js";

const dir = mkdtempSync(join(tmpdir(), "umpire-not-playable-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const STORE = ["--db", join(dir, "umpire.db"), "--out", join(dir, "runs")];
const API_NOTE = join(REPO_ROOT, "tasks/api-note-bb042.yaml");
const ANSWER_ONLY = join(REPO_ROOT, "tasks/answer-only-bb042.yaml");
const NOT_PLAYABLE =
  "not playable in ui-tars: needs http_get, write_note, which ui-tars's action space has no way to express";

describe("a task/protocol pair that is not playable", () => {
  it("validate --self-test --mode ui-tars: said not playable, not unsound; gold proven in structured; exit 0", async () => {
    const json = await runCli(["validate", "--self-test", "--mode", "ui-tars", "--json", ...STORE, API_NOTE]);
    const body = JSON.parse(json.stdout) as {
      selfTest: {
        sound: boolean;
        results: { protocol: string; probe: { name: string }; ok: boolean }[];
        unsoundPairs: unknown[];
        notPlayable: unknown[];
      };
    };
    expect(body.selfTest.notPlayable).toEqual([
      { task: "api-note-bb042", protocol: "ui-tars", missing: ["http_get", "write_note"] },
    ]);
    expect(body.selfTest.unsoundPairs).toEqual([]);
    expect(body.selfTest.results.filter((r) => r.protocol === "ui-tars")).toEqual([]);
    expect(body.selfTest.results.find((r) => r.probe.name === "gold/structured")).toMatchObject({ ok: true });
    expect(body.selfTest.sound).toBe(true);
    expect(json.code).toBe(0);
  }, 600_000);

  it("try --mode ui-tars is refused before any trial, naming the file, the protocol, the tools and the fix", async () => {
    const r = await runCli(["try", API_NOTE, "--mode", "ui-tars", ...STORE]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`try: tasks/api-note-bb042.yaml (its gold) is ${NOT_PLAYABLE}`);
    expect(r.stderr).toContain("fix: try it with another --mode");
    expect(r.stdout).toBe("");
  });

  it("run with one agent that cannot play a task is refused before any trial", async () => {
    const r = await runCli(["run", API_NOTE, ANSWER_ONLY, "--model", "reference", "--mode", "ui-tars", ...STORE]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`run: tasks/api-note-bb042.yaml is ${NOT_PLAYABLE}`);
    expect(r.stderr).toContain("fix: run it with another --mode or --agent");
    expect(r.stderr).toContain("--grep-invert '^(api-note-bb042)$'");
    const runs = await runCli(["runs", "--json", "--db", join(dir, "umpire.db")]);
    expect(runs.stdout).not.toContain("ui-tars");
  });

  it("run with two named agents: the pair is left out and said; show lists it and the defaulted protocol; compare rows name each family", async () => {
    const cwd = join(dir, "agents");
    mkdirSync(cwd, { recursive: true });
    writeFileSync(
      join(cwd, "umpire.config.yaml"),
      "agents:\n  alpha:\n    model: reference\n  bravo:\n    model: reference\n    protocol: ui-tars\n",
    );
    const db = ["--db", join(cwd, "u.db"), "--out", join(cwd, "runs")];
    const run = await runCli(["run", API_NOTE, ANSWER_ONLY, "--agent", "alpha", "--agent", "bravo", ...db, "--json"], {
      cwd,
    });
    expect(run.stderr).toContain(
      `umpire: not playing api-note-bb042 with agent bravo: ${NOT_PLAYABLE}; left out of the run (not a failure)`,
    );
    const body = JSON.parse(run.stdout) as {
      runId: string;
      notPlayed: { task: string; agent: string; protocol: string; missing: string[] }[];
      trials: { task: string; agent: string; verdict: string }[];
    };
    expect(body.trials.map((t) => `${t.task} ${t.agent} ${t.verdict}`).sort()).toEqual([
      "answer-only-bb042 alpha passed",
      "answer-only-bb042 bravo passed",
      "api-note-bb042 alpha passed",
    ]);
    expect(body.notPlayed).toMatchObject([
      { task: "api-note-bb042", agent: "bravo", protocol: "ui-tars", missing: ["http_get", "write_note"] },
    ]);
    expect(run.code).toBe(0);

    const show = await runCli(["show", body.runId, "--db", join(cwd, "u.db")], { cwd });
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(`not played: api-note-bb042 with agent bravo: ${NOT_PLAYABLE}`);
    expect(show.stdout).toContain(
      "agent alpha: protocol structured (Holo), the default: umpire knows no native protocol for the model id reference",
    );
    // bravo writes its protocol: nothing to say about it.
    expect(show.stdout).not.toContain("agent bravo: protocol");

    const compare = await runCli(["compare", body.runId, "--by", "agent", "--db", join(cwd, "u.db")], { cwd });
    expect(compare.code).toBe(0);
    expect(compare.stdout).toMatch(/│ alpha \(structured\)\s+│/);
    expect(compare.stdout).toMatch(/│ bravo \(ui-tars\)\s+│/);
    const json = await runCli(["compare", body.runId, "--by", "agent", "--db", join(cwd, "u.db"), "--json"], { cwd });
    const groups = JSON.parse(json.stdout).comparison.groups as { label: string; summary: { n: number } }[];
    expect(groups.map((g) => [g.label, g.summary.n])).toEqual([
      ["alpha (structured)", 2],
      ["bravo (ui-tars)", 1],
    ]);
  }, 600_000);
});
