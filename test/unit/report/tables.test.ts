import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import { compareGroups } from "../../../src/report/compare.js";
import { formatCostPerSuccess, formatDelta, formatMs, formatUsd } from "../../../src/report/format.js";
import { compareMarkdown, escapeMarkdown } from "../../../src/report/markdown.js";
import { compareTable, metricLines, runsTable } from "../../../src/report/tables.js";
import { renderTable, terminalStyle, visibleWidth } from "../../../src/report/table-layout.js";
import { openStore } from "../../../src/store/open.js";
import type { Store } from "../../../src/store/store.js";
import type { TrialRecord } from "../../../src/store/records.js";
import { tempDir, withTempStore } from "../store/fixtures.js";
import { fakeIO, seedRun } from "./seed.js";

describe("format", () => {
  it("rounds for display only and never shows unknown as 0", () => {
    expect(formatUsd(0.0093874)).toBe("$0.00939");
    expect(formatUsd(0.0304)).toBe("$0.0304");
    expect(formatUsd(12.345)).toBe("$12.35");
    expect(formatUsd(0)).toBe("$0");
    expect(formatUsd(null)).toBe("unknown");
    expect(formatCostPerSuccess("unknown")).toBe("unknown");
    expect(formatCostPerSuccess("no_success")).toBe("—");
    expect(formatMs(850)).toBe("850 ms");
    expect(formatMs(12_450)).toBe("12.4 s");
    expect(formatMs(125_000)).toBe("2m 05s");
    expect(formatDelta(20)).toBe("+20.0%");
    expect(formatDelta(-3.14)).toBe("-3.1%");
    expect(formatDelta(null)).toBe("—");
  });
});

describe("table layout", () => {
  const columns = [
    { head: "task", priority: 100, cell: (r: { t: string }) => r.t },
    { head: "wide low-priority column", priority: 1, cell: () => "x".repeat(40) },
    { head: "mid", priority: 50, cell: () => ({ text: "ok", colour: "green" as const }) },
  ];
  const rows = [{ t: "save-bb042" }, { t: "cookie-reject" }];

  it("drops the least important columns until the table fits the terminal", () => {
    const wide = renderTable(columns, rows, { color: false });
    expect(wide).toContain("wide low-priority column");
    const narrow = renderTable(columns, rows, { color: false, width: 40 });
    expect(narrow).not.toContain("wide low-priority column");
    expect(narrow).toContain("mid");
    for (const line of narrow.split("\n")) expect(visibleWidth(line)).toBeLessThanOrEqual(40);
  });
  it("colours only when asked", () => {
    expect(renderTable(columns, rows, { color: false })).not.toContain("\u001b[");
    expect(renderTable(columns, rows, { color: true })).toContain("\u001b[32mok\u001b[39m");
  });
  it("takes colour and width from the stream and the environment", () => {
    expect(terminalStyle({ isTTY: true, columns: 90 }, {})).toEqual({ color: true, width: 90 });
    expect(terminalStyle({ isTTY: true, columns: 90 }, { NO_COLOR: "1" })).toEqual({ color: false, width: 90 });
    expect(terminalStyle({}, {})).toEqual({ color: false, width: undefined });
    expect(terminalStyle({}, { FORCE_COLOR: "1" }).color).toBe(true);
  });
});

