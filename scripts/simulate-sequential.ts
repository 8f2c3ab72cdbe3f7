/**
 * `npm run simulate`: plays simulated `umpire run --until-decided` comparisons whose truth is known
 * and prints the error rates docs/reporting.md claims ("Repeats until decided"), measured rather
 * than argued. Each comparison runs the CLI's own decision code (decideTask and nextRound from
 * src/report/sequential.ts): a baseline of n repeats per task, then rounds of one repeat for every
 * task still undecided, up to --max-trials (here `maxRepeats` x the tasks), deciding at every round.
 *
 *   npm run simulate                      the full grid (11,880 comparisons; under a minute on one core)
 *   npm run simulate -- --quick           a few comparisons per cell (seconds)
 *   npm run simulate -- --per-cell 100 --seed 7 --max-repeats 40
 *
 * The grid: truth (no change; a move of 10, 30, 50 or 100 points on about half the tasks) x baseline
 * repeats (2, 3, 5, 6, 10, 20) x tasks per comparison (1, 5, 17, 50) x agent (deterministic: every
 * task passes always or never, a moved one at 1 - move or move; noisy: each task's rate drawn from
 * 0.05-0.95). A noisy task cannot move 100 points, so that cell is played by deterministic agents only.
 * Checked: the family-wise false alarm rate (any unmoved task of a comparison called worse or better)
 * <= alpha; per move >= d, the rate of calling a moved task "no change" <= beta.
 */
import { pathToFileURL } from "node:url";
import type { RepeatCounts } from "../src/report/power.js";
import { DEFAULT_DECISION, decideTask, nextRound, type TaskDecision } from "../src/report/sequential.js";
import { seededRandom } from "../src/report/stats.js";

export const MOVES = [0, 0.1, 0.3, 0.5, 1] as const;
export const BASE_REPEATS = [2, 3, 5, 6, 10, 20] as const;
export const TASK_COUNTS = [1, 5, 17, 50] as const;
export const AGENTS = ["deterministic", "noisy"] as const;

export interface SimulationOptions {
  /** Comparisons per grid cell. */
  perCell: number;
  seed: number;
  /** --max-trials as a multiple of the tasks: the most repeats a task can get on average. */
  maxRepeats: number;
}

export const FULL: SimulationOptions = { perCell: 55, seed: 1, maxRepeats: 40 };
export const QUICK: SimulationOptions = { perCell: 3, seed: 1, maxRepeats: 40 };

/** Tallies for one move: tasks that moved by it (for move 0: every task), by decision, and their repeats. */
export interface MoveTally {
  tasks: number;
  decided: Record<TaskDecision, number>;
  /** Candidate repeats summed over tasks decided worse, better or no change. */
  repeatsToDecision: number;
  /** Decided the wrong way round (moved down, called better, or up, called worse). */
  wrongWay: number;
}

export interface SimulationResult {
  options: SimulationOptions;
  comparisons: number;
  /** Comparisons with at least one unmoved task called worse or better. */
  falseAlarms: number;
  /** The worst cell's false alarm rate, and which cell. */
  worstCell: { rate: number; cell: string };
  byMove: Map<number, MoveTally>;
  /** Unchanged tasks of unchanged comparisons, by agent and baseline repeats ("deterministic, 6"). */
  unchanged: Map<string, MoveTally>;
  /** Moved tasks by move and baseline repeats ("0.3, 6"): how often a move is found. */
  movedByBase: Map<string, MoveTally>;
  /** Per move >= d, the worst cell's rate of calling a moved task "no change". */
  worstNoChange: Map<number, { rate: number; cell: string }>;
}

interface SimTask {
  base: RepeatCounts;
  cand: RepeatCounts;
  rate: number;
  /** Signed true move of the candidate's rate (0: unchanged). */
  move: number;
  decision: TaskDecision;
}

/** The tasks of one comparison: baseline rates, which move and which way, the baseline's repeats drawn. */
function drawTasks(
  random: () => number,
  cell: { move: number; base: number; tasks: number; agent: string },
): SimTask[] {
  const moving = Array.from({ length: cell.tasks }, () => cell.move > 0 && random() < 0.5);
  if (cell.move > 0 && !moving.some(Boolean)) moving[Math.floor(random() * cell.tasks)] = true;
  return moving.map((moves) => {
    const deterministic = cell.agent === "deterministic" || cell.move === 1;
    const p = deterministic ? (random() < 0.5 ? 0 : 1) : 0.05 + 0.9 * random();
    let move = 0;
    if (moves) {
      const canFall = p - cell.move >= 0;
      const canRise = p + cell.move <= 1;
      // Noisy rates near the middle can go either way; a rate near an end goes the way it can.
      const fall = canFall && (!canRise || random() < 0.5);
      move = fall ? -cell.move : canRise ? cell.move : 0;
    }
    let passes = 0;
    for (let i = 0; i < cell.base; i++) if (random() < p) passes += 1;
    return { base: { passes, n: cell.base }, cand: { passes: 0, n: 0 }, rate: p + move, move, decision: "undecided" };
  });
}

