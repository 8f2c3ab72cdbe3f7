/**
 * The report's history page (history.html): per task and agent, small inline SVG charts of cost
 * per success and pass rate over the runs up to this one, each point a link to its run (that
 * run's report when it has been written where `umpire report` puts it by default, else its row in
 * the runs table below). Inline SVG and the report's own stylesheet only: no script, no font, and
 * the page keeps the report's Content-Security-Policy (colours are CSS classes, never inline styles).
 *
 * A changed task or agent is drawn as a dashed break: the line does not join the runs across it.
 */
import type { History, HistoryPoint, HistorySeries } from "../history.js";
import { breakLines, flagWords } from "../history-text.js";
import { formatCostPerSuccess, formatPercent, formatTime, formatUsd } from "../format.js";
import { html, type Raw } from "./escape.js";
import { HISTORY_PAGE, INDEX_PAGE } from "./layout.js";
import { pageHtml } from "./page.js";

export { HISTORY_PAGE };

export interface HistoryPageInput {
  /** The run this report is about. */
  runId: string;
  history: History;
  /** Run id -> the href of its report from this report's folder, for runs whose report exists. */
  reportHrefs: ReadonlyMap<string, string>;
  lastRuns: number;
}

const WIDTH = 320;
const HEIGHT = 110;
const PAD = { left: 44, right: 10, top: 10, bottom: 18 };

/** The anchor of a run's row in this page's runs table. */
export const runAnchor = (runId: string) => `run-${runId.replace(/[^A-Za-z0-9_-]/g, "_")}`;

function pointHref(input: HistoryPageInput, runId: string): string {
  if (runId === input.runId) return INDEX_PAGE;
  return input.reportHrefs.get(runId) ?? `#${runAnchor(runId)}`;
}

interface ChartSpec {
  kind: "cost" | "pass";
  label: string;
  value: (p: HistoryPoint) => number | null;
  text: (p: HistoryPoint) => string;
  max: number;
  axis: (v: number) => string;
}

function chart(series: HistorySeries, spec: ChartSpec, input: HistoryPageInput): Raw {
  const n = series.points.length;
  const innerW = WIDTH - PAD.left - PAD.right;
  const innerH = HEIGHT - PAD.top - PAD.bottom;
  const x = (i: number) => PAD.left + (n === 1 ? innerW / 2 : (i / (n - 1)) * innerW);
  const y = (v: number) => PAD.top + innerH - (spec.max > 0 ? (v / spec.max) * innerH : 0);
  // Lines join consecutive known points within a segment; a break or an unknown value ends a line.
  const lines: string[] = [];
  let current: string[] = [];
  series.points.forEach((p, i) => {
    const v = spec.value(p);
    if (p.breakBefore || v === null) {
      if (current.length > 1) lines.push(current.join(" "));
      current = [];
    }
    if (v !== null) current.push(`${x(i).toFixed(1)},${y(v).toFixed(1)}`);
  });
  if (current.length > 1) lines.push(current.join(" "));
  const breaks = series.points.flatMap((p, i) =>
    p.breakBefore
      ? [
          html`<line class="chart-break" x1="${((x(i - 1) + x(i)) / 2).toFixed(1)}" x2="${((x(i - 1) + x(i)) / 2).toFixed(1)}" y1="${PAD.top}" y2="${HEIGHT - PAD.bottom}"><title>${p.breakBefore} changed</title></line>`,
        ]
      : [],
  );
  const points = series.points.map((p, i) => {
    const v = spec.value(p);
    const title = `${p.runId} · ${formatTime(p.startedAt)} · ${spec.label} ${spec.text(p)}`;
    const cx = x(i).toFixed(1);
    return v === null
      ? html`<a href="${pointHref(input, p.runId)}" class="chart-point unknown" data-run="${p.runId}"><title>${title}</title><text x="${cx}" y="${HEIGHT - PAD.bottom - 2}" text-anchor="middle">×</text></a>`
      : html`<a href="${pointHref(input, p.runId)}" class="chart-point" data-run="${p.runId}"><title>${title}</title><circle cx="${cx}" cy="${y(v).toFixed(1)}" r="4"></circle></a>`;
  });
  return html`<figure class="chart chart-${spec.kind}"><figcaption>${spec.label}</figcaption>
<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" aria-label="${spec.label} of ${series.taskId} with ${series.agentLabel} over ${n} runs">
<line class="chart-axis" x1="${PAD.left}" x2="${WIDTH - PAD.right}" y1="${HEIGHT - PAD.bottom}" y2="${HEIGHT - PAD.bottom}"></line>
<line class="chart-axis" x1="${PAD.left}" x2="${PAD.left}" y1="${PAD.top}" y2="${HEIGHT - PAD.bottom}"></line>
<text class="chart-tick" x="${PAD.left - 4}" y="${PAD.top + 4}" text-anchor="end">${spec.axis(spec.max)}</text>
<text class="chart-tick" x="${PAD.left - 4}" y="${HEIGHT - PAD.bottom}" text-anchor="end">${spec.axis(0)}</text>
${breaks}
${lines.map((l) => html`<polyline class="chart-line" points="${l}"></polyline>`)}
${points}
</svg></figure>`;
}

