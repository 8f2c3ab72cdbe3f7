/**
 * The canvas scenario's scorecard: the server lays the scorecard out as a list of drawing
 * operations, and the page script paints them on a <canvas>. The DOM carries the operations only
 * base64-encoded, so no score text can be read from the page's HTML or text.
 */
import type { Innings } from "../../data/innings.js";
import { inningsHeadline, type Match } from "../../data/matches.js";
import { displayDate, esc } from "../html.js";

/** [kind, ...args]: text(x, y, text, font, colour, align) | rect(x, y, w, h, colour) | line(x1, y1, x2, y2, colour). */
export type DrawOp =
  | ["text", number, number, string, string, string, "left" | "right"]
  | ["rect", number, number, number, number, string]
  | ["line", number, number, number, number, string];

export const CANVAS_WIDTH = 1160;
const COLUMN_WIDTH = 548;
const ROW = 20;
const FONT = "13px sans-serif";
const BOLD = "bold 13px sans-serif";
const INK = "#1b1f1d";
const MUTED = "#4a524e";
const RULE = "#c9ccc3";

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function inningsOps(innings: Innings, x: number, top: number): { ops: DrawOp[]; bottom: number } {
  const ops: DrawOp[] = [];
  let y = top;
  ops.push(["text", x, y, inningsHeadline(innings), "bold 16px sans-serif", INK, "left"]);
  y += 26;
  const right = x + COLUMN_WIDTH;
  const header = (cells: Array<[string, number, "left" | "right"]>) => {
    for (const [text, cx, align] of cells) ops.push(["text", cx, y, text, BOLD, MUTED, align]);
    ops.push(["line", x, y + 6, right, y + 6, RULE]);
    y += ROW;
  };
  header([
    ["Batter", x, "left"],
    ["How out", x + 160, "left"],
    ["Runs", right - 60, "right"],
    ["Balls", right - 6, "right"],
  ]);
  for (const b of innings.batting) {
    ops.push(["text", x, y, clip(b.batter, 22), FONT, INK, "left"]);
    ops.push(["text", x + 160, y, clip(b.howOut, 40), FONT, INK, "left"]);
    ops.push(["text", right - 60, y, String(b.runs), FONT, INK, "right"]);
    ops.push(["text", right - 6, y, String(b.balls), FONT, INK, "right"]);
    y += ROW;
  }
  ops.push(
    ["text", x, y, "Extras", FONT, INK, "left"],
    ["text", right - 60, y, String(innings.extras), FONT, INK, "right"],
  );
  y += ROW;
  const total = innings.wickets >= 10 ? `${innings.runs} all out` : `${innings.runs}/${innings.wickets}`;
  ops.push(["line", x, y - 14, right, y - 14, RULE]);
  ops.push(
    ["text", x, y, "Total", BOLD, INK, "left"],
    ["text", x + 160, y, `${innings.overs} overs`, BOLD, INK, "left"],
    ["text", right - 60, y, total, BOLD, INK, "right"],
  );
  y += ROW;
  if (innings.didNotBat.length)
    ops.push(["text", x, y, clip(`Did not bat: ${innings.didNotBat.join(", ")}`, 80), FONT, MUTED, "left"]);
  y += ROW + 8;
  header([
    ["Bowler", x, "left"],
    ["Overs", right - 160, "right"],
    ["Runs", right - 90, "right"],
    ["Wickets", right - 6, "right"],
  ]);
  for (const b of innings.bowling) {
    ops.push(["text", x, y, b.bowler, FONT, INK, "left"]);
    ops.push(["text", right - 160, y, b.overs, FONT, INK, "right"]);
    ops.push(["text", right - 90, y, String(b.runs), FONT, INK, "right"]);
    ops.push(["text", right - 6, y, String(b.wickets), FONT, INK, "right"]);
    y += ROW;
  }
  return { ops, bottom: y };
}

/** The drawing of a whole scorecard, and the canvas height it needs (CSS pixels). */
export function scorecardDrawing(match: Match): { ops: DrawOp[]; height: number } {
  const ops: DrawOp[] = [];
  ops.push(["text", 16, 34, `${match.teams[0]} vs ${match.teams[1]}`, "bold 22px sans-serif", INK, "left"]);
  ops.push(["text", 16, 58, `${displayDate(match.date)} · ${match.venue}`, "14px sans-serif", MUTED, "left"]);
  const left = inningsOps(match.innings[0], 16, 96);
  const right = inningsOps(match.innings[1], 16 + COLUMN_WIDTH + 32, 96);
  ops.push(...left.ops, ...right.ops);
  const resultTop = Math.max(left.bottom, right.bottom) + 6;
  ops.push(["rect", 16, resultTop, CANVAS_WIDTH - 32, 36, "#e3efe6"], ["rect", 16, resultTop, 4, 36, "#1f3b2d"]);
  ops.push(["text", 32, resultTop + 24, match.result, "bold 17px sans-serif", INK, "left"]);
  return { ops, height: resultTop + 52 };
}

/** The <canvas> element; the page script paints it on load. */
export function renderScorecardCanvas(match: Match): string {
  const { ops, height } = scorecardDrawing(match);
  const encoded = Buffer.from(JSON.stringify(ops), "utf8").toString("base64");
  return `<canvas class="scorecard-canvas" data-mark="scorecard-canvas" width="${CANVAS_WIDTH}" height="${height}" style="width:${CANVAS_WIDTH}px;height:${height}px" data-draw="${esc(encoded)}"></canvas>`;
}
