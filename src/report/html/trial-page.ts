/**
 * The trial page (`trials/<seq>.html`): what the trial was, how it ended and why (stop reason,
 * checks with reason, evidence and confidence), links to its notes and events.jsonl, then the
 * timeline of turns. The summary and checks fragments are shared with the side-by-side view.
 */
import { formatMs, formatTime, formatTokens, formatUsd } from "../format.js";
import { storedInvalidCallsText } from "../invalid-calls.js";
import { stopLine, verdictBadge, yesNo } from "./badges.js";
import { html, type Raw } from "./escape.js";
import { INDEX_PAGE, sideBySideHref, trialPageHref, type Root } from "./layout.js";
import { pageHtml } from "./page.js";
import { screenshotFigure, turnHtml } from "./turn.js";
import { trialLabel, type TrialView } from "./view-model.js";

function timeBreakdown(view: TrialView): string {
  const t = view.trial;
  if (t.wallMs === null) return "—";
  const known = (t.modelMs ?? 0) + (t.executorMs ?? 0) + (t.captureMs ?? 0) + (t.checkMs ?? 0);
  return (
    `wall ${formatMs(t.wallMs)} = model ${formatMs(t.modelMs)} + executor ${formatMs(t.executorMs)} + ` +
    `capture ${formatMs(t.captureMs)} + checks ${formatMs(t.checkMs)} + other ${formatMs(Math.max(0, t.wallMs - known))}`
  );
}

function repetitionLine(metrics: Record<string, unknown>): string | null {
  const rep = metrics.repetition;
  if (!rep || typeof rep !== "object") return null;
  const entries = Object.entries(rep as Record<string, unknown>).filter(([, v]) => typeof v === "number");
  return entries.length ? entries.map(([k, v]) => `${k} ${v}`).join(", ") : null;
}

/** The facts about a trial: agent, outcome, tokens, cost, times. Shared with the side-by-side view. */
export function trialSummaryHtml(view: TrialView, root: Root): Raw {
  const t = view.trial;
  const tokens =
    t.inputTokens === null
      ? "unknown"
      : `${formatTokens(t.inputTokens)} in (${formatTokens(t.cachedTokens ?? 0)} cached), ${formatTokens(t.outputTokens)} out (${formatTokens(t.reasoningTokens ?? 0)} reasoning)`;
  const repetition = repetitionLine(t.metrics);
  const refused = storedInvalidCallsText(t.metrics);
  const rows: [string, Raw | string][] = [
    ["agent config", t.agentLabel],
    ["model · mode", `${t.model} · ${t.mode}`],
    ["repeat · attempt", `${t.repeat} · ${t.attempt}${t.retried ? " (retried after an infrastructure error)" : ""}`],
    ["claimed · verified", `${yesNo(t.claimed)} · ${yesNo(t.verified)}`],
    ["turns · actions", `${t.turns} · ${t.actions}`],
    ["tokens", tokens],
    ["cost", formatUsd(t.costUsd)],
    ["time", timeBreakdown(view)],
    ...(t.ttftMsAvg !== null ? ([["mean first token", formatMs(t.ttftMsAvg)]] as [string, string][]) : []),
    ...(repetition ? ([["repetition", repetition]] as [string, string][]) : []),
    ...(refused ? ([["refused calls", refused]] as [string, string][]) : []),
    ...(t.error ? ([["error", html`<span class="error-text">${t.error}</span>`]] as [string, Raw][]) : []),
    ["started · ended", `${formatTime(t.startedAt)} · ${formatTime(t.endedAt)}`],
  ];
  return html`<div class="trial-summary">
<h2 class="trial-title"><a href="${trialPageHref(t.seq, root)}">${trialLabel(t)}</a> ${verdictBadge(t.verdict)}${t.rejudgedAt ? html` <span class="muted">(re-judged)</span>` : ""}</h2>
${view.task.title ? html`<p class="task-title">${view.task.title}</p>` : ""}
${stopLine(t)}
<dl class="facts">${rows.map(([k, v]) => html`<dt>${k}</dt><dd>${v}</dd>`)}</dl>
${view.answer !== null ? html`<div class="said said-answer"><span class="said-label">answer</span><p class="said-text">${view.answer}</p></div>` : ""}
</div>`;
}

/** The checks with pass, required, confidence, reason and evidence. */
export function checksHtml(view: TrialView): Raw {
  if (view.checks.length === 0) return html`<p class="muted">no checks recorded</p>`;
  return html`<table class="checks">
<thead><tr><th>result</th><th>check</th><th>kind</th><th>required</th><th>confidence</th><th>reason</th><th>time</th></tr></thead>
<tbody>${view.checks.map(
    (c) => html`<tr class="${c.pass ? "check-pass" : "check-fail"}">
<td><span class="badge ${c.pass ? "verdict-passed" : c.required ? "verdict-failed" : "verdict-optional"}">${c.pass ? "pass" : "FAIL"}</span></td>
<td>${c.name}</td><td>${c.kind}</td><td>${c.required ? "required" : "optional"}</td><td><span class="confidence confidence-${c.confidence}">${c.confidence}</span></td>
<td class="reason">${c.reason}${c.evidence !== null && c.evidence !== undefined ? html`<details class="evidence"><summary>evidence</summary><pre>${JSON.stringify(c.evidence, null, 2)}</pre></details>` : ""}</td>
<td class="num">${formatMs(c.ms)}</td>
</tr>`,
  )}</tbody>
</table>`;
}