/** One comparison, played the way `umpire run --until-decided` plays it. */
function playComparison(tasks: SimTask[], maxRepeats: number, random: () => number): void {
  const rule = { ...DEFAULT_DECISION, tasks: tasks.length };
  const draw = (t: SimTask) => {
    t.cand.n += 1;
    if (random() < t.rate) t.cand.passes += 1;
  };
  // The planned round: one repeat of every task (--repeat 1), then rounds of what is undecided.
  for (const t of tasks) draw(t);
  const maxTrials = maxRepeats * tasks.length;
  let added = 0;
  for (;;) {
    for (const t of tasks) if (t.decision === "undecided") t.decision = decideTask(t.base, t.cand, rule);
    const batch = nextRound(tasks, added, maxTrials);
    if (batch.length === 0) break;
    for (const t of batch) draw(t);
    added += batch.length;
  }
}

function emptyTally(): MoveTally {
  return {
    tasks: 0,
    decided: { worse: 0, better: 0, "no change": 0, undecidable: 0, undecided: 0 },
    repeatsToDecision: 0,
    wrongWay: 0,
  };
}

function tallyTask(tally: MoveTally, t: SimTask): void {
  tally.tasks += 1;
  tally.decided[t.decision] += 1;
  if (t.decision === "worse" || t.decision === "better" || t.decision === "no change")
    tally.repeatsToDecision += t.cand.n;
  if ((t.move < 0 && t.decision === "better") || (t.move > 0 && t.decision === "worse")) tally.wrongWay += 1;
}

