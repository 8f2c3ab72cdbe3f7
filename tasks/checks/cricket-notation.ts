/**
 * Reading cricket score notation and results: the fixture suite's own knowledge, used by its
 * custom checks (./cricket.ts) through umpire's public check API only.
 *
 * "168/6" is 168 runs for the loss of 6 wickets: never a division (it is not 28). The same score
 * is written "168-6" and "168 for 6" ("168 for six"); "143 all out" is 143/10. Australian usage
 * puts wickets first ("6/168", "6 for 168"); that reading is used only when it is unambiguous
 * (the first number is at most 10 and the second is above 10).
 *
 * A limited-overs result follows from the two innings: the side batting second wins "by N
 * wickets" with N = 10 - wickets it lost when it passes the target (169/4 chasing 168/6: won by
 * 6 wickets); the side batting first wins "by N runs" when the chase falls short.
 */
import { normalizeDashes, normalizeText, NUMBER_WORD_SOURCE, parseNumberToken } from "umpire/checks";

export interface Score {
  runs: number;
  wickets: number;
}

export interface ScoreMention extends Score {
  /** The notation as written, e.g. "168 for 6". */
  text: string;
  index: number;
}

export type MatchResult =
  | { kind: "win"; winner: string; margin: number; unit: "runs" | "wickets" }
  | { kind: "tie" };

export type ResultMention = MatchResult & { text: string };

const NUM = `(\\d{1,3}|${NUMBER_WORD_SOURCE})`;
/** runs SEP wickets, with SEP one of "/", "-", " for "; not inside a date or a longer number. */
const SCORE_PATTERN = new RegExp(
  `(?<![\\w/.-])(\\d{1,3})\\s*(?:/|-|\\s+for\\s+)\\s*${NUM}(?![\\w/-]|\\.\\d)|(?<![\\w/.-])(\\d{1,3})\\s+all\\s+out\\b`,
  "gi",
);

/** Formats a score the canonical way: "168/6". */
export function formatScore(score: Score): string {
  return `${score.runs}/${score.wickets}`;
}

function toScore(first: number, second: number): Score | null {
  if (second <= 10) return { runs: first, wickets: second };
  if (first <= 10) return { runs: second, wickets: first }; // wickets-first (Australian) notation
  return null; // neither number can be a wicket count, so this is not a score
}

/** Every score stated in `text`, in order. "28" or "168 runs" alone is not a score. */
export function findScores(text: string): ScoreMention[] {
  const out: ScoreMention[] = [];
  for (const m of normalizeDashes(text).matchAll(SCORE_PATTERN)) {
    if (m[3] !== undefined) {
      out.push({ runs: Number(m[3]), wickets: 10, text: m[0], index: m.index });
      continue;
    }
    const second = parseNumberToken(m[2]);
    const score = second === null ? null : toScore(Number(m[1]), second);
    if (score) out.push({ ...score, text: m[0], index: m.index });
  }
  return out;
}

/** Reads a whole string as one score ("168/6", "168-6", "168 for six"); null if it is not one. */
export function parseScore(text: string): Score | null {
  const mentions = findScores(text.trim());
  if (mentions.length !== 1 || mentions[0].text.length !== text.trim().length) return null;
  return { runs: mentions[0].runs, wickets: mentions[0].wickets };
}

/**
 * The result of a completed limited-overs match from its two innings.
 * Throws a RangeError for an impossible pair (a chase that passed the target after 10 wickets).
 */
export function deriveResult(
  battingFirst: { team: string; score: Score },
  battingSecond: { team: string; score: Score },
): MatchResult {
  const first = battingFirst.score;
  const second = battingSecond.score;
  for (const s of [first, second]) {
    if (s.wickets < 0 || s.wickets > 10) throw new RangeError(`${formatScore(s)}: wickets must be 0..10`);
  }
  if (second.runs > first.runs) {
    if (second.wickets >= 10) throw new RangeError(`${formatScore(second)} cannot pass a target: the side was all out`);
    return { kind: "win", winner: battingSecond.team, margin: 10 - second.wickets, unit: "wickets" };
  }
  if (first.runs > second.runs) {
    return { kind: "win", winner: battingFirst.team, margin: first.runs - second.runs, unit: "runs" };
  }
  return { kind: "tie" };
}

/** "Jaipur Kites won by 6 wickets", "Match tied". */
export function formatResult(result: MatchResult): string {
  if (result.kind === "tie") return "Match tied";
  const unit = result.margin === 1 ? result.unit.replace(/s$/, "") : result.unit;
  return `${result.winner} won by ${result.margin} ${unit}`;
}

