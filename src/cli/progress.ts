/**
 * What a run shows while it happens (the `list` and `dot` reporters), on stderr so stdout stays
 * the summary's (or a JSON/JUnit/Markdown reporter's):
 * - on a terminal (and no `CI`): a live view redrawn in place, refreshed on every turn and every
 *   second, with each trial in flight (task, agent, turn k of its limit, the last action and its
 *   result, elapsed) under one progress line with an estimate of the time left; each finished
 *   trial's line is printed above it and stays;
 * - piped or under `CI`: one line per finished trial, plus a heartbeat naming the trials in flight
 *   whenever nothing was printed for `heartbeatMs` (CI systems kill jobs that go quiet, and a
 *   person reading a log wants to know what is still running);
 * - `dot`: one character per finished trial.
 * Timers are unref'd and cleared at the run's end: a view never keeps the process alive.
 */
import type { PlayedTurn as TurnRecord } from "../runner/trial/loop.js";
import { oneLine } from "../safety/terminal.js";
import type { PlannedTrial } from "../runner/schedule/trial-plan.js";
import type { RunHooks, TrialEnd } from "../runner/schedule/run-hooks.js";

export type ProgressStream = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

export interface ProgressOptions {
  /** The longest quiet stretch of the line view before a heartbeat (30 s; tests shorten it). */
  heartbeatMs?: number;
  /** How often the live view redraws when no turn happens (1 s). */
  refreshMs?: number;
  now?: () => number;
}

/** Whether to draw the live view: a terminal, and not a CI log that merely looks like one. */
export function isLiveTerminal(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  const ci = env.CI !== undefined && env.CI !== "" && env.CI !== "0" && env.CI.toLowerCase() !== "false";
  return Boolean(stream.isTTY) && !ci;
}

/** The verdict's word in a line; a verdict added later still prints (as itself, upper case). */
const mark = (verdict: string) =>
  ({ passed: "PASS", failed: "FAIL", error: "ERROR" })[verdict] ?? verdict.toUpperCase();

const DOTS: Record<string, string> = { passed: ".", failed: "F", error: "E", cancelled: "C" };

/** Model and page text (stop lines, action messages) is untrusted: one line, controls shown as escapes. */
const plain = oneLine;

const who = (trial: PlannedTrial) => `${plain(trial.task.id)} [${plain(trial.agent.label)} #${trial.repeat}]`;

/** One finished trial, the same line on a terminal and in a log. */
export function trialLine(end: TrialEnd): string {
  return `${mark(end.verdict).padEnd(5)} ${who(end.trial)} ${end.stopReason}: ${plain(end.stopLine)} (${end.turns} turns, ${(end.wallMs / 1000).toFixed(1)} s${end.retried ? ", retried" : ""})`;
}

/** `75 s` -> `1m15s`; whole seconds are enough for a person watching. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m${String(s % 60).padStart(2, "0")}s`;
  return `${Math.floor(m / 60)}h${String(m % 60).padStart(2, "0")}m`;
}

interface InFlight {
  trial: PlannedTrial;
  startedAt: number;
  turn: number;
  last: string | null;
}

/** The state both views share: counts, trials in flight and their last step. */
class RunState {
  total = 0;
  done = 0;
  notPassed = 0;
  runId = "";
  started: number;
  readonly inFlight = new Map<string, InFlight>();
  constructor(private readonly now: () => number) {
    this.started = now();
  }
  begin(trial: PlannedTrial) {
    this.inFlight.set(trial.id, { trial, startedAt: this.now(), turn: 0, last: null });
  }
  step(trial: PlannedTrial, turn: TurnRecord) {
    const f = this.inFlight.get(trial.id);
    if (!f) return;
    f.turn = turn.idx + 1;
    const action = turn.actions.at(-1);
    f.last = action
      ? `${action.tool} -> ${action.status}${action.message ? `: ${plain(action.message)}` : ""}`
      : `model: ${turn.outcome}`;
  }
  end(end: TrialEnd) {
    this.inFlight.delete(end.trial.id);
    this.done += 1;
    if (end.verdict !== "passed") this.notPassed += 1;
  }
  /** Time left from the run's own pace so far (it already reflects the concurrency). */
  eta(): string {
    if (this.done === 0) return "estimating time left";
    if (this.done >= this.total) return "done";
    const left = ((this.now() - this.started) / this.done) * (this.total - this.done);
    return `about ${duration(left)} left`;
  }
  summary(): string {
    return `${this.done}/${this.total} done, ${this.notPassed} not passed, ${this.inFlight.size} running, ${duration(this.now() - this.started)} elapsed, ${this.eta()}`;
  }
  flightLine(f: InFlight): string {
    return `${who(f.trial)} turn ${f.turn}/${f.trial.task.limits.turns}${f.last ? `, ${f.last}` : ""}, ${duration(this.now() - f.startedAt)}`;
  }
}

