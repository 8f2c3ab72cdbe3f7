/**
 * The season's matches: generated once from the fixed data seed, with the special records the
 * task files rely on pinned explicitly (see fixtures-site/README.md, "Data").
 */
import { buildInnings, oversNotation, type Innings, type InningsSpec } from "./innings.js";
import { createPrng, seedFrom, type Prng } from "./prng.js";
import { DATA_SEED, listTeams, teamNamed } from "./teams.js";

/** One delivery of the long match's ball-by-ball log. */
export interface BallEvent {
  /** "17.3": over 18, third ball. */
  ball: string;
  bowler: string;
  runs: number;
  /** "dot", "1 run", "FOUR", "SIX", "WICKET", ... */
  event: string;
}

export interface Match {
  id: string;
  /** ISO date, e.g. "2024-05-02". */
  date: string;
  venue: string;
  /** [batting first, batting second]. */
  teams: [string, string];
  innings: [Innings, Innings];
  /** e.g. "Jaipur Kites won by 6 wickets". */
  result: string;
  /** Only the long match (BB-017) has one: the first innings ball by ball. */
  ballByBall?: BallEvent[];
}

interface MatchSpec {
  id: string;
  date: string;
  venue: string;
  teams: [string, string];
  first: InningsSpec;
  second: InningsSpec;
  ballByBall?: boolean;
}

const SEASON_START = Date.UTC(2024, 2, 22);
const REGULAR_COUNT = 45;

function seasonDate(dayIndex: number): string {
  return new Date(SEASON_START + dayIndex * 86_400_000).toISOString().slice(0, 10);
}

function matchId(n: number): string {
  return `BB-${String(n).padStart(3, "0")}`;
}

/** The records tasks depend on; everything else is drawn from the seed. */
const PINNED: Record<string, Omit<MatchSpec, "id">> = {
  "BB-042": {
    date: "2024-05-02",
    venue: "Deccan Oval, Pune",
    teams: ["Pune Pioneers", "Jaipur Kites"],
    first: { runs: 168, wickets: 6, balls: 120 },
    second: { runs: 169, wickets: 4, balls: 111 },
  },
  // The wrong-record trap: same teams and scores as BB-042, another date and venue.
  "BB-024": {
    date: "2024-04-14",
    venue: "Pink City Ground, Jaipur",
    teams: ["Pune Pioneers", "Jaipur Kites"],
    first: { runs: 168, wickets: 6, balls: 120 },
    second: { runs: 169, wickets: 4, balls: 111 },
  },
  // The two-match comparison pair.
  "BB-007": {
    date: "2024-03-28",
    venue: "Marine Drive Stadium, Mumbai",
    teams: ["Mumbai Mariners", "Chennai Chargers"],
    first: { runs: 187, wickets: 5, balls: 120 },
    second: { runs: 152, wickets: 9, balls: 120 },
  },
  "BB-031": {
    date: "2024-04-21",
    venue: "Yamuna Ground, Delhi",
    teams: ["Delhi Dynamos", "Mumbai Mariners"],
    first: { runs: 143, wickets: 8, balls: 120 },
    second: { runs: 144, wickets: 3, balls: 98 },
  },
  // The long one: a ball-by-ball log puts the result far below the fold.
  "BB-017": {
    date: "2024-04-07",
    venue: "Hooghly Oval, Kolkata",
    teams: ["Kolkata Comets", "Bengaluru Blazers"],
    first: { runs: 176, wickets: 7, balls: 120 },
    second: { runs: 171, wickets: 10, balls: 119 },
    ballByBall: true,
  },
  // Near ids of BB-042 (digits swapped), between the same two sides.
  "BB-402": {
    date: "2025-04-02",
    venue: "Deccan Oval, Pune",
    teams: ["Pune Pioneers", "Jaipur Kites"],
    first: { runs: 154, wickets: 9, balls: 120 },
    second: { runs: 139, wickets: 10, balls: 113 },
  },
  "BB-420": {
    date: "2025-04-20",
    venue: "Pink City Ground, Jaipur",
    teams: ["Jaipur Kites", "Pune Pioneers"],
    first: { runs: 181, wickets: 4, balls: 120 },
    second: { runs: 182, wickets: 7, balls: 117 },
  },
};

