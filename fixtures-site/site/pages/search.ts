/** Search results: one link per hit (mark `result-<ID>`), the exact id first; `no-results` when empty. */
import { searchMatches, type SearchHit } from "../../data/matches.js";
import { displayDate, esc } from "../html.js";

function hitItem(hit: SearchHit, deleted: boolean): string {
  const m = hit.match;
  return `<li><a data-mark="result-${esc(m.id)}" href="/match/${esc(m.id)}"><span class="rid">${esc(m.id)}</span><span class="teams">${esc(`${m.teams[0]} vs ${m.teams[1]}`)}</span><span class="when">${esc(displayDate(m.date))}</span><span>${esc(m.venue)}</span>${deleted ? '<span class="deleted">(deleted)</span>' : ""}</a></li>`;
}

export function renderSearch(query: string, deletedMatches: ReadonlySet<string>): { title: string; main: string } {
  const hits = searchMatches(query);
  const direct = hits.filter((h) => h.reason !== "similar-id");
  const similar = hits.filter((h) => h.reason === "similar-id");
  const list = (items: SearchHit[]) =>
    `<ul class="results">${items.map((h) => hitItem(h, deletedMatches.has(h.match.id))).join("")}</ul>`;
  const body =
    hits.length === 0
      ? `<p class="empty" data-mark="no-results">No matches found for “${esc(query)}”.</p>`
      : `${direct.length ? list(direct) : ""}${similar.length ? `<div class="results-group">Similar match ids</div>${list(similar)}` : ""}`;
  const main = `<a class="back" data-mark="back-home" href="/">← Home</a>
<h1>Search results</h1>
<form class="search-bar" action="/search" method="get" role="search">
<input class="text search-input" data-mark="search-box" type="text" name="q" value="${esc(query)}" placeholder="Search matches" autocomplete="off" aria-label="Search matches">
<button class="btn primary" data-mark="search-button" type="submit">Search</button>
</form>
${body}`;
  return { title: query ? `Search: ${query} · Bat & Ball League` : "Search · Bat & Ball League", main };
}