const MARGIN_PATTERN = new RegExp(`\\bby\\s+${NUM}\\s+(wickets?|wkts?|runs?)\\b`, "gi");
const WIN_VERB = /\b(?:won|wins|win|beat|beats|defeated|defeats|overcame|thrashed|edged)\b/gi;
const LOSS_PHRASE = /\b(?:lost|lose|loses)\s+to\s+|\b(?:were|was)\s+(?:beaten|defeated)\s+by\s+|\bwent\s+down\s+to\s+/gi;
/** Words that end a team name when they follow it ("Jaipur Kites chased down ... to win"). */
const AFTER_TEAM = /\s+(?:chased|chasing|reached|made|scored|posted|finished|went|managed|were|was|did|to|comfortably|easily)\b.*$/i;
const LEADING_FILLER = /^(?:(?:so|and|thus|therefore|then|finally|done|result|answer|in the end|the)\b[\s]*)+/i;
/** Splits a sentence into pieces a team name cannot span. */
const CLAUSE_BREAK = /[:,;()"“”]|\s+(?:and|but|while|whereas)\s+|\s+-\s+/i;
/** Sentence ends: '.', '!', '?', ';' or a line break, but not a decimal point ("18.3 overs"). */
const SENTENCE_BREAK = /\.(?!\d)|(?<!\d)\.|[!?\n]/;

/**
 * The team name at the end of `phrase` (the words before "won"). Scores and clause breaks split
 * the phrase; pieces are tried from the last, each cut before verbs that follow a team name.
 */
function cleanTeam(phrase: string): string {
  const pieces = phrase.replace(SCORE_PATTERN, ",").split(CLAUSE_BREAK);
  for (let i = pieces.length - 1; i >= 0; i--) {
    const name = ` ${pieces[i] ?? ""}`.replace(AFTER_TEAM, "").trim().replace(LEADING_FILLER, "").trim();
    if (name) return name;
  }
  return "";
}

function lastMatchEnd(text: string, pattern: RegExp): { index: number; end: number } | null {
  let found: { index: number; end: number } | null = null;
  for (const m of text.matchAll(pattern)) found = { index: m.index, end: m.index + m[0].length };
  return found;
}

/** The winner named before a margin phrase: "X won", "X beat Y", "Y lost to X", "Y was beaten by X". */
function winnerBefore(prefix: string): string | null {
  const loss = lastMatchEnd(prefix, LOSS_PHRASE);
  const win = lastMatchEnd(prefix, WIN_VERB);
  if (loss && (!win || win.index < loss.end)) return cleanTeam(prefix.slice(loss.end)) || null;
  if (win) return cleanTeam(prefix.slice(0, win.index)) || null;
  return null;
}

/**
 * Every result stated in `text`: "Jaipur Kites won by 6 wickets", "Jaipur Kites beat Pune
 * Pioneers by six wickets", "Pune Pioneers lost to Jaipur Kites by 6 wkts", "match tied".
 * A margin with no winner that can be read ("won by 6 wickets") is not returned.
 */
export function findResults(text: string): ResultMention[] {
  const out: ResultMention[] = [];
  for (const sentence of normalizeDashes(text).split(SENTENCE_BREAK)) {
    for (const m of sentence.matchAll(MARGIN_PATTERN)) {
      const margin = parseNumberToken(m[1]);
      const winner = winnerBefore(sentence.slice(0, m.index));
      if (margin === null || !winner) continue;
      const unit = m[2].toLowerCase().startsWith("r") ? "runs" : "wickets";
      out.push({ kind: "win", winner, margin, unit, text: sentence.trim() });
    }
    if (/\b(?:match\s+)?tied\b|\bended\s+in\s+a\s+tie\b/i.test(sentence)) out.push({ kind: "tie", text: sentence.trim() });
  }
  return out;
}

/** Reads one result sentence; null when it states no readable result. */
export function parseResult(sentence: string): MatchResult | null {
  const found = findResults(sentence)[0];
  if (!found) return null;
  if (found.kind === "tie") return { kind: "tie" };
  return { kind: "win", winner: found.winner, margin: found.margin, unit: found.unit };
}

function teamWords(name: string): string {
  return normalizeText(name)
    .replace(/[^\p{L}\p{N} ]/gu, " ")
    .replace(/\bthe\b/g, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * Whether two team names refer to the same side: equal after normalisation, or one is a
 * whole-word part of the other ("Kites" and "Jaipur Kites", "the Jaipur Kites").
 */
export function sameTeam(a: string, b: string): boolean {
  const x = teamWords(a);
  const y = teamWords(b);
  if (!x || !y) return false;
  return x === y || ` ${x} `.includes(` ${y} `) || ` ${y} `.includes(` ${x} `);
}

/** Whether two results say the same thing: same winner, margin and unit, or both a tie. */
export function sameResult(a: MatchResult, b: MatchResult): boolean {
  if (a.kind === "tie" || b.kind === "tie") return a.kind === b.kind;
  return a.unit === b.unit && a.margin === b.margin && sameTeam(a.winner, b.winner);
}

export interface CricketExpectation {
  /** Scores as runs/wickets, e.g. ["168/6", "169/4"]. */
  scores: readonly string[];
  /** A result sentence, e.g. "Jaipur Kites won by 6 wickets". */
  result?: string;
}

export interface CricketReading {
  pass: boolean;
  failures: string[];
  scoresFound: string[];
  resultsFound: string[];
}

/**
 * Whether `answer` states each expected score as a score and the same result, and states no
 * other result. Throws when the expectation itself cannot be read (a bad task declaration).
 */
export function readCricketAnswer(answer: string, expected: CricketExpectation): CricketReading {
  const stated = findScores(answer);
  const results = findResults(answer);
  const failures: string[] = [];
  const scoresFound = stated.map(formatScore);
  for (const text of expected.scores) {
    const want = parseScore(text);
    if (!want) throw new Error(`cannot read the expected score "${text}"; write it as runs/wickets, e.g. 168/6`);
    if (!stated.some((s) => s.runs === want.runs && s.wickets === want.wickets)) {
      failures.push(`does not state the score ${formatScore(want)} (scores stated: ${scoresFound.join(", ") || "none"})`);
    }
  }
  if (expected.result !== undefined) {
    const want = parseResult(expected.result);
    if (!want) throw new Error(`cannot read the expected result "${expected.result}"; write e.g. "Jaipur Kites won by 6 wickets"`);
    const wrong = results.filter((r) => !sameResult(r, want));
    if (results.length === 0) {
      failures.push(`does not state the result (expected "${formatResult(want)}")`);
    } else if (wrong.length > 0) {
      failures.push(`states "${wrong[0].text}", but the result is "${formatResult(want)}"`);
    }
  }
  return {
    pass: failures.length === 0,
    failures,
    scoresFound,
    resultsFound: results.map((r) => (r.kind === "tie" ? "tie" : formatResult(r))),
  };
}
