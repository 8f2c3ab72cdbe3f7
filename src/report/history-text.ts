/**
 * `umpire history` as a terminal table and as Markdown: one row per task and agent, each value as
 * "first → last (change)" over the current series segment, then the flags and the series breaks.
 */
import type { History, HistorySeries, Trend } from "./history.js";
import { NONE, formatDelta, formatMean, formatMs, formatP, formatPercent, formatPoints, formatUsd } from "./format.js";
import { codeSpan, escapeMarkdown } from "./markdown.js";
import { renderTable, type Column, type TableStyle } from "./table-layout.js";

type Format = (v: number | null) => string;

function trendText(t: Trend, format: Format, changeText: (c: number | null) => string): string {
  if (t.first === null) return NONE;
  if (t.first === t.last) return format(t.first);
  return `${format(t.first)} → ${format(t.last)} (${changeText(t.change)})`;
}

const rate = (t: Trend) => trendText(t, (v) => formatPercent(v, 0), formatPoints);
const usd = (t: Trend) => trendText(t, (v) => (v === null ? NONE : formatUsd(v)), formatDelta);
const tokens = (t: Trend) => trendText(t, (v) => (v === null ? NONE : formatMean(Math.round(v))), formatDelta);
const wall = (t: Trend) => trendText(t, formatMs, formatDelta);

/** Short words for the flags column. */
export function flagWords(s: HistorySeries): string[] {
  const words: string[] = [];
  const cost = s.flags.costIncrease;
  if (cost) words.push(`cost/success ${formatDelta(cost.changePct)} (over ${cost.thresholdPct}%)`);
  const drop = s.flags.passRateDrop;
  if (drop) words.push(`pass rate drop ${formatPoints(drop.to - drop.from)} (McNemar p ${formatP(drop.pValue)})`);
  return words;
}

/** One line per series break: the run where the changed task or agent starts a new segment. */
export function breakLines(s: HistorySeries): string[] {
  return s.points.flatMap((p) =>
    p.breakBefore
      ? [
          `${s.taskId} · ${s.agentLabel}: ${p.breakBefore === "task+agent" ? "task and agent" : p.breakBefore} changed in run ${p.runId}; trends start there`,
        ]
      : [],
  );
}

const runsCell = (s: HistorySeries) =>
  s.segmentStart > 0 ? `${s.points.length - s.segmentStart} of ${s.points.length}` : String(s.points.length);

export function historyTable(h: History, style: TableStyle): string {
  if (h.series.length === 0) return "no finished trials match (umpire runs lists the stored runs)\n";
  const columns: Column<HistorySeries>[] = [
    { head: "task", priority: 100, cell: (s) => s.taskId },
    { head: "agent", priority: 99, cell: (s) => ({ text: s.agentLabel, colour: "cyan" }) },
    { head: "runs", priority: 90, align: "right", cell: runsCell },
    {
      head: "pass rate",
      priority: 98,
      cell: (s) => ({ text: rate(s.trend.passRate), colour: s.flags.passRateDrop ? "red" : undefined }),
    },
    {
      head: "cost/success",
      priority: 97,
      cell: (s) => ({ text: usd(s.trend.costPerSuccess), colour: s.flags.costIncrease ? "red" : undefined }),
    },
    { head: "mean tokens", priority: 70, cell: (s) => tokens(s.trend.meanTokens) },
    { head: "p50 wall", priority: 60, cell: (s) => wall(s.trend.p50WallMs) },
    {
      head: "flags",
      priority: 95,
      cell: (s) => ({ text: flagWords(s).join("; ") || NONE, colour: flagWords(s).length ? "yellow" : undefined }),
    },
  ];
  const notes = h.series.flatMap(breakLines);
  return `${renderTable(columns, h.series, style)}\n${notes.length ? `\n${notes.join("\n")}\n` : ""}`;
}

export function historyMarkdown(h: History): string {
  if (h.series.length === 0) return "No finished trials match.\n";
  const head = ["task", "agent", "runs", "pass rate", "cost/success", "mean tokens", "p50 wall", "flags"];
  const lines = [`| ${head.join(" | ")} |`, `| ${head.map(() => "---").join(" | ")} |`];
  for (const s of h.series) {
    const cells = [
      codeSpan(s.taskId),
      codeSpan(s.agentLabel),
      runsCell(s),
      rate(s.trend.passRate),
      usd(s.trend.costPerSuccess),
      tokens(s.trend.meanTokens),
      wall(s.trend.p50WallMs),
      flagWords(s)
        .map((w) => `**${escapeMarkdown(w)}**`)
        .join("; ") || NONE,
    ];
    lines.push(`| ${cells.map((c, i) => (i < 2 ? c : i === 7 ? c : escapeMarkdown(c))).join(" | ")} |`);
  }
  const notes = h.series.flatMap(breakLines);
  return `${lines.join("\n")}\n${notes.length ? `\n${notes.map((n) => `- ${escapeMarkdown(n)}`).join("\n")}\n` : ""}`;
}
