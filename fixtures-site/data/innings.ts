/**
 * Builds a full innings (batting card, bowling figures, extras) from its headline numbers, so
 * that the details always add up to the total a task checks against.
 */
import type { Prng } from "./prng.js";
import type { Team } from "./teams.js";

export interface BattingEntry {
  batter: string;
  /** "not out", "b X", "c Y b X", "lbw b X", "run out (Y)" or "st †Y b X". */
  howOut: string;
  runs: number;
  balls: number;
}

export interface BowlingEntry {
  bowler: string;
  /** Cricket overs notation: "4", "3.3" (three overs and three balls). */
  overs: string;
  runs: number;
  wickets: number;
}

export interface Innings {
  team: string;
  runs: number;
  wickets: number;
  /** Legal deliveries faced. */
  balls: number;
  /** Cricket overs notation of `balls`, e.g. "18.3". */
  overs: string;
  batting: BattingEntry[];
  didNotBat: string[];
  extras: number;
  bowling: BowlingEntry[];
}

/** The headline of an innings: what a scoreboard shows. */
export interface InningsSpec {
  runs: number;
  wickets: number;
  balls: number;
}

/** 111 -> "18.3", 120 -> "20". */
export function oversNotation(balls: number): string {
  const overs = Math.floor(balls / 6);
  const rest = balls % 6;
  return rest === 0 ? String(overs) : `${overs}.${rest}`;
}

/** Splits `total` into integer parts proportional to `weights` (the remainder goes to the largest). */
function apportion(total: number, weights: number[]): number[] {
  const sum = weights.reduce((a, b) => a + b, 0);
  const parts = weights.map((w) => Math.floor((total * w) / sum));
  let rest = total - parts.reduce((a, b) => a + b, 0);
  const order = weights.map((w, i) => ({ w, i })).sort((a, b) => b.w - a.w);
  for (let k = 0; rest > 0; k = (k + 1) % order.length, rest--) parts[order[k].i] += 1;
  return parts;
}

function battingBalls(prng: Prng, runs: number[], totalBalls: number): number[] {
  const balls = runs.map((r) => Math.max(1, Math.round(r / prng.between(0.9, 1.7))));
  const minimum = (i: number) => Math.max(1, Math.ceil(runs[i] / 4));
  let diff = totalBalls - balls.reduce((a, b) => a + b, 0);
  // Move one ball at a time to (or from) the batter whose strike rate is the most extreme.
  while (diff !== 0) {
    let best = -1;
    for (let i = 0; i < balls.length; i++) {
      if (diff < 0 && balls[i] <= minimum(i)) continue;
      const rate = runs[i] / balls[i];
      if (best < 0 || (diff > 0 ? rate > runs[best] / balls[best] : rate < runs[best] / balls[best])) best = i;
    }
    if (best < 0) break;
    balls[best] += diff > 0 ? 1 : -1;
    diff += diff > 0 ? -1 : 1;
  }
  return balls;
}

function bowlingBalls(prng: Prng, totalBalls: number, bowlerCount: number): number[] {
  const fullOvers = Math.floor(totalBalls / 6);
  const partial = totalBalls % 6;
  const overs = new Array<number>(bowlerCount).fill(0);
  for (let o = 0; o < fullOvers; o++) {
    const open = overs.map((n, i) => ({ n, i })).filter((b) => b.n < 4);
    overs[prng.pick(open).i] += 1;
  }
  const balls = overs.map((n) => n * 6);
  if (partial > 0) {
    const open = overs.map((n, i) => ({ n, i })).filter((b) => b.n < 4);
    balls[prng.pick(open).i] += partial;
  }
  return balls;
}

type Dismissal = "caught" | "bowled" | "lbw" | "run out" | "stumped";

function dismissal(prng: Prng): Dismissal {
  const x = prng.next();
  if (x < 0.55) return "caught";
  if (x < 0.75) return "bowled";
  if (x < 0.87) return "lbw";
  if (x < 0.95) return "run out";
  return "stumped";
}

/** Generates the details of one innings that add up to `spec`. */
export function buildInnings(prng: Prng, batting: Team, bowling: Team, spec: InningsSpec): Innings {
  const { runs, wickets, balls } = spec;
  const batted = wickets >= 10 ? 11 : wickets + 2;
  const extras = Math.min(runs, prng.int(3, 12));
  const weights = Array.from({ length: batted }, (_, i) => (batted - i) ** 0.8 * prng.between(0.3, 1.7));
  const batterRuns = apportion(runs - extras, weights);
  const batterBalls = battingBalls(prng, batterRuns, balls);

  // The not-out batters: the last one in, plus one survivor unless all ten wickets fell.
  const notOut = new Set<number>();
  if (wickets >= 10) notOut.add(prng.int(6, 10));
  else {
    notOut.add(batted - 1);
    notOut.add(prng.int(0, batted - 2));
  }

  const bowlerCount = balls > 96 ? 6 : 5;
  const bowlers = bowling.players.slice(11 - bowlerCount).reverse();
  const ballsBowled = bowlingBalls(prng, balls, bowlerCount);
  const wicketsTaken = new Array<number>(bowlerCount).fill(0);
  const keeper = bowling.players[3];
  const byes = Math.floor(extras / 3);

  const card: BattingEntry[] = batterRuns.map((r, i) => {
    const batter = batting.players[i];
    if (notOut.has(i)) return { batter, howOut: "not out", runs: r, balls: batterBalls[i] };
    const how = dismissal(prng);
    const fielder = prng.pick(bowling.players);
    if (how === "run out") return { batter, howOut: `run out (${fielder})`, runs: r, balls: batterBalls[i] };
    const candidates = ballsBowled.map((b, k) => ({ b, k })).filter((x) => x.b > 0);
    const k = prng.pick(candidates).k;
    wicketsTaken[k] += 1;
    const bowler = bowlers[k];
    const howOut =
      how === "caught"
        ? `c ${fielder === bowler ? "&" : fielder} b ${bowler}`
        : how === "bowled"
          ? `b ${bowler}`
          : how === "lbw"
            ? `lbw b ${bowler}`
            : `st †${keeper} b ${bowler}`;
    return { batter, howOut, runs: r, balls: batterBalls[i] };
  });

  const conceded = apportion(
    runs - byes,
    ballsBowled.map((b) => (b > 0 ? b * prng.between(0.7, 1.3) : 0)),
  );
  const figures: BowlingEntry[] = bowlers
    .map((bowler, k) => ({
      bowler,
      overs: oversNotation(ballsBowled[k]),
      runs: conceded[k],
      wickets: wicketsTaken[k],
      balls: ballsBowled[k],
    }))
    .filter((b) => b.balls > 0)
    .map(({ balls: _balls, ...entry }) => entry);

  return {
    team: batting.name,
    runs,
    wickets,
    balls,
    overs: oversNotation(balls),
    batting: card,
    didNotBat: batting.players.slice(batted),
    extras,
    bowling: figures,
  };
}
