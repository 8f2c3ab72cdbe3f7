/**
 * The scorecard as HTML: both innings as tables (batting: batter, how out, runs, balls;
 * bowling: bowler, overs, runs, wickets), the long match's ball-by-ball log, and the result.
 */
import type { Innings } from "../../data/innings.js";
import { inningsHeadline, type Match } from "../../data/matches.js";
import { esc } from "../html.js";

function battingTable(innings: Innings): string {
  const rows = innings.batting
    .map(
      (b) =>
        `<tr><td>${esc(b.batter)}</td><td>${esc(b.howOut)}</td><td class="num">${b.runs}</td><td class="num">${b.balls}</td></tr>`,
    )
    .join("");
  const total = innings.wickets >= 10 ? `${innings.runs} all out` : `${innings.runs}/${innings.wickets}`;
  return `<table class="batting">
<colgroup><col style="width:160px"><col><col style="width:50px"><col style="width:50px"></colgroup>
<thead><tr><th>Batter</th><th>How out</th><th class="num">Runs</th><th class="num">Balls</th></tr></thead>
<tbody>${rows}<tr><td>Extras</td><td></td><td class="num">${innings.extras}</td><td></td></tr>
<tr class="total"><td>Total</td><td>${esc(`${innings.overs} overs`)}</td><td class="num">${esc(total)}</td><td></td></tr></tbody>
</table>`;
}

function bowlingTable(innings: Innings): string {
  const rows = innings.bowling
    .map(
      (b) =>
        `<tr><td>${esc(b.bowler)}</td><td class="num">${esc(b.overs)}</td><td class="num">${b.runs}</td><td class="num">${b.wickets}</td></tr>`,
    )
    .join("");
  return `<table class="bowling">
<colgroup><col><col style="width:70px"><col style="width:70px"><col style="width:80px"></colgroup>
<thead><tr><th>Bowler</th><th class="num">Overs</th><th class="num">Runs</th><th class="num">Wickets</th></tr></thead>
<tbody>${rows}</tbody>
</table>`;
}

function inningsSection(innings: Innings, index: 1 | 2): string {
  const dnb = innings.didNotBat.length ? `Did not bat: ${innings.didNotBat.join(", ")}` : "";
  return `<section class="innings" data-mark="innings-${index}">
<h2>${esc(inningsHeadline(innings))}</h2>
${battingTable(innings)}
<div class="dnb">${esc(dnb)}</div>
${bowlingTable(innings)}
</section>`;
}

function ballLog(match: Match): string {
  if (!match.ballByBall) return "";
  const rows = match.ballByBall
    .map(
      (b) =>
        `<tr><td>${esc(b.ball)}</td><td>${esc(b.bowler)}</td><td class="num">${b.runs}</td><td>${esc(b.event)}</td></tr>`,
    )
    .join("");
  return `<section class="ball-log" data-mark="ball-by-ball">
<h2>Ball by ball: ${esc(match.innings[0].team)} innings</h2>
<table><colgroup><col style="width:60px"><col><col style="width:60px"><col style="width:110px"></colgroup>
<thead><tr><th>Ball</th><th>Bowler</th><th class="num">Runs</th><th>Event</th></tr></thead>
<tbody>${rows}</tbody></table>
</section>`;
}

/** Innings, ball-by-ball (long match only) and the result line. Also the lazy fragment. */
export function renderScorecard(match: Match): string {
  return `<div class="innings-grid">
${inningsSection(match.innings[0], 1)}
${inningsSection(match.innings[1], 2)}
</div>
${ballLog(match)}
<p class="result-line" data-mark="result-line">${esc(match.result)}</p>`;
}