function fit(line: string, columns: number): string {
  return line.length <= columns ? line : `${line.slice(0, Math.max(0, columns - 1))}…`;
}

/** The terminal view: finished lines scroll up, the block of trials in flight is redrawn below them. */
export function createLiveView(stream: ProgressStream, options: ProgressOptions = {}): RunHooks {
  const state = new RunState(options.now ?? Date.now);
  let drawn = 0;
  let timer: NodeJS.Timeout | undefined;
  const columns = () => Math.max(40, (stream.columns ?? 100) - 1);
  const erase = () => {
    // To the start of the block's first line, then clear everything below.
    if (drawn > 0) stream.write(`\x1b[${drawn}F\x1b[J`);
    drawn = 0;
  };
  const draw = () => {
    const width = columns();
    const lines = [
      `umpire: ${state.summary()}`,
      ...[...state.inFlight.values()].map((f) => `  ${state.flightLine(f)}`),
    ].map((l) => fit(l, width));
    erase();
    stream.write(`${lines.join("\n")}\n`);
    drawn = lines.length;
  };
  return {
    onRunBegin(info) {
      state.total = info.trials.length;
      state.runId = info.runId;
      stream.write(`umpire: run ${info.runId}: ${state.total} trials\n`);
      draw();
      timer = setInterval(draw, options.refreshMs ?? 1000);
      timer.unref();
    },
    onTrialBegin(trial) {
      state.begin(trial);
      draw();
    },
    onStep(trial, turn) {
      state.step(trial, turn);
      draw();
    },
    onTrialEnd(end) {
      state.end(end);
      erase();
      stream.write(`${fit(trialLine(end), columns())}\n`);
      draw();
    },
    onRunEnd() {
      clearInterval(timer);
      draw();
    },
  };
}

/** The log view: a line per finished trial, and a heartbeat when the log would otherwise go quiet. */
export function createLineProgress(stream: ProgressStream, options: ProgressOptions = {}): RunHooks {
  const now = options.now ?? Date.now;
  const state = new RunState(now);
  const heartbeatMs = options.heartbeatMs ?? 30_000;
  let lastWrite = now();
  let timer: NodeJS.Timeout | undefined;
  const write = (line: string) => {
    stream.write(`${line}\n`);
    lastWrite = now();
  };
  const beat = () => {
    if (state.inFlight.size === 0 || now() - lastWrite < heartbeatMs) return;
    const flights = [...state.inFlight.values()].map((f) => state.flightLine(f)).join("; ");
    write(
      `[${state.done}/${state.total}] still running: ${flights} (${duration(now() - state.started)} elapsed, ${state.eta()})`,
    );
  };
  return {
    onRunBegin(info) {
      state.total = info.trials.length;
      write(`umpire: run ${info.runId}: ${state.total} trials`);
      // Checked often enough that the gap never runs much past heartbeatMs.
      timer = setInterval(beat, Math.max(50, Math.min(1000, heartbeatMs / 4)));
      timer.unref();
    },
    onTrialBegin: (trial) => state.begin(trial),
    onStep: (trial, turn) => state.step(trial, turn),
    onTrialEnd(end) {
      state.end(end);
      write(`[${state.done}/${state.total}] ${trialLine(end)}`);
    },
    onRunEnd: () => clearInterval(timer),
  };
}

/** A stored run's verdicts as the dot reporter draws them (`umpire show --reporter dot`); `-` for not run. */
export function dotLine(verdicts: readonly (string | null)[]): string {
  return verdicts
    .map((v) => (v === null ? "-" : (DOTS[v] ?? "?")))
    .join("")
    .replace(/(.{80})(?=.)/g, "$1\n");
}

/** `dot`: one character per finished trial (. passed, F failed, E error, C cancelled), 80 to a line. */
export function createDotProgress(stream: ProgressStream): RunHooks {
  let count = 0;
  return {
    onTrialEnd(end) {
      count += 1;
      stream.write(`${DOTS[end.verdict] ?? "?"}${count % 80 === 0 ? "\n" : ""}`);
    },
    onRunEnd() {
      if (count % 80 !== 0) stream.write("\n");
    },
  };
}
