/**
 * The terminal views of `compare`, `runs` and `show`: pure functions from query results (and a
 * comparison) to text. The commands only fetch, call these and write.
 */
import { cpuLine } from "./run-cpu.js";
import { oneLine } from "../safety/terminal.js";
import type { ActionRecord, CheckRecord, RunRecord, RunSummary, TrialRecord, TurnRecord } from "../store/records.js";
import { isNamedAgent, type TrialSetStats } from "./aggregate.js";
import {
  NOTHING_PAIRED,
  TASK_CHANGED,
  unpairedText,
  type Comparison,
  type PairedAnalysis,
  type TaskCounts,
} from "./compare.js";
import { environmentOf, environmentSummary } from "./environment-diff.js";
import { countedOnceText, howSure, OVER_REPEATS, OVER_TASKS } from "./how-sure.js";
import {
  NONE,
  formatCostPerSuccess,
  formatDelta,
  formatInterval,
  formatMean,
  formatMs,
  formatP,
  formatPercent,
  formatPoints,
  formatScore,
  formatStopMix,
  formatTime,
  formatTokens,
  formatUsd,
  plural,
} from "./format.js";
import { explainDuration } from "./latency.js";
import { runNoteLines, runNotes } from "./run-notes.js";
import {
  INVALID_RATE_HEAD,
  invalidCallRate,
  invalidCallsText,
  invalidRateCell,
  invalidRateLines,
} from "./invalid-calls.js";
import { costPerSuccess, sumCosts } from "./cost.js";
import type { RegressionVerdict } from "./regression.js";
import { SEPARATOR, paint, renderTable, type Cell, type Colour, type Column, type TableStyle } from "./table-layout.js";

// ---------------------------------------------------------------------------------------------
// compare

interface CompareRow {
  task: string;
  group: string;
  stats: TrialSetStats | null;
  summary: boolean;
}

function passesCell(s: TrialSetStats | null, summary: boolean): Cell {
  if (!s || s.trials + s.unfinished === 0) return { text: NONE };
  const colour: Colour | undefined =
    s.n === 0 ? undefined : s.passes === s.n ? "green" : s.passes === 0 ? "red" : "yellow";
  let text = `${s.passes}/${s.n}`;
  if (summary) text += ` ${formatPercent(s.passRate, 0)} (${formatInterval(s.interval)})`;
  if (s.errors > 0) text += ` +${s.errors} err`;
  if (s.unfinished > 0) text += ` +${s.unfinished} unfinished`;
  return { text, colour };
}

const stat = (f: (s: TrialSetStats) => string) => (r: CompareRow) => (r.stats ? f(r.stats) : NONE);

/** The comparison's columns; `invalid/turn` only when some group stored refused calls (invalid-calls.ts). */
function compareColumns(k: number, invalid: boolean): Column<CompareRow>[] {
  const invalidColumn: Column<CompareRow> = {
    head: "invalid/turn",
    priority: 62,
    align: "right",
    cell: (r) => (r.stats ? invalidRateCell(r.stats.invalidCalls) : NONE),
  };
  return [
    { head: "task", priority: 100, cell: (r) => ({ text: r.task, colour: r.summary ? "bold" : undefined }) },
    { head: "group", priority: 99, cell: (r) => ({ text: r.group, colour: "cyan" }) },
    { head: "passes", priority: 98, cell: (r) => passesCell(r.stats, r.summary) },
    { head: `pass@${k}`, priority: 90, align: "right", cell: stat((s) => formatScore(s.passAtK)) },
    { head: `pass^${k}`, priority: 70, align: "right", cell: stat((s) => formatScore(s.passHatK)) },
    {
      head: "mean cost",
      priority: 60,
      align: "right",
      cell: stat((s) => (s.trials === 0 ? NONE : formatUsd(s.meanCostUsd))),
    },
    { head: "cost/success", priority: 95, align: "right", cell: stat((s) => formatCostPerSuccess(s.costPerSuccess)) },
    { head: "p50 wall", priority: 85, align: "right", cell: stat((s) => formatMs(s.wallP50Ms)) },
    { head: "p95 wall", priority: 55, align: "right", cell: stat((s) => formatMs(s.wallP95Ms)) },
    { head: "turns", priority: 65, align: "right", cell: stat((s) => formatMean(s.meanTurns)) },
    { head: "actions", priority: 50, align: "right", cell: stat((s) => formatMean(s.meanActions)) },
    ...(invalid ? [invalidColumn] : []),
    {
      head: "cancelled",
      priority: 45,
      align: "right",
      cell: (r) =>
        r.stats ? { text: String(r.stats.cancelled), colour: r.stats.cancelled > 0 ? "dim" : undefined } : NONE,
    },
    {
      head: "false succ.",
      priority: 80,
      align: "right",
      cell: (r) =>
        r.stats
          ? { text: String(r.stats.falseSuccesses), colour: r.stats.falseSuccesses > 0 ? "red" : undefined }
          : NONE,
    },
    { head: "stop reasons", priority: 40, cell: stat((s) => formatStopMix(s.stopReasons)) },
  ];
}

