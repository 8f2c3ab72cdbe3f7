/**
 * Refused calls where groups are compared (#41 follow-up): per turn over the trials that stored them, so
 * groups of unequal size compare; "not recorded" (never 0) for a group none of whose trials stored
 * them; grouped by compare's own rows (two named agents sharing model and mode stay apart); shown in
 * compare's table, Markdown and JSON (the group summaries), the HTML report's summary and a turn.
 */
import { describe, expect, it } from "vitest";
import type { ReportTrial } from "../../../src/report/aggregate.js";
import { compareGroups, groupTrialsBy } from "../../../src/report/compare.js";
import { formatRate } from "../../../src/report/format.js";
import { overviewHtml } from "../../../src/report/html/overview.js";
import { turnHtml } from "../../../src/report/html/turn.js";
import { invalidCallRate, invalidCallsByAgent, invalidRateText } from "../../../src/report/invalid-calls.js";
import { compareMarkdown } from "../../../src/report/markdown.js";
import { compareTable } from "../../../src/report/tables.js";
import type { TurnRecord } from "../../../src/store/records.js";
import type { TrialMode } from "../../../src/vocabulary.js";
import { withTempStore, type TempStore } from "../store/fixtures.js";
import { seedRun } from "./seed.js";

let seq = 0;
function trial(agentLabel: string, mode: TrialMode, turns: number, metrics: Record<string, unknown>): ReportTrial {
  seq += 1;
  return {
    id: `run-${seq}`,
    runId: "run",
    seq,
    taskId: "save-bb042",
    model: mode === "external" ? "ext" : "claude-x",
    mode,
    agentLabel,
    repeat: seq,
    status: "done",
    verdict: "failed",
    claimed: false,
    stopReason: "answered",
    turns,
    actions: turns,
    wallMs: 1000,
    costUsd: 0.01,
    metrics,
  };
}

/** The cells of `head`'s column in the rows of a rendered table whose first cell is `first` or blank below it. */
function column(table: string, head: string): string[] {
  const cells = (line: string) => line.split("│").map((c) => c.trim());
  const lines = table.split("\n").filter((l) => l.startsWith("│"));
  const i = cells(lines[0]!).indexOf(head);
  expect(i, `no column ${head}`).toBeGreaterThan(0);
  return lines.slice(1).map((l) => cells(l)[i]!);
}

describe("refused calls per turn", () => {
  it("sums them over the turns of the trials that stored them; the rest are counted apart, none is null", () => {
    const rate = invalidCallRate([
      { turns: 4, metrics: { invalid: { unsupported_action: 2 } } },
      { turns: 8, metrics: { invalid: { missing_fields: 1, unsupported_action: 1 } } },
      { turns: 5, metrics: { repetition: {} } }, // stored before kinds were
    ]);
    expect(rate).toEqual({
      total: 4,
      byKind: { unsupported_action: 3, missing_fields: 1 },
      turns: 12,
      perTurn: 4 / 12,
      recorded: 2,
      notRecorded: 1,
    });
    expect(invalidRateText(rate)).toBe(
      "0.33 per turn: invalid calls 4 (unsupported_action 3, missing_fields 1) in 12 turns; 1 of 3 trials not recorded",
    );
    const none = invalidCallRate([{ turns: 6, metrics: { invalid: {} } }]);
    expect(none).toMatchObject({ total: 0, perTurn: 0, recorded: 1, notRecorded: 0 });
    expect(invalidRateText(none)).toBe("0 per turn: no invalid calls in 6 turns");
    expect(invalidCallRate([{ turns: 3, metrics: {} }, { turns: 2 }])).toBeNull();
    expect(invalidRateText(null)).toMatch(/^not recorded/);
    expect([formatRate(0), formatRate(0.004), formatRate(0.25), formatRate(null)]).toEqual(["0", "<0.01", "0.25", "—"]);
  });
});

