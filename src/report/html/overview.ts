/**
 * The overview page (index.html): the run's summary numbers (pass rate with its Wilson
 * interval, cost per success, false successes, invalid calls per turn) per agent config, the
 * tasks x agent configs matrix, and the table of every trial with filters and sortable columns. Rows are rendered
 * here (the page reads without JavaScript); overview.js only hides and reorders them, which
 * stays fast at thousands of rows.
 */
import type { RunRecord, TrialRecord } from "../../store/records.js";
import { environmentOf, environmentSummary } from "../environment-diff.js";
import { cpuLine } from "../run-cpu.js";
import { summarizeTrials, type TrialSetStats } from "../aggregate.js";
import {
  formatCostPerSuccess,
  formatInterval,
  formatMs,
  formatPercent,
  formatTime,
  formatUsd,
  plural,
} from "../format.js";
import { INVALID_RATE_HEAD, invalidRateText } from "../invalid-calls.js";
import { verdictBadge, verdictKey, verdictText, yesNo } from "./badges.js";
import { html, type Raw } from "./escape.js";
import { COMPARE_PAGE, DIVERGENCE_PAGE, HISTORY_PAGE, trialPageHref } from "./layout.js";
import { pageHtml } from "./page.js";
import type { TaskInfo } from "./view-model.js";

export interface OverviewInput {
  run: RunRecord;
  /** The run's trials in seq order; `costUsd` is the cost the report shows. */
  trials: TrialRecord[];
  /** Task id -> title and tags, for the tasks whose files could be read. */
  tasks: ReadonlyMap<string, TaskInfo>;
  /** The baseline run id when the report has a divergence page (`--baseline`). */
  divergenceAgainst?: string;
}

/** Repeats drawn as squares in a matrix cell; beyond that a link filters the table. */
const MATRIX_SQUARES = 30;

const uniqueSorted = (values: Iterable<string>) => [...new Set(values)].sort((a, b) => a.localeCompare(b));

/** The tags a trial can be filtered by: its task's tags and the run's. */
export function trialTags(trial: TrialRecord, run: RunRecord, tasks: ReadonlyMap<string, TaskInfo>): string[] {
  return uniqueSorted([...(tasks.get(trial.taskId)?.tags ?? []), ...run.tags]);
}

function passRateText(s: TrialSetStats): string {
  if (s.n === 0) return "—";
  return `${formatPercent(s.passRate)} (${formatInterval(s.interval)})`;
}

/** A row of the summary; `invalid`: with the refused calls (invalid-calls.ts), when some agent stored them. */
function summaryRow(label: string, s: TrialSetStats, invalid: boolean, cls = ""): Raw {
  return html`<tr class="${cls}">
<th scope="row">${label}</th><td class="num">${s.passes}/${s.n}</td><td class="num">${passRateText(s)}</td><td class="num">${s.errors}</td><td class="num">${s.cancelled}</td>
<td class="num">${s.falseSuccesses}</td><td class="num">${formatUsd(s.totalCostUsd)}</td><td class="num">${formatCostPerSuccess(s.costPerSuccess)}</td>
<td class="num">${formatMs(s.wallP50Ms)}</td><td class="num">${s.unfinished}</td>${invalid ? html`<td class="invalid-calls">${invalidRateText(s.invalidCalls)}</td>` : ""}
</tr>`;
}

function summaryHtml(trials: readonly TrialRecord[]): Raw {
  const all = summarizeTrials(trials, 1);
  const agents = uniqueSorted(trials.map((t) => t.agentLabel));
  const invalid = all.invalidCalls !== null;
  const kpi = (name: string, label: string, value: string, detail: string) =>
    html`<div class="kpi" data-kpi="${name}"><span class="kpi-label">${label}</span><span class="kpi-value">${value}</span><span class="kpi-detail">${detail}</span></div>`;
  return html`<section class="summary"><h2>Summary</h2>
<div class="kpis">
${kpi("pass-rate", "pass rate", all.n ? formatPercent(all.passRate) : "—", all.n ? `${all.passes}/${all.n} passed · 95% CI ${formatInterval(all.interval)}` : "no finished trial")}
${kpi("cost-per-success", "cost per success", formatCostPerSuccess(all.costPerSuccess), `total ${formatUsd(all.totalCostUsd)}`)}
${kpi("false-successes", "false successes", String(all.falseSuccesses), "claimed success, failed the checks")}
${kpi("errors", "infrastructure errors", String(all.errors), all.unfinished ? `${all.unfinished} not finished` : "left out of the pass rate")}
</div>
<table class="summary-table">
<thead><tr><th>agent config</th><th>passed</th><th>pass rate (95% CI)</th><th>errors</th><th>cancelled</th><th>false successes</th><th>cost</th><th>cost per success</th><th>p50 wall</th><th>not finished</th>${invalid ? html`<th title="${INVALID_RATE_HEAD}">invalid calls per turn</th>` : ""}</tr></thead>
<tbody>
${agents.map((agent) =>
  summaryRow(
    agent,
    summarizeTrials(
      trials.filter((t) => t.agentLabel === agent),
      1,
    ),
    invalid,
  ),
)}
${agents.length > 1 ? summaryRow("all", all, invalid, "total") : ""}
</tbody>
</table>
</section>`;
}