/** The per-task table of a comparison, with one summary row per group at the bottom. */
export function compareTable(c: Comparison, style: TableStyle): string {
  const rows: (CompareRow | typeof SEPARATOR)[] = [];
  for (const task of c.tasks) {
    c.groups.forEach((g, i) =>
      rows.push({
        task: i === 0 ? task.key : i === 1 && task.changed ? "(task changed)" : "",
        group: g.label,
        stats: task.cells[i],
        summary: false,
      }),
    );
  }
  rows.push(SEPARATOR);
  c.groups.forEach((g, i) =>
    rows.push({ task: i === 0 ? "all tasks" : "", group: g.label, stats: g.summary, summary: true }),
  );
  const changed = c.tasks.filter((t) => t.changed).map((t) => `${t.key}: ${TASK_CHANGED}`);
  const invalid = invalidRateLines(c.groups.map((g) => ({ label: g.label, rate: g.summary.invalidCalls })));
  return [
    renderTable(compareColumns(c.k, invalid.length > 0), rows, style),
    ...changed,
    ...(invalid.length > 0 ? [`${INVALID_RATE_HEAD}:`, ...invalid.map((l) => `  ${l}`)] : []),
  ].join("\n");
}

const ratio = (t: TaskCounts | null) => (t ? `${t.passes}/${t.n}` : NONE);
const list = (keys: readonly string[]) => (keys.length === 0 ? "none" : keys.join(", "));

