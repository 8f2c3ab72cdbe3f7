/**
 * The side-by-side view: `compare.html?a=<seq>&b=<seq>` shows two trials of a run aligned by
 * turn (turn 1 beside turn 1, ...). Pages opened from disk cannot fetch files, so each trial's
 * rendered fragments are also written as a small script, `data/<seq>.js`, that compare.js
 * loads on demand: the view works for any pair without pre-generating every pair. The
 * fragments are the same escaped markup as the trial pages.
 */
import type { TrialRecord } from "../../store/records.js";
import { stopLine, verdictText } from "./badges.js";
import { html } from "./escape.js";
import { INDEX_PAGE, type Root } from "./layout.js";
import { pageHtml } from "./page.js";
import { checksHtml, trialSummaryHtml, turnsHtml } from "./trial-page.js";
import { trialLabel, type TrialView } from "./view-model.js";

/** What compare.js receives for one trial: markup fragments, all relative to the report folder. */
export interface TrialFragments {
  seq: number;
  task: string;
  summary: string;
  turns: { idx: number; html: string }[];
  stop: string;
  checks: string;
}

/** The fragments of one trial for the side-by-side view (links relative to the report folder). */
export function trialFragments(view: TrialView): TrialFragments {
  const root: Root = "";
  const turns = turnsHtml(view, root);
  return {
    seq: view.trial.seq,
    task: view.trial.taskId,
    summary: trialSummaryHtml(view, root).markup,
    turns: view.turns.map((t, i) => ({ idx: t.turn.idx, html: turns[i]!.markup })),
    stop: stopLine(view.trial).markup,
    checks: checksHtml(view).markup,
  };
}

/**
 * `data/<seq>.js`: registers the fragments under window.umpireTrials. A JSON text is a valid
 * JavaScript expression (ES2019 allows U+2028/U+2029 in strings), and in a script file of its
 * own, unlike inside an HTML page, `</script>` ends nothing: no model output can escape the
 * string literal it is in. (Plain JSON.stringify keeps these files small and fast to write.)
 */
export function trialDataScript(view: TrialView): string {
  const seq = view.trial.seq;
  return `(window.umpireTrials = window.umpireTrials || {})[${JSON.stringify(String(seq))}] = ${JSON.stringify(trialFragments(view))};\n`;
}

/** The first two trials of one task (different agent configs when there are), as the default pair. */
export function defaultPair(trials: readonly TrialRecord[]): [number, number] | null {
  const byTask = new Map<string, TrialRecord[]>();
  for (const t of trials) {
    const group = byTask.get(t.taskId);
    if (group) group.push(t);
    else byTask.set(t.taskId, [t]);
  }
  for (const group of byTask.values()) {
    if (group.length < 2) continue;
    const other = group.find((t) => t.agentLabel !== group[0]!.agentLabel) ?? group[1]!;
    return [group[0]!.seq, other.seq];
  }
  return trials.length >= 2 ? [trials[0]!.seq, trials[1]!.seq] : null;
}

/** compare.html: two pickers and the aligned turns, filled in by compare.js from data/<seq>.js. */
export function comparePageHtml(runId: string, trials: readonly TrialRecord[]): string {
  const pair = defaultPair(trials);
  const options = trials.map(
    (t) => html`<option value="${t.seq}" data-task="${t.taskId}">${trialLabel(t)} — ${verdictText(t.verdict)}</option>`,
  );
  const body = html`<nav class="crumbs"><a href="${INDEX_PAGE}">← all trials</a></nav>
<h1>Side by side <span class="muted">run ${runId}</span></h1>
<form class="pick" id="pick" data-default-a="${pair?.[0] ?? ""}" data-default-b="${pair?.[1] ?? ""}">
<label>left <select id="pick-a" name="a">${options}</select></label>
<label>right <select id="pick-b" name="b">${options}</select></label>
<button type="submit">show</button>
</form>
<p id="sbs-status" class="muted" role="status">Loading the two trials…</p>
<div id="sbs" class="sbs"></div>
<noscript><p>The side-by-side view needs JavaScript. Each trial also has its own page, linked from the overview.</p></noscript>`;
  return pageHtml({
    title: `Side by side — ${runId}`,
    root: "",
    scripts: ["compare.js"],
    body,
    bodyClass: "page-compare",
  });
}
