/**
 * An agent of kind command runs its own loop: the store keeps its trials as mode `external`, not
 * as one of the Holo protocols, and every reader says so. Through the real CLI and real Chromium:
 * one run with a command agent and the reference model in structured mode.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { stringify } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { runCli } from "../../support/cli.js";
import { runInProcess } from "../../support/cli-in-process.js";
import { readTrialLog, TRIAL_LOG_FORMAT, TRIAL_LOG_VERSION } from "../../../src/runner/trial/trial-log.js";
import { events, scratch, trialFolder } from "../security/support.js";

const s = scratch("external-mode");
afterAll(() => s.cleanup());

/** Gives up at once with an answer: enough for a trial of its own loop, with no browser work. */
const GIVE_UP = `import { writeFileSync } from "node:fs";
writeFileSync(process.env.UMPIRE_RESULT_FILE, JSON.stringify({ answer: "not found", outcome: "failure" }));`;

describe("agents of kind command are stored and shown as mode external", () => {
  it("run, show, compare --by mode and the HTML report keep the external agent apart from the structured protocol", async () => {
    const dir = join(s.dir, "config");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "give-up.mjs"), GIVE_UP);
    const config = join(dir, "umpire.config.yaml");
    writeFileSync(
      config,
      stringify({ agents: { "give-up": { kind: "command", command: [process.execPath, "give-up.mjs"] } } }),
    );

    const run = await runCli(
      [
        "run",
        "tasks/scorecard-note-bb042.yaml",
        "--config",
        config,
        "--agent",
        "give-up",
        "--model",
        "reference",
        "--mode",
        "structured",
        "--run-id",
        "ext-mode",
        "--out",
        s.out,
        "--db",
        s.db,
      ],
      { killAfterMs: 240_000 },
    );
    // The reference model passes, the command agent gives up: some trial failed.
    expect(run.code, run.stderr).toBe(1);
    expect(run.stdout).toContain("by mode (structured outputs, external agents)");

    const raw = new Database(s.db, { readonly: true });
    const stored = raw
      .prepare("SELECT agent_label, mode, verdict FROM trials WHERE run_id = 'ext-mode' ORDER BY seq")
      .all();
    raw.close();
    expect(stored).toEqual(
      expect.arrayContaining([
        { agent_label: "give-up", mode: "external", verdict: "failed" },
        { agent_label: "reference/structured", mode: "structured", verdict: "passed" },
      ]),
    );
    expect(stored).toHaveLength(2);

    const show = await runInProcess(["show", "ext-mode", "--db", s.db, "--json"]);
    expect(show.code, show.stderr).toBe(0);
    const trials = JSON.parse(show.stdout).trials as { id: string; agent: string; mode: string }[];
    // Both kinds of trial open their event log alike: the log's format and version, then the trial.
    for (const trial of trials) {
      const first = events(trialFolder(s.out, "ext-mode", trial.id))[0]!;
      expect(first, trial.agent).toMatchObject({
        type: "AgentStartedEvent",
        data: { format: TRIAL_LOG_FORMAT, format_version: TRIAL_LOG_VERSION, trial: trial.id, agent: trial.agent },
      });
      expect(readTrialLog(join(trialFolder(s.out, "ext-mode", trial.id), "events.jsonl")).version).toBe(
        TRIAL_LOG_VERSION,
      );
    }
    expect(trials.map((t) => events(trialFolder(s.out, "ext-mode", t.id))[0]!.data.kind).sort()).toEqual([
      "command",
      undefined,
    ]);
    expect(Object.fromEntries(trials.map((t) => [t.agent, t.mode]))).toEqual({
      "give-up": "external",
      "reference/structured": "structured",
    });
    const showText = await runInProcess(["show", "ext-mode", "--db", s.db]);
    expect(showText.stdout).toMatch(/external/);

    const compare = await runInProcess(["compare", "ext-mode", "--by", "mode", "--db", s.db, "--json"]);
    expect(compare.code, compare.stderr).toBe(0);
    const groups = JSON.parse(compare.stdout).comparison.groups as {
      label: string;
      summary: { trials?: number; invalidCalls: unknown };
    }[];
    expect(groups.map((g) => g.label)).toEqual(["structured", "external"]);
    // Refused calls: umpire's loop stored its count (none); the command agent's loop is its own, so its
    // group has none recorded, never a 0 (docs/reporting.md, "Invalid calls in comparisons and the report").
    expect(groups.map((g) => g.summary.invalidCalls)).toEqual([
      expect.objectContaining({ total: 0, perTurn: 0, notRecorded: 0 }),
      null,
    ]);
    const NOT_RECORDED = "external: not recorded (no trial of umpire's loop stored them)";
    const compareText = await runInProcess(["compare", "ext-mode", "--by", "mode", "--db", s.db]);
    expect(compareText.stdout).toMatch(/\n {2}structured: 0 per turn: no invalid calls in \d+ turns\n/);
    expect(compareText.stdout).toContain(`\n  ${NOT_RECORDED}\n`);
    expect(run.stdout).toContain(`\n  ${NOT_RECORDED}\n`);

    const reportDir = join(s.dir, "report");
    const report = await runInProcess(["report", "ext-mode", "--db", s.db, "--out", reportDir]);
    expect(report.code, report.stderr).toBe(0);
    const overview = readFileSync(join(reportDir, "index.html"), "utf8");
    expect(overview).toContain('data-mode="external"');
    expect(overview).toContain('data-mode="structured"');
    // The summary's row of the command agent says it, in the same words.
    const row = overview.match(/<th scope="row">give-up<\/th>[\s\S]*?<\/tr>/)?.[0];
    expect(row).toContain('<td class="invalid-calls">not recorded (no trial of umpire&#39;s loop stored them)</td>');
  });
});