/** The paired analysis of one candidate group against the base group, as indented lines. */
export function pairedText(p: PairedAnalysis, style: TableStyle): string {
  const label = (s: string) => paint(s.padEnd(11), "dim", style.color);
  const ci = p.diffInterval
    ? `; ${OVER_TASKS}: 95% bootstrap CI over tasks ${formatPoints(p.diffInterval.low)} to ${formatPoints(p.diffInterval.high)}`
    : "";
  const sig = p.pValue < 0.05 ? paint("significant at 0.05", "yellow", style.color) : "not significant at 0.05";
  const d = p.deltas;
  return [
    `${paint(`${p.candidate} vs ${p.base}`, "bold", style.color)}: ${plural(p.tasks, "paired task")}, ${plural(p.trialPairs, "paired repeat")}`,
    ...(p.tasks === 0
      ? [`  ${label("paired")} ${paint(NOTHING_PAIRED, "yellow", style.color)}`]
      : [
          `  ${label("pass rate")} ${formatPercent(p.basePassRate)} -> ${formatPercent(p.candidatePassRate)} (${formatPoints(p.diff)}${ci})`,
          `  ${label("McNemar")} ${OVER_REPEATS}: ${p.onlyBasePassed} passed only in ${p.base}, ${p.onlyCandidatePassed} only in ${p.candidate}${countedOnceText(p)}: exact p ${formatP(p.pValue)}, ${sig}`,
        ]),
    ...(howSure(p) ? [`  ${label("how sure")} ${howSure(p)}`] : []),
    ...(unpairedText(p) ? [`  ${label("unpaired")} ${unpairedText(p)}`] : []),
    `  ${label("flipped")} pass -> fail: ${paint(list(p.flippedToFail), p.flippedToFail.length ? "red" : undefined, style.color)}; fail -> pass: ${paint(list(p.flippedToPass), p.flippedToPass.length ? "green" : undefined, style.color)}`,
    `  ${label("flaky")} ${p.flaky.length === 0 ? "none" : p.flaky.map((f) => `${f.key} (${p.base} ${ratio(f.base)}, ${p.candidate} ${ratio(f.candidate)})`).join("; ")}`,
    ...(p.changedTasks.length > 0
      ? [
          `  ${label("changed")} ${paint(p.changedTasks.join(", "), "yellow", style.color)}: ${TASK_CHANGED}; ${p.changedTasksIncluded ? "paired anyway (--include-changed-tasks)" : "left out of this analysis and the regression gate (--include-changed-tasks counts them)"}`,
        ]
      : []),
    ...(p.changedAgents.length > 0
      ? [
          `  ${label("agent")} ${paint(p.changedAgents.join(", "), "yellow", style.color)} changed: the change under test, its pairs counted`,
        ]
      : []),
    `  ${label("deltas")} mean cost ${formatDelta(d.meanCostPct)}, cost/success ${formatDelta(d.costPerSuccessPct)}, p50 wall ${formatDelta(d.wallP50Pct)}, p95 wall ${formatDelta(d.wallP95Pct)}, turns ${formatDelta(d.meanTurnsPct)}, actions ${formatDelta(d.meanActionsPct)}`,
  ].join("\n");
}

/** The gate's verdict: one headline, then its reasons and notes. */
export function regressionText(v: RegressionVerdict, style: TableStyle): string {
  const head = v.regressed ? paint("REGRESSION", "red", style.color) : paint("no regression", "green", style.color);
  return [head, ...v.reasons.map((r) => `  - ${r}`), ...v.notes.map((n) => `  note: ${n}`), `  basis: ${v.basis}`].join(
    "\n",
  );
}

/** Everything `umpire compare` prints on a terminal. */
export function compareText(c: Comparison, style: TableStyle, verdict?: RegressionVerdict): string {
  const parts = [compareTable(c, style), ...c.paired.map((p) => pairedText(p, style))];
  if (verdict) parts.push(regressionText(verdict, style));
  return `${parts.join("\n\n")}\n`;
}

// ---------------------------------------------------------------------------------------------
// runs

/** `umpire runs`: one row per stored run, newest first. */
export function runsTable(runs: readonly RunSummary[], style: TableStyle): string {
  if (runs.length === 0) return "no runs stored yet: `umpire run` makes one\n";
  const statusColour = (s: string): Colour | undefined =>
    s === "finished" ? "green" : s === "interrupted" ? "yellow" : "cyan";
  const columns: Column<RunSummary>[] = [
    { head: "run", priority: 100, cell: (r) => r.id },
    { head: "started (UTC)", priority: 60, cell: (r) => formatTime(r.startedAt) },
    { head: "status", priority: 90, cell: (r) => ({ text: r.status, colour: statusColour(r.status) }) },
    { head: "tags", priority: 50, cell: (r) => (r.tags.length ? r.tags.join(", ") : NONE) },
    {
      head: "trials",
      priority: 80,
      align: "right",
      cell: (r) => (r.done === r.trials ? String(r.trials) : `${r.done}/${r.trials}`),
    },
    {
      head: "passed",
      priority: 95,
      align: "right",
      cell: (r) => ({ text: String(r.passed), colour: r.passed === r.done && r.done > 0 ? "green" : undefined }),
    },
    {
      head: "failed",
      priority: 85,
      align: "right",
      cell: (r) => ({ text: String(r.failed), colour: r.failed > 0 ? "red" : undefined }),
    },
    {
      head: "errors",
      priority: 70,
      align: "right",
      cell: (r) => ({ text: String(r.errors), colour: r.errors > 0 ? "yellow" : undefined }),
    },
    {
      head: "cancelled",
      priority: 68,
      align: "right",
      cell: (r) => ({ text: String(r.cancelled), colour: r.cancelled > 0 ? "yellow" : undefined }),
    },
    { head: "cost", priority: 75, align: "right", cell: (r) => formatUsd(r.costUsd) },
    { head: "models", priority: 40, cell: (r) => r.models.join(", ") || NONE },
    { head: "modes", priority: 45, cell: (r) => r.modes.join(", ") || NONE },
  ];
  return `${renderTable(columns, runs, style)}\n`;
}

