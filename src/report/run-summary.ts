/**
 * The table `umpire run` ends with: one row per trial (task x agent config x repeat) with the
 * verdict, the stop reason, turns, actions, tokens, cost and wall time. A pure function of
 * stored trials.
 */
import type { TrialRecord } from "../store/records.js";
import { formatMs, formatTokens, formatUsd, plural } from "./format.js";
import { escapeMarkdown } from "./markdown.js";
import { renderTable, type Colour, type Column, type TableStyle } from "./table-layout.js";

const VERDICT_COLOUR: Record<string, Colour> = { passed: "green", failed: "red", error: "yellow", cancelled: "dim" };

const COLUMNS: Column<TrialRecord>[] = [
  { head: "task", priority: 100, cell: (t) => t.taskId },
  { head: "agent", priority: 99, cell: (t) => ({ text: t.agentLabel, colour: "cyan" }) },
  { head: "#", priority: 40, align: "right", cell: (t) => String(t.repeat) },
  {
    head: "verdict",
    priority: 98,
    cell: (t) => ({ text: t.verdict ?? "not run", colour: t.verdict ? VERDICT_COLOUR[t.verdict] : "dim" }),
  },
  { head: "stop reason", priority: 97, cell: (t) => t.stopReason ?? "—" },
  { head: "claimed/verified", priority: 60, cell: (t) => `${yesNo(t.claimed)}/${yesNo(t.verified)}` },
  { head: "turns", priority: 80, align: "right", cell: (t) => String(t.turns) },
  { head: "actions", priority: 70, align: "right", cell: (t) => String(t.actions) },
  {
    head: "tokens in/out",
    priority: 65,
    align: "right",
    cell: (t) => `${formatTokens(t.inputTokens)}/${formatTokens(t.outputTokens)}`,
  },
  { head: "cost", priority: 55, align: "right", cell: (t) => formatUsd(t.costUsd) },
  { head: "wall", priority: 90, align: "right", cell: (t) => formatMs(t.wallMs) },
];

function yesNo(value: boolean | null): string {
  return value === null ? "—" : value ? "yes" : "no";
}

export function runSummaryTable(trials: readonly TrialRecord[], style: TableStyle): string {
  return renderTable(
    COLUMNS,
    [...trials].sort((a, b) => a.seq - b.seq),
    style,
  );
}

/** One line under the table: counts by verdict, false and silent successes. */
export function runSummaryLine(trials: readonly TrialRecord[]): string {
  const count = (f: (t: TrialRecord) => boolean) => trials.filter(f).length;
  const done = trials.filter((t) => t.verdict !== null);
  return (
    `${count((t) => t.verdict === "passed")}/${done.length} passed, ${count((t) => t.verdict === "failed")} failed, ` +
    `${plural(
      count((t) => t.verdict === "error"),
      "error",
    )}, ${count((t) => t.verdict === "cancelled")} cancelled; false successes ${count((t) => t.verdict === "failed" && t.claimed === true)}, ` +
    `silent successes ${count((t) => t.verified === true && t.claimed === false)}` +
    (done.length < trials.length ? `; ${trials.length - done.length} not finished` : "")
  );
}

/**
 * The run as GitHub-flavoured Markdown (`--reporter markdown`, e.g. a CI job summary or a pull-request
 * comment): the summary line, then one row per trial with its failed required checks' reasons.
 */
export function runSummaryMarkdown(
  run: { id: string; status: string },
  details: readonly {
    trial: TrialRecord;
    checks: readonly { required: boolean; pass: boolean; name: string; reason: string }[];
  }[],
): string {
  const trials = details.map((d) => d.trial);
  const cell = escapeMarkdown;
  const rows = [...details]
    .sort((a, b) => a.trial.seq - b.trial.seq)
    .map(({ trial: t, checks }) => {
      const why = checks
        .filter((c) => c.required && !c.pass)
        .map((c) => `${c.name}: ${c.reason}`)
        .join("; ");
      return `| ${[t.taskId, t.agentLabel, String(t.repeat), t.verdict ?? "not run", t.stopReason ?? "—", String(t.turns), formatUsd(t.costUsd), formatMs(t.wallMs), why || "—"].map(cell).join(" | ")} |`;
    });
  return [
    `## umpire run ${cell(run.id)} (${cell(run.status)})`,
    "",
    cell(runSummaryLine(trials)),
    "",
    "| task | agent | # | verdict | stop reason | turns | cost | wall | failed checks |",
    "| --- | --- | ---: | --- | --- | ---: | ---: | ---: | --- |",
    ...rows,
    "",
  ].join("\n");
}
