/**
 * `divergence.html` (written by `umpire report <candidate> --baseline <run>`): for each task that
 * flipped between the two runs, the turn where the candidate's trajectory left the baseline's
 * (src/report/divergence.ts), side by side: the baseline's and the candidate's screenshot at that
 * turn and at the next one, with the proposed points drawn and the actions in words.
 */
import type { Divergence, TrajectoryTurn } from "../divergence.js";
import { describeTurn, divergenceLine } from "../divergence.js";
import { verdictText } from "./badges.js";
import { html, type Raw } from "./escape.js";
import { DIVERGENCE_PAGE, INDEX_PAGE, trialPageHref } from "./layout.js";
import { pageHtml } from "./page.js";
import { screenshotFigure } from "./turn.js";
import { clickMarks, type ImageRef } from "./view-model.js";

export { DIVERGENCE_PAGE };

export interface DivergencePageInput {
  baseRun: string;
  candidateRun: string;
  /** What changed between the runs (src/report/agent-changes.ts): an edited agent, an edited task. */
  changes: readonly string[];
  divergences: readonly Divergence[];
  /** Places a screenshot (absolute path) in the report and returns its href (null when missing). */
  place: (path: string) => string | null;
}

function turnCell(turn: TrajectoryTurn | null, place: DivergencePageInput["place"], label: string): Raw {
  if (!turn) return html`<div class="sbs-cell sbs-empty">${describeTurn(null)}</div>`;
  const shot = turn.screenshot;
  const image: ImageRef | null = shot
    ? { href: place(shot.path), width: shot.width, height: shot.height, source: shot.path }
    : null;
  const marks = image ? clickMarks(turn.actions, image.width, image.height) : [];
  const figure = image ? screenshotFigure(image, marks, "", `${label}, turn ${turn.idx}`) : "";
  return html`<div class="sbs-cell">
<p class="divergence-action"><strong>${label}</strong>: ${describeTurn(turn)}</p>${figure}</div>`;
}

/** Who each side is: run, trial (the candidate's links to its page in this report), repeat and verdict. */
function sidesRow(d: Divergence): Raw {
  const candidateLink = html`<a href="${trialPageHref(d.candidate.seq)}">trial ${d.candidate.trialId}</a>`;
  return html`<div class="sbs-row"><span class="sbs-label"></span>
<div class="sbs-cell"><strong>baseline</strong> run ${d.base.runId}, trial ${d.base.trialId}
(repeat ${d.base.repeat}): ${verdictText(d.base.verdict)}</div>
<div class="sbs-cell"><strong>candidate</strong> run ${d.candidate.runId}, ${candidateLink}
(repeat ${d.candidate.repeat}): ${verdictText(d.candidate.verdict)}</div></div>`;
}

function turnRow(d: Divergence, offset: 0 | 1, place: DivergencePageInput["place"]): Raw {
  const n = d.turn! + offset;
  const label = `turn ${n}${offset === 0 ? " (diverged)" : ""}`;
  return html`<div class="sbs-row" data-turn="${n}"><span class="sbs-label">${label}</span>
${turnCell(d.baseTurns[offset], place, "baseline")}
${turnCell(d.candidateTurns[offset], place, "candidate")}</div>`;
}

function divergenceSection(d: Divergence, input: DivergencePageInput): Raw {
  const rows = d.turn === null ? [] : ([0, 1] as const).map((offset) => turnRow(d, offset, input.place));
  return html`<section class="divergence" id="${`divergence-${d.key}`}">
<h2>${d.key} <span class="muted">${d.direction}</span></h2>
<p class="divergence-line">${divergenceLine(d)}</p>
${sidesRow(d)}
${rows}
</section>`;
}

export function divergencePageHtml(input: DivergencePageInput): string {
  const sections = input.divergences.length
    ? input.divergences.map((d) => divergenceSection(d, input))
    : html`<p>No task flipped between these runs.</p>`;
  const body = html`<nav class="crumbs"><a href="${INDEX_PAGE}">← all trials</a></nav>
<h1>Where the flipped tasks diverged
<span class="muted">baseline ${input.baseRun} → candidate ${input.candidateRun}</span></h1>
${input.changes.length ? html`<ul class="changes">${input.changes.map((c) => html`<li>${c}</li>`)}</ul>` : ""}
<p class="muted">For each task that passed in every repeat on one side and in none on the other: the
baseline's and the candidate's first trial of the verdict that flipped, walked turn by turn; the first
turn whose screens were less than 90% alike or whose actions differed by action signature, and the turn
after it.</p>
${sections}`;
  const title = `Divergence — ${input.candidateRun} against ${input.baseRun}`;
  return pageHtml({ title, root: "", body, bodyClass: "page-divergence" });
}