// ---------------------------------------------------------------------------------------------
// show

export interface TrialDetail {
  /** `costUsd` is the cost to show (see `reportedCost`). */
  trial: TrialRecord;
  checks: readonly Pick<CheckRecord, "kind" | "name" | "required" | "pass" | "confidence" | "reason">[];
  /** With `show --turns`: the trial's turns and actions (current attempt). */
  turns?: readonly TurnRecord[];
  actions?: readonly ActionRecord[];
}

/**
 * Per turn: outcome, model time (and time to first token), tokens and cost; under it each action
 * with its status, executor time and message.
 */
export function turnLines(turns: readonly TurnRecord[], actions: readonly ActionRecord[], style: TableStyle): string[] {
  const lines: string[] = [];
  for (const turn of turns) {
    const usage = turn.usage
      ? `${formatTokens(turn.usage.inputTokens)} in / ${formatTokens(turn.usage.outputTokens)} out`
      : "tokens unknown";
    const ttft = turn.ttftMs !== null ? ` (first token ${formatMs(turn.ttftMs)})` : "";
    const retries = turn.retries > 0 ? `, ${turn.retries} retries` : "";
    const flags = Object.keys(turn.flags).length > 0 ? `, flags ${JSON.stringify(turn.flags)}` : "";
    lines.push(
      `   turn ${turn.idx}: ${turn.outcome}, model ${formatMs(turn.modelMs)}${ttft}${retries}, ${usage}, cost ${formatUsd(turn.costUsd)}${flags}`,
    );
    if (turn.note) lines.push(`      note: ${oneLine(turn.note)}`);
    for (const a of actions.filter((x) => x.turnIdx === turn.idx)) {
      const colour: Colour | undefined = a.status === "success" ? undefined : a.status === "skipped" ? "dim" : "yellow";
      lines.push(
        `      ${a.tool} ${paint(a.status, colour, style.color)} ${formatMs(a.executorMs)}: ${oneLine(a.message)}`,
      );
    }
  }
  return lines;
}

const verdictColour = (v: string | null): Colour | undefined =>
  v === "passed" ? "green" : v === "failed" ? "red" : v === "error" ? "yellow" : v === "cancelled" ? "dim" : undefined;
const yesNo = (b: boolean | null) => (b === null ? NONE : b ? "yes" : "no");

function tokensCell(t: TrialRecord): string {
  if (t.inputTokens === null || t.outputTokens === null) return "unknown";
  return `${formatTokens(t.inputTokens)} / ${formatTokens(t.outputTokens)}`;
}

const scalar = (v: unknown) => (v !== null && typeof v === "object" ? JSON.stringify(v) : String(v));

/**
 * Loop metrics as lines: flat values on one `metrics:` line, each nested object on its own line
 * (`repetition: stuckSteps 0, reflections 1, recoveries 1`), lists joined; empty lists skipped.
 */
export function metricLines(metrics: Record<string, unknown>): string[] {
  const flat: string[] = [];
  const lines: string[] = [];
  for (const [key, value] of Object.entries(metrics)) {
    if (Array.isArray(value)) {
      if (value.length > 0) lines.push(`   ${key}: ${value.map(scalar).join("; ")}`);
    } else if (value !== null && typeof value === "object") {
      const inner = Object.entries(value as Record<string, unknown>).map(([k, v]) => `${k} ${scalar(v)}`);
      if (inner.length > 0) lines.push(`   ${key}: ${inner.join(", ")}`);
    } else flat.push(`${key} ${scalar(value)}`);
  }
  return flat.length > 0 ? [`   metrics: ${flat.join(", ")}`, ...lines] : lines;
}