function matrixHtml(trials: readonly TrialRecord[], tasks: ReadonlyMap<string, TaskInfo>): Raw {
  const agents = uniqueSorted(trials.map((t) => t.agentLabel));
  const taskIds = [...new Set(trials.map((t) => t.taskId))];
  const groups = new Map<string, TrialRecord[]>();
  for (const t of trials) {
    const key = `${t.taskId}\u0000${t.agentLabel}`;
    const group = groups.get(key);
    if (group) group.push(t);
    else groups.set(key, [t]);
  }
  const cell = (taskId: string, agent: string) => {
    const group = groups.get(`${taskId}\u0000${agent}`) ?? [];
    if (group.length === 0) return html`<td class="muted">—</td>`;
    const s = summarizeTrials(group, 1);
    const shown = group.slice(0, MATRIX_SQUARES);
    // The rest are one click away: the fragment filters the trials table below (overview.js).
    const filter = new URLSearchParams({ task: taskId, agent }).toString();
    return html`<td class="matrix-cell outcome-${s.outcome}"><span class="num">${s.passes}/${s.n}</span> ${shown.map(
      (t) =>
        html`<a class="square verdict-${verdictKey(t.verdict)}" href="${trialPageHref(t.seq)}" title="${`#${t.seq} repeat ${t.repeat}: ${verdictText(t.verdict)}`}">${verdictText(t.verdict).slice(0, 1)}</a>`,
    )}${group.length > shown.length ? html` <a class="more" href="#${filter}">+${group.length - shown.length} more</a>` : ""}</td>`;
  };
  return html`<section class="matrix"><h2>Tasks × agent configs</h2>
<table class="matrix-table">
<thead><tr><th>task</th>${agents.map((a) => html`<th>${a}</th>`)}</tr></thead>
<tbody>${taskIds.map(
    (id) =>
      html`<tr><th scope="row"><span class="task-id">${id}</span>${tasks.get(id)?.title ? html`<br><span class="muted">${tasks.get(id)!.title}</span>` : ""}</th>${agents.map((a) => cell(id, a))}</tr>`,
  )}</tbody>
</table>
</section>`;
}

/** A `<select>` filter; overview.js matches its value against the rows' `data-<key>`. */
function filterSelect(
  key: string,
  label: string,
  values: readonly string[],
  text: (v: string) => string = (v) => v,
): Raw {
  return html`<label>${label} <select id="filter-${key}" data-filter="${key}"><option value="">all</option>${values.map(
    (v) => html`<option value="${v}">${text(v)}</option>`,
  )}</select></label>`;
}

/** Column heads; `type` tells overview.js how to compare the cells' `data-v` (or text). */
const COLUMNS: { label: string; type: "num" | "text" }[] = [
  { label: "#", type: "num" },
  { label: "task", type: "text" },
  { label: "agent config", type: "text" },
  { label: "mode", type: "text" },
  { label: "repeat", type: "num" },
  { label: "verdict", type: "text" },
  { label: "stop reason", type: "text" },
  { label: "claimed", type: "text" },
  { label: "verified", type: "text" },
  { label: "turns", type: "num" },
  { label: "actions", type: "num" },
  { label: "cost", type: "num" },
  { label: "wall", type: "num" },
];