function filesHtml(view: TrialView, root: Root): Raw {
  const notes = view.notes.map(
    (
      n,
    ) => html`<li><a href="${root}${n.href}">notes/${n.name}</a> <span class="muted">${n.bytes.toLocaleString("en-US")} bytes</span>
<details class="note-text"><summary>show</summary><pre>${n.text}</pre>${n.truncated ? html`<p class="muted">cut; open the file for the rest</p>` : ""}</details></li>`,
  );
  return html`<ul class="files">
${view.eventsHref ? html`<li><a href="${root}${view.eventsHref}">events.jsonl</a> <span class="muted">every step event of the trial</span></li>` : html`<li class="muted">events.jsonl not found</li>`}
${view.traceHref ? html`<li><a href="${root}${view.traceHref}" download>trace.zip</a> <span class="muted">Playwright trace: npx playwright show-trace trace.zip, or drop it on trace.playwright.dev</span></li>` : ""}
${notes.length ? notes : html`<li class="muted">no note files in the workspace</li>`}
</ul>`;
}

function siblingsHtml(view: TrialView, root: Root): Raw | string {
  if (view.siblings.length === 0) return "";
  return html`<p class="siblings">side by side with: ${view.siblings.map(
    (s, i) =>
      html`${i > 0 ? ", " : ""}<a href="${sideBySideHref(view.trial.seq, s.seq, root)}">#${s.seq} ${s.agentLabel} · repeat ${s.repeat}</a> ${verdictBadge(s.verdict)}`,
  )}${view.moreSiblings > 0 ? html` and ${view.moreSiblings} more (pick them on the <a href="${sideBySideHref(view.trial.seq, view.siblings[0]!.seq, root)}">side-by-side page</a>)` : ""}</p>`;
}

function evidenceHtml(view: TrialView, root: Root): Raw | string {
  if (view.evidence.length === 0) return "";
  return html`<section class="stuck-evidence"><h2>Stuck evidence</h2><div class="evidence-shots">${view.evidence.map(
    (image, i) => screenshotFigure(image, [], root, `stuck evidence screenshot ${i + 1}`),
  )}</div></section>`;
}

/**
 * The native dialogs the trial met (kind, message, how and by whom answered) and the tabs its pages
 * opened, as the runner stored them with the trial's metrics.
 */
export function browserEventsHtml(metrics: Record<string, unknown>): Raw | string {
  const dialogs = Array.isArray(metrics.dialogs) ? (metrics.dialogs as Record<string, unknown>[]) : [];
  const tabs = Array.isArray(metrics.tabs) ? (metrics.tabs as Record<string, unknown>[]) : [];
  if (dialogs.length === 0 && tabs.length === 0) return "";
  const str = (v: unknown) => (typeof v === "string" ? v : "");
  const answer = (d: Record<string, unknown>) =>
    d.answer === null || d.answer === undefined
      ? "left open"
      : `${str(d.answer)}${typeof d.text === "string" ? ` with "${d.text}"` : ""} by ${str(d.by)} (${str(d.how)})`;
  return html`<section class="browser-events"><h2>Dialogs and tabs</h2><ul class="browser-events-list">
${dialogs.map((d) => html`<li class="dialog-event"><b>${str(d.kind)}</b> dialog on ${str(d.url)}: “${str(d.message)}” — ${answer(d)}</li>`)}
${tabs.map((t) => html`<li class="tab-event"><b>tab opened</b>: ${str(t.url)} (from ${str(t.openerUrl)})</li>`)}
</ul></section>`;
}

/** The turn chips at the top of the timeline: one link per turn, coloured by highlight. */
function turnIndexHtml(view: TrialView): Raw {
  return html`<nav class="turn-index" aria-label="turns">${view.turns.map(
    (t) =>
      html`<a class="turn-chip${t.highlight ? ` hl-${t.highlight.kind}` : ""} outcome-${t.turn.outcome}" href="#turn-${t.turn.idx}">${t.turn.idx}</a>`,
  )}</nav>`;
}

/** The turns, the final answer drawn in the last one when the trial ended by answering. */
export function turnsHtml(view: TrialView, root: Root): Raw[] {
  const last = view.turns.length - 1;
  return view.turns.map((t, i) =>
    turnHtml(t, root, i === last && view.trial.stopReason === "answered" ? view.answer : null),
  );
}

/** The whole page of one trial. */
export function trialPageHtml(view: TrialView): string {
  const root: Root = "../";
  const t = view.trial;
  const nav = html`<nav class="crumbs"><a href="${root}${INDEX_PAGE}">← all trials</a>${
    view.previousSeq !== null
      ? html` · <a href="${trialPageHref(view.previousSeq, root)}">previous (#${view.previousSeq})</a>`
      : ""
  }${view.nextSeq !== null ? html` · <a href="${trialPageHref(view.nextSeq, root)}">next (#${view.nextSeq})</a>` : ""}</nav>`;
  const body = html`${nav}
<header class="trial-head">${trialSummaryHtml(view, root)}
${view.task.tags.length ? html`<p class="tags">${view.task.tags.map((tag) => html`<span class="tag">${tag}</span> `)}</p>` : ""}
${siblingsHtml(view, root)}
</header>
<section class="checks-section"><h2>Checks</h2>${checksHtml(view)}</section>
<section class="files-section"><h2>Files</h2>${filesHtml(view, root)}</section>
${evidenceHtml(view, root)}
${browserEventsHtml(t.metrics)}
<section class="timeline"><h2>Turns</h2>
${view.turns.length ? turnIndexHtml(view) : html`<p class="muted">no turns recorded</p>`}
${turnsHtml(view, root)}
${stopLine(t)}
</section>`;
  return pageHtml({
    title: `${trialLabel(t)} — ${t.verdict ?? "not run"}${t.rejudgedAt ? " (re-judged)" : ""}`,
    root,
    body,
    bodyClass: "page-trial",
  });
}