describe("views of stored runs", () => {
  let dir: string;
  let store: Store;
  let db: string;
  withTempStore((t) => ({ dir, db, store } = t));

  function twoRuns(): [TrialRecord[], TrialRecord[]] {
    const a = seedRun(store, {
      model: "reference",
      startedAt: "2025-06-01T00:00:00.000Z",
      trials: [
        { task: "a|b", verdict: "passed" },
        { task: "c", verdict: "passed" },
      ],
    });
    const b = seedRun(store, {
      model: "reference",
      startedAt: "2025-06-02T00:00:00.000Z",
      trials: [
        { task: "a|b", verdict: "failed" },
        { task: "c", verdict: "error" },
      ],
    });
    return [store.trials(a), store.trials(b)];
  }

  it("compare table: a row per task and group, a summary row per group with its Wilson interval", () => {
    const [a, b] = twoRuns();
    const c = compareGroups(
      [
        { label: "A", runIds: [], trials: a },
        { label: "B", runIds: [], trials: b },
      ],
      "run",
    );
    const text = compareTable(c, { color: false });
    expect(text).toMatch(/a\|b\s+│ A\s+│ 1\/1/);
    expect(text).toMatch(/│\s+│ B\s+│ 0\/1 /);
    expect(text).toMatch(/c\s+│ A .*│\s+│ B\s+│ 0\/0 \+1 err/s);
    expect(text).toMatch(/all tasks\s+│ A\s+│ 2\/2 100% \(34–100%\)/);
    expect(text).toMatch(/│\s+│ B\s+│ 0\/1 0% \(0–79%\) \+1 err/);
  });

  it("markdown escapes cell text so a '|' in a task id cannot break the table", () => {
    const [a, b] = twoRuns();
    const md = compareMarkdown(
      compareGroups(
        [
          { label: "A", runIds: [], trials: a },
          { label: "B", runIds: [], trials: b },
        ],
        "run",
      ),
    );
    const tableRows = md.split("\n").filter((l) => l.startsWith("|"));
    const cells = (l: string) => l.split(/(?<!\\)\|/).length;
    expect(new Set(tableRows.map(cells)).size).toBe(1);
    expect(md).toContain("`a\\|b`");
    expect(escapeMarkdown("x|y_z")).toBe("x\\|y\\_z");
  });

  it("runs lists each run with its counts; an empty store says how to make one", async () => {
    expect(runsTable([], { color: false })).toContain("no runs stored yet");
    twoRuns();
    const f = fakeIO(dir);
    expect(await main(["runs", "--db", db], f.io)).toBe(0);
    const lines = f
      .out()
      .split("\n")
      .filter((l) => /^│ 2025/.test(l));
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^│ 20250602-000000-\w{4} .* running .*│\s+2 │\s+0 │\s+1 │\s+1 │/);
  });

  it("show prints per trial the verdict, stop reason and detail, tokens, cost, time breakdown, metrics and every check", async () => {
    const [, b] = twoRuns();
    const f = fakeIO(dir);
    expect(await main(["show", b[0].runId, "--db", db], f.io)).toBe(0);
    const out = f.out();
    expect(out).toContain("a|b · structured · reference · repeat 0: failed");
    expect(out).toContain("stop: answered: model finished, note wrong; claimed yes, verified no");
    expect(out).toContain("tokens: 10,000 in (0 cached), 500 out (200 reasoning); cost $0");
    expect(out).toContain(
      "time: wall 10.0 s = model 8.0 s + executor 1.0 s + capture 500 ms + checks 100 ms + other 400 ms",
    );
    expect(out).toContain("metrics: stuckSteps 0, reflections 0, recoveries 0");
    expect(out).toContain('FAIL file "check 0" (required, verified): note names BB-024, expected BB-042');
    expect(out).toContain("error: browser crashed");

    const json = fakeIO(dir);
    await main(["show", "latest", "--db", db, "--json"], json.io);
    const parsed = JSON.parse(json.out());
    expect(parsed.runId).toBe(b[0].runId);
    expect(parsed.trials[0]).toMatchObject({
      task: "a|b",
      mode: "structured",
      model: "reference",
      repeat: 0,
      stopReason: "answered",
      stopDetail: "model finished, note wrong",
      verdict: "failed",
      claimed: true,
      verified: false,
      checks: [
        {
          kind: "file",
          name: "check 0",
          required: true,
          pass: false,
          confidence: "verified",
          reason: "note names BB-024, expected BB-042",
        },
      ],
      turns: 4,
      actions: 5,
      usage: { inputTokens: 10_000, outputTokens: 500, reasoningTokens: 200, cachedTokens: 0 },
      costUsd: 0,
      timing: { wallMs: 10_000, modelMs: 8000, executorMs: 1000, captureMs: 500, checkMs: 100 },
      metrics: { stuckSteps: 0, reflections: 0, recoveries: 0 },
      folder: "trials/0",
    });
  });

  it("show and runs fail clearly without a database or with an unknown run", async () => {
    const missing = fakeIO(dir);
    expect(await main(["runs", "--db", join(dir, "none.db")], missing.io)).toBe(2);
    expect(missing.err()).toContain("no umpire database at");
    twoRuns();
    const unknown = fakeIO(dir);
    expect(await main(["show", "1999", "--db", db], unknown.io)).toBe(2);
    expect(unknown.err()).toContain("no run '1999'");
  });
});