/** Plays the whole grid; deterministic for a seed. */
export function simulateSequential(options: SimulationOptions): SimulationResult {
  const random = seededRandom(options.seed);
  const byMove = new Map<number, MoveTally>(MOVES.map((m) => [m, emptyTally()]));
  let comparisons = 0;
  let falseAlarms = 0;
  let worstCell = { rate: 0, cell: "none" };
  const unchanged = new Map<string, MoveTally>();
  const worstNoChange = new Map<number, { rate: number; cell: string }>();
  const movedByBase = new Map<string, MoveTally>();
  for (const move of MOVES)
    for (const base of BASE_REPEATS)
      for (const tasks of TASK_COUNTS)
        for (const agent of AGENTS) {
          if (agent === "noisy" && move === 1) continue;
          let cellAlarms = 0;
          const cellMoved = emptyTally();
          const name = `move ${move * 100}, ${base} baseline repeats, ${tasks} tasks, ${agent}`;
          for (let r = 0; r < options.perCell; r++) {
            const played = drawTasks(random, { move, base, tasks, agent });
            playComparison(played, options.maxRepeats, random);
            comparisons += 1;
            const alarm = played.some((t) => t.move === 0 && (t.decision === "worse" || t.decision === "better"));
            if (alarm) cellAlarms += 1;
            for (const t of played) {
              tallyTask(byMove.get(Math.abs(t.move))!, t);
              if (t.move !== 0) tallyTask(cellMoved, t);
              const moved = `${move}, ${base}`;
              if (t.move !== 0)
                tallyTask(movedByBase.get(moved) ?? movedByBase.set(moved, emptyTally()).get(moved)!, t);
              const key = `${agent}, ${base}`;
              if (move === 0) tallyTask(unchanged.get(key) ?? unchanged.set(key, emptyTally()).get(key)!, t);
            }
          }
          const noChange = cellMoved.tasks === 0 ? 0 : cellMoved.decided["no change"] / cellMoved.tasks;
          if (move > 0 && noChange >= (worstNoChange.get(move)?.rate ?? 0))
            worstNoChange.set(move, { rate: noChange, cell: name });
          falseAlarms += cellAlarms;
          const rate = cellAlarms / options.perCell;
          if (rate > worstCell.rate) worstCell = { rate, cell: name };
        }
  return { options, comparisons, falseAlarms, worstCell, byMove, unchanged, worstNoChange, movedByBase };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;

/** The printed report, with PASS/FAIL against the documented claims. */
export function simulationText(r: SimulationResult): { text: string; ok: boolean } {
  const { alpha, beta, detect } = DEFAULT_DECISION;
  const fwer = r.falseAlarms / r.comparisons;
  let ok = fwer <= alpha;
  const lines = [
    `${r.comparisons} simulated comparisons (seed ${r.options.seed}, ${r.options.perCell} per cell, --max-trials ${r.options.maxRepeats} x tasks); alpha ${alpha}, beta ${beta}, d ${detect * 100} points`,
    `family-wise false alarm rate: ${pct(fwer)} (${r.falseAlarms} comparisons; must be <= ${pct(alpha)}) ${fwer <= alpha ? "PASS" : "FAIL"}`,
    `  worst cell: ${pct(r.worstCell.rate)} (${r.worstCell.cell}; ${r.options.perCell} comparisons, sampling noise)`,
    "",
    "move (points)  tasks   worse  better  no change  undecidable  undecided  wrong way  mean repeats to a decision",
  ];
  for (const [move, t] of r.byMove) {
    const share = (k: TaskDecision) => pct(t.decided[k] / t.tasks).padStart(k === "no change" ? 9 : 6);
    const decided = t.decided.worse + t.decided.better + t.decided["no change"];
    const mean = decided === 0 ? "-" : (t.repeatsToDecision / decided).toFixed(1);
    lines.push(
      `${String(move * 100).padStart(13)}  ${String(t.tasks).padStart(5)}  ${share("worse")}  ${share("better")}  ${share("no change")}  ${pct(t.decided.undecidable / t.tasks).padStart(11)}  ${share("undecided").padStart(9)}  ${String(t.wrongWay).padStart(9)}  ${mean}`,
    );
  }
  for (const [move, t] of r.byMove) {
    if (move < detect) continue;
    const rate = t.decided["no change"] / t.tasks;
    const pass = rate <= beta && t.wrongWay === 0;
    ok &&= pass;
    const worst = r.worstNoChange.get(move);
    lines.push(
      `moved ${move * 100} points, called "no change": ${pct(rate)} (must be <= ${pct(beta)}), wrong way ${t.wrongWay} ${pass ? "PASS" : "FAIL"}`,
      `  worst cell: ${pct(worst?.rate ?? 0)} (${worst?.cell ?? "none"})`,
    );
  }
  lines.push("", "moved tasks decided worse or better, by baseline repeats:");
  lines.push(`move (points)  ${BASE_REPEATS.map((b) => `${b} repeats`.padStart(11)).join("")}`);
  for (const move of MOVES.filter((m) => m > 0)) {
    const cells = BASE_REPEATS.map((base) => {
      const t = r.movedByBase.get(`${move}, ${base}`);
      return (t ? pct((t.decided.worse + t.decided.better) / t.tasks) : "-").padStart(11);
    });
    lines.push(`${String(move * 100).padStart(13)}  ${cells.join("")}`);
  }
  lines.push(
    "",
    "unchanged comparisons, by agent and baseline repeats:",
    "agent, baseline   no change  undecidable  undecided  mean repeats to no change",
  );
  for (const [key, t] of r.unchanged) {
    const mean = t.decided["no change"] === 0 ? "-" : (t.repeatsToDecision / t.decided["no change"]).toFixed(1);
    const share = (k: TaskDecision) => pct(t.decided[k] / t.tasks);
    lines.push(
      `${key.padEnd(16)}  ${share("no change").padStart(9)}  ${share("undecidable").padStart(11)}  ${share("undecided").padStart(9)}  ${mean}`,
    );
  }
  return { text: `${lines.join("\n")}\n`, ok };
}

export function parseSimulationArgs(argv: readonly string[]): SimulationOptions {
  const options = { ...(argv.includes("--quick") ? QUICK : FULL) };
  const keys = { "--per-cell": "perCell", "--seed": "seed", "--max-repeats": "maxRepeats" } as const;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === "--quick") continue;
    const key = keys[arg as keyof typeof keys];
    const value = Number(argv[i + 1]);
    if (!key || !Number.isInteger(value) || value < (key === "seed" ? 0 : 1))
      throw new Error(`usage: npm run simulate -- [--quick] [--per-cell N] [--seed N] [--max-repeats N] (at ${arg})`);
    options[key] = value;
    i += 1;
  }
  return options;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const started = Date.now();
  const result = simulateSequential(parseSimulationArgs(process.argv.slice(2)));
  const { text, ok } = simulationText(result);
  process.stdout.write(`${text}(${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  process.exitCode = ok ? 0 : 1;
}