/** A trial's time per step of umpire's loop: the model's turn and the harness's part (executor + capture); null without turns. */
function perStep(t: TrialRecord): string | null {
  if (t.turns <= 0) return null;
  const model = (t.modelMs ?? 0) / t.turns;
  const harness = ((t.executorMs ?? 0) + (t.captureMs ?? 0)) / t.turns;
  return `${formatMs(model + harness)} = model ${formatMs(model)} + executor and capture ${formatMs(harness)}`;
}

/**
 * Per agent of a run (a named agent by its name: two of one model and mode are two): its passes, cost per success and time per step (over its
 * trials' turns), as on any suite; a benchmark pack's run reads the same. Then the calls umpire refused,
 * by kind, when there were any (invalid-calls.ts).
 */
export function agentSummaryLines(details: readonly TrialDetail[]): string[] {
  const groups = new Map<string, TrialRecord[]>();
  for (const { trial } of details) groups.set(trial.agentLabel, [...(groups.get(trial.agentLabel) ?? []), trial]);
  return [...groups].map(([agent, trials]) => {
    // An unnamed agent is its model and mode; a named one is its name (two may share both).
    const { model, mode } = trials[0]!;
    const key = isNamedAgent(trials[0]!) ? `${agent} (${model} · ${mode})` : `${model} · ${mode}`;
    const passed = trials.filter((t) => t.verdict === "passed").length;
    const cost = formatCostPerSuccess(costPerSuccess(sumCosts(trials.map((t) => t.costUsd)), passed));
    const turns = trials.reduce((n, t) => n + t.turns, 0);
    const step =
      turns > 0
        ? formatMs(trials.reduce((n, t) => n + (t.modelMs ?? 0) + (t.executorMs ?? 0) + (t.captureMs ?? 0), 0) / turns)
        : "no turns of umpire's loop";
    const refused = invalidCallsText(invalidCallRate(trials) ?? undefined);
    return `${key}: ${passed}/${trials.length} passed, cost per success ${cost}, time per step ${step}${refused ? `; ${refused}` : ""}`;
  });
}

/** One trial's detail lines: stop detail, tokens, timing breakdown, metrics, every check. */
export function trialDetailText(d: TrialDetail, style: TableStyle): string {
  const t = d.trial;
  const head = `${paint(`#${t.seq}`, "dim", style.color)} ${oneLine(t.taskId)} · ${t.mode} · ${oneLine(t.model)} · repeat ${t.repeat}: ${paint(t.verdict ?? t.status, verdictColour(t.verdict), style.color)}${t.rejudgedAt ? " (re-judged)" : ""}`;
  const lines = [head];
  if (t.stopReason)
    lines.push(
      `   stop: ${t.stopReason}${t.stopDetail ? `: ${oneLine(t.stopDetail)}` : ""}; claimed ${yesNo(t.claimed)}, verified ${yesNo(t.verified)}${t.retried ? "; retried after an infrastructure error" : ""}`,
    );
  if (t.sandbox === "none")
    lines.push(
      `   sandbox: ${paint("none", "yellow", style.color)} (the agent's code ran with this user's files, processes and network; its storage and workspace checks did not decide)`,
    );
  else if (t.sandbox) lines.push(`   sandbox: ${t.sandbox}`);
  if (t.inputTokens !== null) {
    lines.push(
      `   tokens: ${formatTokens(t.inputTokens)} in (${formatTokens(t.cachedTokens ?? 0)} cached), ${formatTokens(t.outputTokens)} out (${formatTokens(t.reasoningTokens ?? 0)} reasoning); cost ${formatUsd(t.costUsd)}`,
    );
  } else if (t.status === "done") lines.push(`   tokens: unknown; cost ${formatUsd(t.costUsd)}`);
  if (t.wallMs !== null) {
    const e = explainDuration(t.wallMs, {
      modelMs: t.modelMs ?? 0,
      executorMs: t.executorMs ?? 0,
      captureMs: t.captureMs ?? 0,
      checkMs: t.checkMs ?? 0,
    });
    lines.push(
      `   time: wall ${formatMs(e.wallMs)} = model ${formatMs(e.modelMs)} + executor ${formatMs(e.executorMs)} + capture ${formatMs(e.captureMs)} + checks ${formatMs(e.checkMs)} + other ${formatMs(Math.max(0, e.otherMs))}${t.ttftMsAvg !== null ? `; mean time to first token ${formatMs(t.ttftMsAvg)}` : ""}`,
    );
    const step = perStep(t);
    if (step) lines.push(`   per step (${t.turns} turns): ${step}`);
  }
  lines.push(...metricLines(t.metrics));
  if (t.error) lines.push(`   error: ${paint(oneLine(t.error), "yellow", style.color)}`);
  for (const c of d.checks) {
    const mark = c.pass ? paint("pass", "green", style.color) : paint("FAIL", "red", style.color);
    lines.push(
      `   ${mark} ${c.kind} "${c.name}" (${c.required ? "required" : "advisory"}, ${c.confidence}): ${oneLine(c.reason)}`,
    );
  }
  if (d.turns) lines.push(...turnLines(d.turns, d.actions ?? [], style));
  return lines.join("\n");
}

