/**
 * A comparison as GitHub-flavoured Markdown, for a pull-request comment: the per-task table, the
 * summary rows, each paired analysis as a list, and the regression verdict when gating.
 */
import type { TrialSetStats } from "./aggregate.js";
import { NOTHING_PAIRED, TASK_CHANGED, unpairedText, type Comparison, type PairedAnalysis } from "./compare.js";
import { countedOnceText, howSure, OVER_REPEATS, OVER_TASKS } from "./how-sure.js";
import {
  NONE,
  formatCostPerSuccess,
  formatDelta,
  formatInterval,
  formatMean,
  formatMs,
  formatP,
  formatPercent,
  formatPoints,
  formatScore,
  formatStopMix,
  formatUsd,
  plural,
} from "./format.js";
import { INVALID_RATE_HEAD, invalidRateCell, invalidRateLines } from "./invalid-calls.js";
import type { RegressionVerdict } from "./regression.js";

/** Escapes what would break a table cell or start formatting. */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/\\/g, "\\\\")
    .replace(/\|/g, "\\|")
    .replace(/([*_`<>[\]])/g, "\\$1")
    .replace(/\r?\n/g, " ");
}

/**
 * Text as a code span inside a table cell: GFM splits cells on '|' even inside code spans unless
 * it is escaped, and a backtick would end the span early.
 */
export function codeSpan(text: string): string {
  return `\`${text.replace(/`/g, "'").replace(/\|/g, "\\|").replace(/\r?\n/g, " ")}\``;
}

const row = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;

/** A row's cells after task and group; `invalid`: with the refused calls per turn after actions. */
function cells(s: TrialSetStats | null, summary: boolean, invalid: boolean): string[] {
  if (!s) return Array(invalid ? 13 : 12).fill(NONE);
  let passes = `${s.passes}/${s.n}`;
  if (summary) passes += ` (${formatPercent(s.passRate, 0)}, 95% CI ${formatInterval(s.interval)})`;
  if (s.errors > 0) passes += ` +${s.errors} err`;
  return [
    passes,
    formatScore(s.passAtK),
    formatScore(s.passHatK),
    s.trials === 0 ? NONE : formatUsd(s.meanCostUsd),
    formatCostPerSuccess(s.costPerSuccess),
    formatMs(s.wallP50Ms),
    formatMs(s.wallP95Ms),
    formatMean(s.meanTurns),
    formatMean(s.meanActions),
    ...(invalid ? [invalidRateCell(s.invalidCalls)] : []),
    String(s.cancelled),
    String(s.falseSuccesses),
    formatStopMix(s.stopReasons),
  ].map(escapeMarkdown);
}

function pairedMarkdown(p: PairedAnalysis): string {
  const e = escapeMarkdown;
  const list = (keys: readonly string[]) => (keys.length === 0 ? "none" : keys.map(codeSpan).join(", "));
  const ci = p.diffInterval
    ? `; ${OVER_TASKS}: 95% bootstrap CI over tasks ${formatPoints(p.diffInterval.low)} to ${formatPoints(p.diffInterval.high)}`
    : "";
  const flaky =
    p.flaky.length === 0
      ? "none"
      : p.flaky
          .map(
            (f) =>
              `${codeSpan(f.key)} (${f.base ? `${f.base.passes}/${f.base.n}` : NONE} vs ${f.candidate ? `${f.candidate.passes}/${f.candidate.n}` : NONE})`,
          )
          .join(", ");
  const d = p.deltas;
  return [
    `**${e(p.candidate)} vs ${e(p.base)}** (${plural(p.tasks, "paired task")}, ${plural(p.trialPairs, "paired repeat")})`,
    "",
    ...(p.tasks === 0
      ? [`- ${NOTHING_PAIRED}`]
      : [
          `- pass rate ${formatPercent(p.basePassRate)} → ${formatPercent(p.candidatePassRate)} (${formatPoints(p.diff)}${ci})`,
          `- exact McNemar, ${OVER_REPEATS}: ${p.onlyBasePassed} passed only in ${e(p.base)}, ${p.onlyCandidatePassed} only in ${e(p.candidate)}${countedOnceText(p)}, p ${formatP(p.pValue)}`,
        ]),
    ...(howSure(p) ? [`- how sure: ${e(howSure(p)!)}`] : []),
    ...(unpairedText(p) ? [`- unpaired: ${e(unpairedText(p)!)}`] : []),
    `- flipped pass → fail: ${list(p.flippedToFail)}; fail → pass: ${list(p.flippedToPass)}`,
    `- flaky: ${flaky}`,
    ...(p.changedTasks.length > 0
      ? [
          `- changed: ${list(p.changedTasks)}: ${TASK_CHANGED}; ${p.changedTasksIncluded ? "paired anyway" : "left out of this analysis and the regression gate"}`,
        ]
      : []),
    ...(p.changedAgents.length > 0
      ? [`- agent changed: ${list(p.changedAgents)}: the change under test, its pairs counted`]
      : []),
    `- deltas: mean cost ${formatDelta(d.meanCostPct)}, cost/success ${formatDelta(d.costPerSuccessPct)}, p50 wall ${formatDelta(d.wallP50Pct)}, p95 wall ${formatDelta(d.wallP95Pct)}, turns ${formatDelta(d.meanTurnsPct)}, actions ${formatDelta(d.meanActionsPct)}`,
  ].join("\n");
}

/** The whole comparison as Markdown. */
export function compareMarkdown(c: Comparison, verdict?: RegressionVerdict): string {
  const invalidLines = invalidRateLines(c.groups.map((g) => ({ label: g.label, rate: g.summary.invalidCalls })));
  const invalid = invalidLines.length > 0;
  const head = [
    "task",
    "group",
    "passes",
    `pass@${c.k}`,
    `pass^${c.k}`,
    "mean cost",
    "cost/success",
    "p50 wall",
    "p95 wall",
    "turns",
    "actions",
    ...(invalid ? ["invalid/turn"] : []),
    // The terminal table's order (tables.ts), so the two read alike.
    "cancelled",
    "false succ.",
    "stop reasons",
  ];
  const lines = [row(head), row(head.map((_, i) => (i >= 3 && i < head.length - 1 ? "---:" : "---")))];
  for (const task of c.tasks) {
    c.groups.forEach((g, i) =>
      lines.push(
        row([
          i === 0 ? codeSpan(task.key) + (task.changed ? ` (${TASK_CHANGED})` : "") : "",
          escapeMarkdown(g.label),
          ...cells(task.cells[i], false, invalid),
        ]),
      ),
    );
  }
  c.groups.forEach((g, i) =>
    lines.push(
      row([i === 0 ? "**all tasks**" : "", `**${escapeMarkdown(g.label)}**`, ...cells(g.summary, true, invalid)]),
    ),
  );
  const parts = [lines.join("\n")];
  if (invalid)
    parts.push([`${INVALID_RATE_HEAD}:`, "", ...invalidLines.map((l) => `- ${escapeMarkdown(l)}`)].join("\n"));
  parts.push(...c.paired.map(pairedMarkdown));
  if (verdict) {
    const title = verdict.regressed ? "**Regression** :x:" : "**No regression** :white_check_mark:";
    parts.push(
      [
        title,
        "",
        ...verdict.reasons.map((r) => `- ${escapeMarkdown(r)}`),
        ...verdict.notes.map((n) => `- note: ${escapeMarkdown(n)}`),
        `- basis: ${escapeMarkdown(verdict.basis)}`,
      ].join("\n"),
    );
  }
  return `${parts.join("\n\n")}\n`;
}