function trialRow(t: TrialRecord, tags: readonly string[]): Raw {
  const href = trialPageHref(t.seq);
  return html`<tr data-seq="${t.seq}" data-verdict="${verdictKey(t.verdict)}" data-stop="${t.stopReason ?? "none"}" data-task="${t.taskId}" data-mode="${t.mode}" data-agent="${t.agentLabel}" data-tags="${` ${tags.join(" ")} `}">
<td><input type="checkbox" class="pick" value="${t.seq}" aria-label="${`select #${t.seq} for side by side`}"></td>
<td class="num"><a href="${href}">${t.seq}</a></td>
<td><a href="${href}">${t.taskId}</a></td>
<td>${t.agentLabel}</td>
<td>${t.mode}</td>
<td class="num">${t.repeat}</td>
<td data-v="${verdictKey(t.verdict)}">${verdictBadge(t.verdict)}</td>
<td title="${t.stopDetail ?? ""}">${t.stopReason ?? "—"}</td>
<td>${yesNo(t.claimed)}</td>
<td>${yesNo(t.verified)}</td>
<td class="num">${t.turns}</td>
<td class="num">${t.actions}</td>
<td class="num" data-v="${t.costUsd ?? ""}">${formatUsd(t.costUsd)}</td>
<td class="num" data-v="${t.wallMs ?? ""}">${formatMs(t.wallMs)}</td>
</tr>`;
}

function trialsTableHtml(input: OverviewInput): Raw {
  const { run, trials, tasks } = input;
  const tagsOf = new Map(trials.map((t) => [t.seq, trialTags(t, run, tasks)]));
  const verdicts = uniqueSorted(trials.map((t) => verdictKey(t.verdict)));
  return html`<section class="trials"><h2>Trials</h2>
<div class="filters" id="filters">
${filterSelect("verdict", "verdict", verdicts, (v) => (v === "none" ? "not run" : v))}
${filterSelect("stop", "stop reason", uniqueSorted(trials.map((t) => t.stopReason ?? "none")), (v) => (v === "none" ? "not finished" : v))}
${filterSelect("task", "task", uniqueSorted(trials.map((t) => t.taskId)))}
${filterSelect("agent", "agent config", uniqueSorted(trials.map((t) => t.agentLabel)))}
${filterSelect("mode", "mode", uniqueSorted(trials.map((t) => t.mode)))}
${filterSelect("tags", "tag", uniqueSorted([...tagsOf.values()].flat()))}
<span class="count" id="shown-count" role="status">${trials.length} of ${plural(trials.length, "trial")}</span>
<a class="button" id="compare-link" href="${COMPARE_PAGE}">side by side</a> <span class="muted" id="compare-hint">tick two trials to compare them</span>
</div>
<table class="trials-table" id="trials-table">
<thead><tr><th><span class="visually-hidden">select</span></th>${COLUMNS.map(
    (c, i) =>
      html`<th class="${c.type === "num" ? "num" : ""}" data-col="${i + 1}" data-type="${c.type}" aria-sort="none"><button type="button" class="sort">${c.label}</button></th>`,
  )}</tr></thead>
<tbody>
${trials.map((t) => trialRow(t, tagsOf.get(t.seq) ?? []))}
</tbody>
</table>
</section>`;
}

/** The overview page. */
export function overviewHtml(input: OverviewInput): string {
  const { run, trials } = input;
  const body = html`<header class="run-head">
<h1>umpire report <span class="run-id">${run.id}</span></h1>
<p class="run-meta">${run.status} · started ${formatTime(run.startedAt)} · ended ${formatTime(run.endedAt)} · umpire ${run.umpireVersion} · ${plural(trials.length, "trial")}${
    run.tags.length ? html` · tags ${run.tags.map((tag) => html`<span class="tag">${tag}</span> `)}` : ""
  } · <a id="history-link" href="${HISTORY_PAGE}">history</a>${
    input.divergenceAgainst
      ? html` · <a id="divergence-link" href="${DIVERGENCE_PAGE}">where flipped tasks diverged from ${input.divergenceAgainst}</a>`
      : ""
  }</p>
<p class="run-meta" id="run-environment">environment: ${environmentSummary(environmentOf(run))}</p>
<p class="run-meta" id="run-cpu">${cpuLine(run)}</p>
</header>
${summaryHtml(trials)}
${matrixHtml(trials, input.tasks)}
${trialsTableHtml(input)}`;
  return pageHtml({
    title: `umpire report ${run.id}`,
    root: "",
    scripts: ["overview.js"],
    body,
    bodyClass: "page-overview",
  });
}