/** `umpire show <run>`: the run's header, a table of its trials, then each trial's detail. */
export function showText(run: RunRecord, details: readonly TrialDetail[], style: TableStyle): string {
  const header = [
    `run ${paint(run.id, "bold", style.color)}: ${run.status}, started ${formatTime(run.startedAt)}${run.endedAt ? `, ended ${formatTime(run.endedAt)}` : ""} UTC${run.tags.length ? `, tags ${run.tags.join(", ")}` : ""}, umpire ${run.umpireVersion}`,
    `${paint("environment", "dim", style.color)}: ${environmentSummary(environmentOf(run))}`,
    ...runNoteLines(runNotes(run)).map(oneLine),
  ].join("\n");
  const columns: Column<TrialDetail>[] = [
    { head: "#", priority: 60, align: "right", cell: (d) => String(d.trial.seq) },
    { head: "task", priority: 100, cell: (d) => d.trial.taskId },
    { head: "model", priority: 96, cell: (d) => d.trial.model },
    { head: "mode", priority: 98, cell: (d) => ({ text: d.trial.mode, colour: "cyan" }) },
    { head: "rep", priority: 55, align: "right", cell: (d) => String(d.trial.repeat) },
    {
      head: "verdict",
      priority: 99,
      cell: (d) => ({
        text: `${d.trial.verdict ?? d.trial.status}${d.trial.rejudgedAt ? " (re-judged)" : ""}`,
        colour: verdictColour(d.trial.verdict),
      }),
    },
    { head: "stop reason", priority: 97, cell: (d) => d.trial.stopReason ?? NONE },
    { head: "claimed", priority: 70, cell: (d) => yesNo(d.trial.claimed) },
    { head: "verified", priority: 75, cell: (d) => yesNo(d.trial.verified) },
    { head: "turns", priority: 80, align: "right", cell: (d) => String(d.trial.turns) },
    { head: "actions", priority: 78, align: "right", cell: (d) => String(d.trial.actions) },
    { head: "tokens in/out", priority: 50, align: "right", cell: (d) => tokensCell(d.trial) },
    {
      head: "cost",
      priority: 85,
      align: "right",
      cell: (d) => (d.trial.status === "done" ? formatUsd(d.trial.costUsd) : NONE),
    },
    { head: "wall", priority: 90, align: "right", cell: (d) => formatMs(d.trial.wallMs) },
  ];
  const table = details.length > 0 ? renderTable(columns, details, style) : "(no trials)";
  const agents = [...agentSummaryLines(details), ...(details.length > 0 ? [cpuLine(run)] : [])].join("\n");
  return `${header}\n${table}\n${agents ? `${agents}\n` : ""}\n${details.map((d) => trialDetailText(d, style)).join("\n\n")}\n`;
}