describe("metricLines", () => {
  it("puts flat metrics on one line and each nested group on its own", () => {
    expect(metricLines({ stuckSteps: 0, reflections: 1 })).toEqual(["   metrics: stuckSteps 0, reflections 1"]);
    expect(
      metricLines({
        repetition: { stuckSteps: 2, recoveries: 1 },
        evidence: [],
        notes: ["Save covered", "same screen x3"],
      }),
    ).toEqual(["   repetition: stuckSteps 2, recoveries 1", "   notes: Save covered; same screen x3"]);
  });
});

describe("show --turns", () => {
  it("lists each turn's model time, first token, tokens and cost, and each action's status and executor time", async () => {
    const { dir, cleanup } = tempDir();
    try {
      const db = join(dir, "umpire.db");
      const store = openStore(db);
      const run = store.createRun({ umpireVersion: "0.1.0" });
      const [trial] = store.addTrials(run.id, [
        {
          seq: 0,
          taskId: "t",
          taskFile: "tasks/t.yaml",
          agentLabel: "m/tools",
          model: "holo3-122b-a10b",
          mode: "tools",
          repeat: 0,
        },
      ]);
      store.startTrial(trial.id, { folder: "trials/0" });
      store.recordTurn({
        trialId: trial.id,
        idx: 0,
        outcome: "actions",
        modelMs: 2000,
        ttftMs: 450,
        usage: { inputTokens: 21_166, outputTokens: 307, reasoningTokens: 0, cachedTokens: 0 },
        costUsd: 0.0093874,
        note: "search box visible",
      });
      store.recordActions([
        {
          trialId: trial.id,
          turnIdx: 0,
          idx: 0,
          callId: "c1",
          tool: "click",
          args: {},
          status: "success",
          message: "input sent",
          executorMs: 40,
        },
        {
          trialId: trial.id,
          turnIdx: 0,
          idx: 1,
          callId: "c2",
          tool: "write",
          args: {},
          status: "skipped",
          message: "cancelled by user",
          executorMs: 0,
        },
      ]);
      store.close();
      const f = fakeIO(dir);
      expect(await main(["show", run.id, "--turns", "--db", db], f.io)).toBe(0);
      expect(f.out()).toContain(
        "turn 0: actions, model 2.0 s (first token 450 ms), 21,166 in / 307 out, cost $0.00939",
      );
      expect(f.out()).toContain("note: search box visible");
      expect(f.out()).toContain("click success 40 ms: input sent");
      expect(f.out()).toContain("write skipped 0 ms: cancelled by user");
      const priced = fakeIO(dir);
      await main(["show", run.id, "--turns", "--json", "--price-in", "2", "--price-out", "8", "--db", db], priced.io);
      expect(JSON.parse(priced.out()).trials[0].turnLog[0].costUsd).toBe(0.044788); // 21,166 x 2 + 307 x 8 per million
    } finally {
      cleanup();
    }
  });
});