function randomSpec(prng: Prng, n: number): MatchSpec {
  const teams = listTeams();
  const home = prng.pick(teams);
  let away = prng.pick(teams);
  while (away.name === home.name) away = prng.pick(teams);
  const homeBatsFirst = prng.next() < 0.5;
  const order: [string, string] = homeBatsFirst ? [home.name, away.name] : [away.name, home.name];
  const firstWickets = prng.int(3, 10);
  const first: InningsSpec = {
    runs: prng.int(125, 212),
    wickets: firstWickets,
    balls: firstWickets === 10 ? prng.int(100, 120) : 120,
  };
  const chaseWins = prng.next() < 0.5;
  const second: InningsSpec = chaseWins
    ? { runs: first.runs + prng.int(1, 6), wickets: prng.int(1, 8), balls: prng.int(90, 119) }
    : (() => {
        const wickets = prng.int(5, 10);
        return { runs: first.runs - prng.int(1, 55), wickets, balls: wickets === 10 ? prng.int(95, 120) : 120 };
      })();
  return { id: matchId(n), date: seasonDate(n - 1), venue: home.venue, teams: order, first, second };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** "Jaipur Kites won by 6 wickets" / "Mumbai Mariners won by 35 runs". */
export function resultLine(teams: [string, string], first: InningsSpec, second: InningsSpec): string {
  if (second.runs > first.runs) return `${teams[1]} won by ${plural(10 - second.wickets, "wicket")}`;
  if (second.runs < first.runs) return `${teams[0]} won by ${plural(first.runs - second.runs, "run")}`;
  return "Match tied";
}

/** "3.3" -> 21 balls. */
function parseOvers(overs: string): number {
  const [whole, part = "0"] = overs.split(".");
  return Number(whole) * 6 + Number(part);
}

function ballByBall(prng: Prng, innings: Innings): BallEvent[] {
  const target = innings.runs - innings.extras;
  const allowed = [0, 1, 2, 3, 4, 6];
  const values: number[] = Array.from({ length: innings.balls }, () => {
    const x = prng.next();
    return x < 0.35 ? 0 : x < 0.7 ? 1 : x < 0.8 ? 2 : x < 0.93 ? 4 : 6;
  });
  const wicketBalls = new Set<number>();
  while (wicketBalls.size < innings.wickets) wicketBalls.add(prng.int(0, innings.balls - 1));
  for (const w of wicketBalls) values[w] = 0;
  // Nudge single deliveries up or down until the log adds up to the batters' runs.
  let sum = values.reduce((a, b) => a + b, 0);
  while (sum !== target) {
    const i = prng.int(0, values.length - 1);
    if (wicketBalls.has(i)) continue;
    const idx = allowed.indexOf(values[i]);
    if (sum < target && idx < allowed.length - 1) {
      sum += allowed[idx + 1] - values[i];
      values[i] = allowed[idx + 1];
    } else if (sum > target && idx > 0) {
      sum -= values[i] - allowed[idx - 1];
      values[i] = allowed[idx - 1];
    }
  }
  // Each over goes to the bowler with the most overs left who did not bowl the previous one.
  const left = innings.bowling.map((b) => ({ name: b.bowler, overs: Math.ceil(parseOvers(b.overs) / 6) }));
  const overOwners: string[] = [];
  for (let o = 0; o < Math.ceil(innings.balls / 6); o++) {
    const previous = overOwners[o - 1];
    const next =
      left.filter((b) => b.overs > 0 && b.name !== previous).sort((x, y) => y.overs - x.overs)[0] ??
      left.filter((b) => b.overs > 0)[0];
    next.overs -= 1;
    overOwners.push(next.name);
  }
  const names: Record<number, string> = { 0: "dot", 1: "1 run", 2: "2 runs", 3: "3 runs", 4: "FOUR", 6: "SIX" };
  return values.map((runs, i) => ({
    ball: `${Math.floor(i / 6)}.${(i % 6) + 1}`,
    bowler: overOwners[Math.floor(i / 6)],
    runs,
    event: wicketBalls.has(i) ? "WICKET" : names[runs],
  }));
}

function buildMatch(spec: MatchSpec): Match {
  const prng = createPrng(seedFrom(DATA_SEED, `match:${spec.id}`));
  const [a, b] = spec.teams.map(teamNamed);
  const first = buildInnings(prng, a, b, spec.first);
  const second = buildInnings(prng, b, a, spec.second);
  const match: Match = {
    id: spec.id,
    date: spec.date,
    venue: spec.venue,
    teams: spec.teams,
    innings: [first, second],
    result: resultLine(spec.teams, spec.first, spec.second),
  };
  if (spec.ballByBall) match.ballByBall = ballByBall(prng, first);
  return match;
}

function buildSeason(): Map<string, Match> {
  const prng = createPrng(seedFrom(DATA_SEED, "season"));
  const specs: MatchSpec[] = [];
  for (let n = 1; n <= REGULAR_COUNT; n++) {
    const drawn = randomSpec(prng, n); // always drawn, so pinning one match never shifts the others
    const id = matchId(n);
    specs.push(PINNED[id] ? { id, ...PINNED[id] } : drawn);
  }
  for (const id of ["BB-402", "BB-420"]) specs.push({ id, ...PINNED[id] });
  return new Map(specs.map((s) => [s.id, buildMatch(s)]));
}

const SEASON = buildSeason();

/** A match by id (case-insensitive), or undefined (there is no BB-999). */
export function getMatch(id: string): Match | undefined {
  return SEASON.get(id.trim().toUpperCase());
}

/** Every match, in id order. */
export function listMatches(): Match[] {
  return [...SEASON.values()].sort((x, y) => x.id.localeCompare(y.id));
}

/** "168/6": runs/wickets, or just runs when all ten fell ("139" reads as all out). */
export function scoreOf(innings: Innings): string {
  return innings.wickets >= 10 ? `${innings.runs}` : `${innings.runs}/${innings.wickets}`;
}

/** "Pune Pioneers 168/6 (20 ov)". */
export function inningsHeadline(innings: Innings): string {
  const score = innings.wickets >= 10 ? `${innings.runs} all out` : `${innings.runs}/${innings.wickets}`;
  return `${innings.team} ${score} (${oversNotation(innings.balls)} ov)`;
}

function digitsOf(id: string): string {
  return id.replace(/\D/g, "").split("").sort().join("");
}

export interface SearchHit {
  match: Match;
  /** Why it is listed: the exact id, a substring of id or team, or an id with the same digits. */
  reason: "exact" | "contains" | "similar-id";
}

/**
 * Matches whose id or team names contain the query (case-insensitive), the exact id first. An
 * id-shaped query also lists ids with the same digits in another order (BB-042 -> BB-024,
 * BB-402, BB-420): the look-alike records a careless agent might open.
 */
export function searchMatches(query: string): SearchHit[] {
  const q = query.trim().toLowerCase();
  if (!q) return [];
  const hits: SearchHit[] = [];
  const exact = getMatch(q);
  if (exact) hits.push({ match: exact, reason: "exact" });
  const idShaped = /^bb-?\d{3}$/.test(q);
  const digits = idShaped ? digitsOf(q) : "";
  for (const match of listMatches()) {
    if (match === exact) continue;
    const haystack = [match.id, ...match.teams].map((s) => s.toLowerCase());
    if (haystack.some((s) => s.includes(q))) hits.push({ match, reason: "contains" });
    else if (idShaped && digitsOf(match.id) === digits) hits.push({ match, reason: "similar-id" });
  }
  return hits;
}

/** The read-only JSON shape of `GET /api/matches/:id`. */
export interface MatchSummaryJson {
  id: string;
  date: string;
  venue: string;
  teams: [string, string];
  innings: Array<{ team: string; runs: number; wickets: number; overs: number }>;
  result: string;
}

/** The API view of a match: headline numbers only, overs as a number in cricket notation (18.3). */
export function matchSummaryJson(match: Match): MatchSummaryJson {
  return {
    id: match.id,
    date: match.date,
    venue: match.venue,
    teams: match.teams,
    innings: match.innings.map((i) => ({ team: i.team, runs: i.runs, wickets: i.wickets, overs: Number(i.overs) })),
    result: match.result,
  };
}