function seriesHtml(series: HistorySeries, input: HistoryPageInput): Raw {
  const costs = series.points.map((p) => (typeof p.costPerSuccess === "number" ? p.costPerSuccess : 0));
  const maxCost = Math.max(...costs, 0);
  const flags = flagWords(series);
  const notes = breakLines(series);
  return html`<section class="history-series" data-task="${series.taskId}" data-agent="${series.agentLabel}">
<h2>${series.taskId} <span class="muted">· ${series.agentLabel}</span></h2>
${flags.length ? html`<p class="history-flags">${flags.map((f) => html`<span class="flag">${f}</span> `)}</p>` : ""}
${notes.length ? html`<p class="history-breaks">${notes.map((n) => html`<span>${n}</span> `)}</p>` : ""}
<div class="charts">
${chart(series, { kind: "cost", label: "cost per success", value: (p) => (typeof p.costPerSuccess === "number" ? p.costPerSuccess : null), text: (p) => formatCostPerSuccess(p.costPerSuccess), max: maxCost, axis: (v) => formatUsd(v) }, input)}
${chart(series, { kind: "pass", label: "pass rate", value: (p) => p.passRate, text: (p) => (p.n ? `${formatPercent(p.passRate, 0)} (${p.passes}/${p.n})` : "no judged trial"), max: 1, axis: (v) => formatPercent(v, 0) }, input)}
</div>
</section>`;
}

function runsTable(input: HistoryPageInput): Raw {
  const runs = new Map<string, HistoryPoint>();
  for (const s of input.history.series) for (const p of s.points) runs.set(p.runId, p);
  const ordered = [...runs.values()].sort((a, b) =>
    a.startedAt < b.startedAt ? 1 : a.startedAt > b.startedAt ? -1 : 0,
  );
  return html`<section class="history-runs"><h2>Runs</h2>
<table><thead><tr><th>run</th><th>started</th><th>tags</th><th>report</th></tr></thead><tbody>
${ordered.map((p) => {
  const href = p.runId === input.runId ? INDEX_PAGE : input.reportHrefs.get(p.runId);
  return html`<tr id="${runAnchor(p.runId)}"><td><code>${p.runId}</code></td><td>${formatTime(p.startedAt)}</td><td>${p.tags.map((t) => html`<span class="tag">${t}</span> `)}</td><td>${
    href ? html`<a href="${href}">report</a>` : html`<code>umpire report ${p.runId}</code>`
  }</td></tr>`;
})}
</tbody></table></section>`;
}

export function historyPageHtml(input: HistoryPageInput): string {
  const body = html`<header class="run-head">
<h1>history up to run <span class="run-id">${input.runId}</span></h1>
<p class="run-meta"><a href="${INDEX_PAGE}">back to the run</a> · the last ${input.lastRuns} runs of each task and agent · cost per success and pass rate per run; a dashed line marks a changed task or agent</p>
</header>
${input.history.series.length ? input.history.series.map((s) => seriesHtml(s, input)) : html`<p>No finished trials.</p>`}
${runsTable(input)}`;
  return pageHtml({ title: `umpire history ${input.runId}`, root: "", body, bodyClass: "page-history" });
}
