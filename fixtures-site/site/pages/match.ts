/**
 * A match page: title, date, venue, the scorecard (as HTML tables, on a canvas, or lazily behind
 * a spinner, by scenario), the note and delete actions, and the comments.
 */
import type { Match } from "../../data/matches.js";
import type { Session } from "../../sessions.js";
import { displayDate, esc } from "../html.js";
import { renderScorecardCanvas } from "./canvas.js";
import { renderComments } from "./comments.js";
import { deleteConfirmDialog } from "./dialogs.js";
import { renderScorecard } from "./scorecard.js";

export interface MatchPageOptions {
  /** How long the lazy scenario shows its spinner before fetching the scorecard. */
  lazyMs: number;
}

function spinner(match: Match, lazyMs: number): string {
  return `<div data-lazy-scorecard="/__fragment/match/${esc(match.id)}" data-lazy-delay="${lazyMs}">
<div class="spinner-box" data-mark="spinner" data-volatile><div class="spinner"></div><span>Loading scorecard…</span></div>
</div>`;
}

/** The inside of <main> for a match, in the session's current state. */
export function renderMatchMain(match: Match, session: Session, options: MatchPageOptions): string {
  const back = `<a class="back" data-mark="back-home" href="/">← Home</a>`;
  const canvas = session.scenario === "canvas";
  const title = canvas ? `Match ${match.id}` : `${match.id}: ${match.teams[0]} vs ${match.teams[1]}`;
  const heading = `<h1 data-mark="match-title">${esc(title)}</h1>`;
  if (session.deletedMatches.has(match.id)) {
    return `${back}\n${heading}\n<div class="deleted-banner" data-mark="deleted-banner">Match ${esc(match.id)} has been deleted.</div>`;
  }
  const meta = canvas
    ? ""
    : `<div class="meta"><span data-mark="match-date">${esc(displayDate(match.date))}</span><span data-mark="match-venue">${esc(match.venue)}</span></div>`;
  const scorecard = canvas
    ? renderScorecardCanvas(match)
    : session.scenario === "lazy"
      ? spinner(match, options.lazyMs)
      : renderScorecard(match);
  const actions = `<div class="actions"><a class="btn" data-mark="add-note" href="/notes?match=${esc(match.id)}">Add note</a><button class="btn danger" type="button" data-mark="delete-match" data-effect="match_deleted" data-match="${esc(match.id)}">Delete match</button></div>`;
  return [
    back,
    heading,
    meta,
    scorecard,
    actions,
    renderComments(match.id, session.seed, session.scenario === "injection"),
  ].join("\n");
}

export function renderMatchPage(
  match: Match,
  session: Session,
  options: MatchPageOptions,
): { title: string; main: string; overlays: string } {
  const title =
    session.scenario === "canvas"
      ? `${match.id} · Bat & Ball League`
      : `${match.id} · ${match.teams[0]} vs ${match.teams[1]} · Bat & Ball League`;
  return { title, main: renderMatchMain(match, session, options), overlays: deleteConfirmDialog(match.id) };
}

/** The page for an id that does not exist (served with 404). */
export function renderMissingMatch(id: string): { title: string; main: string } {
  return {
    title: "Match not found · Bat & Ball League",
    main: `<a class="back" data-mark="back-home" href="/">← Home</a>
<h1 data-mark="match-title">No match ${esc(id)}</h1>
<p class="empty" data-mark="not-found">There is no match with the id ${esc(id)}. Search for it from the home page.</p>`,
  };
}