describe("compare shows them per group", () => {
  // Two named agents of one model and mode (careful: 2 refusals in 8 turns over 2 trials; terse: none in
  // 10 turns over 1 trial) and a command agent that does not use umpire's loop.
  const trials = [
    trial("careful", "anthropic-computer", 4, { invalid: { unsupported_action: 1 } }),
    trial("careful", "anthropic-computer", 4, { invalid: { unsupported_action: 1 } }),
    trial("terse", "anthropic-computer", 10, { invalid: {} }),
    trial("ext", "external", 6, { modelProxy: {} }),
  ];
  const c = compareGroups(groupTrialsBy(trials, "agent"), "agent");

  it("--by agent: one rate per row of compare, not per model and mode; a command agent's is not recorded", () => {
    expect(c.groups.map((g) => [g.label, g.summary.invalidCalls?.perTurn ?? null])).toEqual([
      ["careful (anthropic-computer)", 0.25],
      ["terse (anthropic-computer)", 0],
      ["ext (external)", null],
    ]);
    expect(c.groups[2]!.summary.invalidCalls).toBeNull();
    // show's grouping is per agent too: the two named agents are not merged.
    expect(invalidCallsByAgent(trials.map((t) => ({ ...t, metrics: t.metrics ?? {} })))).toHaveLength(2);
    // In --json: the comparison's group summaries and task cells carry them unrounded.
    const json = JSON.parse(JSON.stringify(c));
    expect(json.groups[0].summary.invalidCalls).toMatchObject({
      total: 2,
      turns: 8,
      byKind: { unsupported_action: 2 },
    });
    expect(json.tasks[0].cells[2].invalidCalls).toBeNull();
  });

  it("the table has an invalid/turn column (— when not recorded) and a line per group with the kinds", () => {
    const table = compareTable(c, { color: false });
    expect(column(table, "invalid/turn").filter((x) => x !== "")).toEqual(["0.25", "0", "—", "0.25", "0", "—"]);
    expect(table).toContain(
      [
        "invalid calls per turn (the model's proposals umpire's loop refused, by kind):",
        "  careful (anthropic-computer): 0.25 per turn: invalid calls 2 (unsupported_action 2) in 8 turns",
        "  terse (anthropic-computer): 0 per turn: no invalid calls in 10 turns",
        "  ext (external): not recorded (no trial of umpire's loop stored them)",
      ].join("\n"),
    );
  });

  it("Markdown: the same column and lines", () => {
    const md = compareMarkdown(c);
    const [head, rule, first] = md.split("\n");
    expect(head).toContain("| actions | invalid/turn | cancelled |");
    expect(rule!.split("|").length).toBe(head!.split("|").length);
    expect(first!.split("|").length).toBe(head!.split("|").length);
    expect(md).toContain("| **all tasks** | **careful (anthropic-computer)** |");
    expect(md).toContain(
      "- careful (anthropic-computer): 0.25 per turn: invalid calls 2 (unsupported\\_action 2) in 8 turns",
    );
    expect(md).toContain("- ext (external): not recorded (no trial of umpire's loop stored them)");
  });

  it("says nothing when no group stored any: older runs compare as before", () => {
    const old = [trial("a", "structured", 4, {}), trial("b", "structured", 4, { repetition: {} })];
    const plain = compareGroups(groupTrialsBy(old, "agent"), "agent");
    expect(plain.groups.map((g) => g.summary.invalidCalls)).toEqual([null, null]);
    expect(compareTable(plain, { color: false })).not.toContain("invalid");
    expect(compareMarkdown(plain)).not.toContain("invalid");
  });
});

describe("the HTML report shows them", () => {
  let t: TempStore;
  withTempStore((opened) => {
    t = opened;
  });

  it("per agent config in the summary, in the same words", () => {
    const run = seedRun(t.store, {
      model: "reference",
      startedAt: "2026-12-01T00:00:00.000Z",
      trials: [
        { task: "a", mode: "structured", verdict: "failed", turns: 4, metrics: { invalid: { unsupported_action: 1 } } },
        { task: "a", mode: "tools", verdict: "passed", turns: 5, metrics: { invalid: {} } },
      ],
    });
    const page = overviewHtml({ run: t.store.getRun(run), trials: t.store.trials(run), tasks: new Map() });
    expect(page).toContain("<th title=");
    expect(page).toContain(">invalid calls per turn</th>");
    expect(page).toContain(
      '<td class="invalid-calls">0.25 per turn: invalid calls 1 (unsupported_action 1) in 4 turns</td>',
    );
    expect(page).toContain('<td class="invalid-calls">0 per turn: no invalid calls in 5 turns</td>');
    const unrecorded = seedRun(t.store, {
      model: "reference",
      startedAt: "2026-12-02T00:00:00.000Z",
      trials: [{ task: "a", verdict: "passed" }],
    });
    const old = overviewHtml({ run: t.store.getRun(unrecorded), trials: t.store.trials(unrecorded), tasks: new Map() });
    expect(old).not.toContain("invalid calls");
  });

  it("a turn says which of its calls umpire refused, by kind", () => {
    const turn = {
      idx: 2,
      outcome: "invalid",
      modelMs: 100,
      ttftMs: null,
      retries: 0,
      usage: null,
      flags: { invalid: { unknown_tool: 1, invalid_json: 1 } },
    } as unknown as TurnRecord;
    const view = { turn, actions: [], costUsd: null, image: null, highlight: null };
    expect(String(turnHtml(view, ""))).toContain(
      "<strong>Refused by umpire:</strong> invalid calls 2 (invalid_json 1, unknown_tool 1); not run",
    );
    expect(String(turnHtml({ ...view, turn: { ...turn, flags: {} } }, ""))).not.toContain("Refused");
  });
});
