/**
 * `umpire validate --self-test`: proves each task sound on the reference model. A task is sound
 * when its gold trajectory passes in every protocol chosen that can play it, an agent that answers
 * "Done." at once fails, and every declared negative (a known-wrong trajectory) is played as written and
 * fails on a required check (each check its `failsOn` names among them). A probe the model could not play
 * as written proves nothing ("not exercised"); a protocol that cannot offer a tool the gold needs is "not
 * playable" there, neither sound nor unsound. Each required check should fail in some probe (check
 * coverage): one that never does may be unable to fail. The trials are stored as a run tagged
 * `self-test` (`self-test-run.ts`), so `show`, `report` and the HTML view work on them.
 */
import { closeSelfTestRun, openSelfTestRun, probeBatch, selfTestStatus, startSelfTestRun } from "./self-test-run.js";
import { resolveAgentConfigs, type AgentConfig } from "../agent/config.js";
import { renderTable, type TableStyle } from "../report/table-layout.js";
import { describeConcurrency, type EndpointReport } from "../runner/schedule/concurrency-gate.js";
import type { PlannedTrial } from "../runner/schedule/trial-plan.js";
import { HOLO_MODES, newRunId, trialId, type OutputMode } from "../vocabulary.js";
import type { TrialEnd } from "../runner/schedule/run-hooks.js";
import type { ObservedHook } from "../runner/trial/trial.js";
import type { RequestRecord } from "../sim/log.js";
import type { Store } from "../store/store.js";
import type { Task } from "../task/schema.js";
import type { ProjectTargets } from "../config/project.js";
import { judgeExercise } from "./probe-exercise.js";
import { AT_ONCE_PROBES, blameCarriedState, blameInterference, INTERFERENCE, type ProbeRun } from "./probe-causes.js";
import { coverageLine, judgeProbe, uncoveredChecks, type CoverageGap, type ProbeFacts } from "./probe-judgement.js";
import { executeTrials } from "../runtime/suite-runtime.js";

import {
  isHoloMode,
  notPlayableIn,
  notPlayableLine,
  probesFor,
  runsAtOnce,
  type NotPlayable,
  type Probe,
  type ProbeResult,
} from "./probes.js";

export interface SelfTestOptions {
  tasks: Task[];
  /** The project's config file (its targets); default only the fixture. */
  config?: ProjectTargets;
  /** Where the run is stored (the results database) and where its trial folders go. */
  store: Store;
  outDir: string;
  concurrency: number;
  signal: AbortSignal;
  env: NodeJS.ProcessEnv;
  /** Told of each trial's end, with the probe it played (the at-once pair's are named apart from the gold's). */
  onTrialEnd?: (end: TrialEnd, probe: string) => void;
  /** The probes to play per task (default all of probesFor in `protocols`: `umpire try` plays one). */
  probes?: (task: Task) => Probe[];
  /** The protocols gold is played in (default Holo's two; probesFor says what else each adds). */
  protocols?: readonly OutputMode[];
  /** Told of what the run goes on despite (a target's readyUrl answered 4xx). */
  onNotice?: (message: string) => void;
  /** Told of each observation's page (`umpire try` lists the controls of every step's page). */
  onObserved?: ObservedHook;
}

export interface SelfTestOutcome {
  runId: string;
  results: ProbeResult[];
  /**
   * The task/protocol pairs not played: the task's gold needs tools the protocol cannot offer. Neither
   * unsound nor a failure (the task is sound where it can be played); said, and in the JSON.
   */
  notPlayable: NotPlayable[];
  /** Required checks no probe failed: each may be unable to fail. */
  uncovered: CoverageGap[];
  /** How many trials ran at once and what the machine's CPU did meanwhile (the run summary's report). */
  concurrency: EndpointReport[];
  /** The run was stopped (Ctrl-C) before every probe ran. */
  interrupted: boolean;
  /** The reference model's log records of a trial: the step each turn played, the mark it missed. */
  records: (trialId: string) => RequestRecord[];
}

interface Planned {
  trials: PlannedTrial[];
  configs: AgentConfig[];
  probes: Map<string, { task: Task; probe: Probe }>;
}

function planProbes(
  runId: string,
  tasks: readonly Task[],
  env: NodeJS.ProcessEnv,
  probesOf: (task: Task) => Probe[],
  config?: ProjectTargets,
): Planned & { pairs: PlannedTrial[][] } {
  const configs = new Map<string, AgentConfig>();
  const trials: PlannedTrial[] = [];
  const probes = new Map<string, { task: Task; probe: Probe }>();
  for (const task of [...tasks].sort((a, b) => a.id.localeCompare(b.id))) {
    for (const probe of probesOf(task)) {
      const [config] = resolveAgentConfigs({ model: probe.model, mode: probe.mode, env });
      configs.set(config!.label, config!);
      const seq = trials.length;
      const trial: PlannedTrial = { id: trialId(runId, seq), seq, task, agent: config!, repeat: 0 };
      trials.push(trial);
      probes.set(trial.id, { task, probe });
    }
  }
  // Each pair is run alone, after the rest, so its two trials start at the same moment.
  const pairs: PlannedTrial[][] = [];
  for (const task of [...tasks].sort((a, b) => a.id.localeCompare(b.id)).filter((t) => runsAtOnce(t, config))) {
    const [config] = resolveAgentConfigs({ model: "reference", mode: "structured", env });
    pairs.push(
      AT_ONCE_PROBES.map((name) => {
        const seq = trials.length + pairs.length * 2 + (name.endsWith("2") ? 1 : 0);
        const trial: PlannedTrial = { id: trialId(runId, seq), seq, task, agent: config!, repeat: 0 };
        const probe: Probe = {
          name,
          model: "reference",
          mode: "structured",
          expect: "passed",
          trajectory: "reference",
        };
        probes.set(trial.id, { task, probe });
        return trial;
      }),
    );
  }
  return { trials, configs: [...configs.values()], probes, pairs };
}

export async function runSelfTest(options: SelfTestOptions): Promise<SelfTestOutcome> {
  const runId = `selftest-${newRunId()}`;
  // `umpire try` names its own probes: it plays them once, without the at-once pairs.
  const probesOf = options.probes ?? ((task: Task) => probesFor(task, options.protocols));
  const { trials, configs, probes, pairs } = planProbes(
    runId,
    options.tasks,
    options.env,
    probesOf,
    options.probes ? undefined : options.config,
  );
  const { store } = options;
  const run = await startSelfTestRun(runId, options, { agents: configs, config: options.config }, 2);
  const { runtime } = run;
  let status: "finished" | "interrupted" = "interrupted";
  try {
    const stored = {
      selfTest: true,
      paths: options.tasks.map((t) => t.file),
      concurrency: { mode: "pinned" as const, trials: options.concurrency },
    };
    await openSelfTestRun(run, options.tasks, [...trials, ...pairs.flat()], stored);
    const execute = (batch: PlannedTrial[], concurrency: number) =>
      executeTrials({
        ...probeBatch(run, batch, concurrency),
        reporters: options.onTrialEnd
          ? [{ onTrialEnd: (end: TrialEnd) => options.onTrialEnd!(end, probes.get(end.trial.id)?.probe.name ?? "") }]
          : [],
        ...(options.onObserved ? { onObserved: options.onObserved } : {}),
      });
    const executed = await execute(trials, options.concurrency);
    const ends = [...executed.ends];
    for (const pair of pairs) {
      if (options.signal.aborted) break;
      ends.push(...(await execute(pair, 2)).ends);
    }
    status = selfTestStatus(run, executed);
    const log = runtime.model?.log;
    const records = (id: string) => log?.forUser(id) ?? [];
    const judged = judgeAll(ends, probes, store, records);
    // Causes in another probe: a target with no per-trial reset, two trials at once (probe-causes.ts).
    const results = blameInterference(blameCarriedState(judged, options.config));
    const uncovered = coverageOf(results, store);
    return {
      runId,
      results,
      notPlayable: options.probes ? [] : notPlayableIn(options.tasks, options.protocols ?? HOLO_MODES),
      uncovered,
      concurrency: executed.concurrency,
      interrupted: status === "interrupted",
      records,
    };
  } finally {
    await closeSelfTestRun(run, status);
  }
}

/** The negative's name of a `negative:<name>` probe, else null. */
function negativeName(probe: Probe): string | null {
  return probe.trajectory?.startsWith("negatives.") ? probe.trajectory.slice("negatives.".length) : null;
}

/** The steps a probe plays: gold, its negative's, or none (answer-now). */
function stepsOf(task: Task, probe: Probe): Task["reference"] | null {
  if (probe.trajectory === null) return null;
  const negative = negativeName(probe);
  return negative === null ? task.reference : (task.negatives[negative] ?? null);
}

/** Every probe judged: its own facts, plus the marks its task's other probes played. */
function judgeAll(
  ends: readonly TrialEnd[],
  probes: Map<string, { task: Task; probe: Probe }>,
  store: Store,
  recordsOf: (trialId: string) => RequestRecord[],
): (ProbeResult & ProbeRun)[] {
  const gathered = ends.map((end) => {
    const { task, probe } = probes.get(end.trial.id)!;
    const stored = store.trial(end.trial.id);
    const actions = store.actions(end.trial.id);
    const steps = stepsOf(task, probe);
    const exercise = steps
      ? judgeExercise({
          trajectory: probe.trajectory!,
          steps,
          records: recordsOf(end.trial.id),
          actions,
          stopReason: end.stopReason,
          stopDetail: stored?.stopDetail ?? "",
        })
      : null;
    return { end, task, probe, stored, actions, exercise };
  });
  return gathered.map(({ end, task, probe, stored, actions, exercise }) => {
    const others = gathered.filter((g) => g.task === task && g.end !== end);
    const marksFoundElsewhere = new Set(others.flatMap((g) => g.exercise?.marksPlayed ?? []));
    const reflections = ((stored?.metrics.repetition ?? {}) as { reflections?: number }).reflections ?? 0;
    const facts: ProbeFacts = {
      expect: probe.expect,
      verdict: end.verdict,
      stopReason: end.stopReason,
      stopDetail: stored?.stopDetail ?? "",
      error: stored?.error ?? null,
      reflections,
      checks: store.checks(end.trial.id),
      exercise,
      failsOn: negativeName(probe) ? (task.negativeFailsOn?.[negativeName(probe)!] ?? []) : [],
      actionMessages: actions.map((a) => a.message),
      marksFoundElsewhere,
    };
    const judged = judgeProbe(facts);
    return {
      task: task.id,
      protocol: probe.mode,
      probe,
      trialId: end.trial.id,
      verdict: end.verdict,
      stopReason: end.stopReason,
      stopLine: end.stopLine,
      reflections,
      exercised: judged.exercised,
      failedChecks: judged.failedChecks,
      reasons: judged.reasons,
      clockWait: judged.clockWait,
      ok: judged.ok,
      target: task.target,
      startedAt: stored?.startedAt ?? null,
      endedAt: stored?.endedAt ?? null,
      playedClean: judged.exercised && lastAttemptOf(actions).every((a) => a.status === "success"),
    };
  });
}

/** The actions of a trial's last attempt (a retried trial keeps its earlier ones). */
function lastAttemptOf<A extends { attempt: number }>(actions: readonly A[]): A[] {
  const last = Math.max(0, ...actions.map((a) => a.attempt));
  return actions.filter((a) => a.attempt === last);
}

function coverageOf(results: readonly ProbeResult[], store: Store): CoverageGap[] {
  const tasks = [...new Set(results.map((r) => r.task))];
  return tasks.flatMap((task) =>
    uncoveredChecks(
      task,
      results
        .filter((r) => r.task === task && r.verdict !== "error" && r.verdict !== "cancelled")
        .map((r) => ({ expect: r.probe.expect, exercised: r.exercised, checks: store.checks(r.trialId) })),
    ),
  );
}

/** A task whose gold passes in some protocols and not in others: the pair, not the task, is unsound. */
export interface UnsoundPair {
  task: string;
  protocol: OutputMode;
  /** The protocols the same gold trajectory passed in. */
  passesIn: OutputMode[];
}

/**
 * The task/protocol pairs whose gold failed while the task's gold passed in another protocol (a gold
 * failing in every protocol played is the task's own defect, said as such by its probes' lines).
 */
export function unsoundPairs(results: readonly ProbeResult[]): UnsoundPair[] {
  const golds = results.filter((r) => r.probe.trajectory === "reference" && r.probe.name === `gold/${r.protocol}`);
  return golds
    .filter((r) => !r.ok)
    .map((r) => ({
      task: r.task,
      protocol: r.protocol,
      passesIn: golds.filter((g) => g.task === r.task && g.ok && g.protocol !== r.protocol).map((g) => g.protocol),
    }))
    .filter((pair) => pair.passesIn.length > 0);
}

function pairLine(pair: UnsoundPair): string {
  return `unsound task/protocol pair: ${pair.task} in ${pair.protocol} (its gold passes in ${pair.passesIn.join(", ")}, not in ${pair.protocol})`;
}

/**
 * The lines under the table: one per task/protocol pair not playable, one per probe that is not what
 * soundness needs, with its reasons; then coverage.
 */
export function selfTestFindings(
  results: readonly ProbeResult[],
  uncovered: readonly CoverageGap[],
  strict: boolean,
  concurrency?: number,
  notPlayable: readonly NotPlayable[] = [],
): string[] {
  const lines: string[] = notPlayable.map(notPlayableLine);
  for (const r of results.filter((x) => !x.ok)) {
    const got = r.exercised
      ? `expected ${r.probe.expect}, got ${r.verdict} (${r.stopReason})`
      : `NOT EXERCISED (${r.verdict}, ${r.stopReason})`;
    lines.push(`${r.task} ${r.probe.name}: ${got}`);
    for (const reason of r.reasons) lines.push(`  - ${reason}`);
    if (r.clockWait) lines.push(`  - a wall-clock wait was involved: ${r.clockWait}; ${slowAdvice(concurrency)}`);
  }
  for (const pair of unsoundPairs(results)) lines.push(pairLine(pair));
  for (const gap of uncovered) lines.push(`${strict ? "error" : "warning"}: ${coverageLine(gap)}`);
  return lines;
}

/** The run summary's closing advice in its saturated-machine warning (src/runner/schedule/concurrency-gate.ts). */
const FEWER_AT_ONCE = / Run again with fewer trials at once \([^)]*\)\.$/;

/** What to do about a wait that ran out: fewer trials at once, unless the run already played one at a time. */
function slowAdvice(concurrency: number | undefined): string {
  if (concurrency === 1)
    return "the self-test already played one trial at a time, so the machine or the app was slow: free the machine, or give the task's limits more time";
  return "on a busy machine run the self-test again with --concurrency 1";
}

/** Sound: every probe is what soundness needs, and under --strict every required check failed in some probe. */
export function isSound(results: readonly ProbeResult[], uncovered: readonly CoverageGap[], strict: boolean): boolean {
  return results.every((r) => r.ok) && (!strict || uncovered.length === 0);
}

/**
 * The self-test's closing lines: sound or not, and, when the machine's CPU was saturated for a
 * good part of it, the run summary's warning. Only a probe whose outcome involved a wall-clock wait
 * or a timeout can be the machine's doing: when every failed probe is such, and the machine was
 * saturated, "unsound" is said as "not proven". A negative that passed is never the CPU's fault.
 */
export function selfTestClosing(
  results: readonly ProbeResult[],
  reports: readonly EndpointReport[],
  uncovered: readonly CoverageGap[] = [],
  strict = false,
  concurrency?: number,
): string[] {
  const warning = describeConcurrency(reports)
    .filter((line) => line.startsWith("warning:"))
    // The run summary's advice to run fewer trials at once means nothing to a self-test already at one.
    .map((line) =>
      concurrency === 1 ? line.replace(FEWER_AT_ONCE, " The self-test already played one trial at a time.") : line,
    );
  const bad = results.filter((r) => !r.ok);
  if (isSound(results, uncovered, strict)) return ["every task is sound", ...warning];
  if (bad.length === 0)
    return [`some tasks are unsound under --strict: a required check never failed in any probe`, ...warning];
  if (bad.every((r) => r.reasons.includes(INTERFERENCE))) {
    return [`some targets are declared isolated and are not: ${INTERFERENCE}`, ...warning];
  }
  const pairs = unsoundPairs(results);
  if (pairs.length > 0 && bad.every((r) => pairs.some((p) => p.task === r.task && p.protocol === r.protocol))) {
    return [
      `some task/protocol pairs are unsound: their gold passes in another protocol but not in ${pairs.map((p) => `${p.protocol} (${p.task})`).join(", ")}`,
      ...warning,
    ];
  }
  if (bad.every((r) => r.reasons.some((x) => x.includes("has no per-trial reset")))) {
    return [
      "some targets have no per-trial reset: a probe started on the state the one before it left (see above)",
      ...warning,
    ];
  }
  const machineMayExplain = warning.length > 0 && bad.every((r) => r.clockWait !== null);
  if (!machineMayExplain) {
    return [
      "some tasks are unsound: their checks cannot tell right from wrong, or a probe was not played as written",
      ...warning,
    ];
  }
  if (concurrency === 1) {
    return [
      "some tasks are not proven sound, on a saturated machine, though the self-test played one trial at a time: free the machine and run it again before reading their checks as wrong",
      ...warning,
    ];
  }
  return [
    "some tasks are not proven sound, on a saturated machine: run the self-test again with fewer trials at once (--concurrency 1) before reading their checks as wrong",
    ...warning,
  ];
}

/**
 * One row per task: each probe's verdict, marked where it is not what soundness needs. When a vendor
 * protocol was played, one row per task and protocol, the protocol named in its own column.
 */
export function selfTestTable(
  results: ProbeResult[],
  style: TableStyle,
  notPlayable: readonly NotPlayable[] = [],
): string {
  const byProtocol = results.some((r) => !isHoloMode(r.protocol)) || notPlayable.length > 0;
  const keys = [...new Set(results.map((r) => (byProtocol ? `${r.task}\u0000${r.protocol}` : r.task)))];
  const played = keys.map((key) => {
    const [task, protocol = ""] = key.split("\u0000");
    const mine = results.filter((r) => r.task === task && (!byProtocol || r.protocol === protocol));
    return { task: task!, protocol, sound: mine.every((r) => r.ok), mine, missing: [] as string[] };
  });
  // A pair not playable is a row of its own, neither sound nor unsound.
  const rows = [
    ...played,
    ...notPlayable.map((p) => ({
      task: p.task,
      protocol: p.protocol as string,
      sound: true,
      mine: [],
      missing: p.missing,
    })),
  ].sort((a, b) => a.task.localeCompare(b.task));
  const got = (m: ProbeResult) => {
    if (m.ok) return "ok";
    if (!m.exercised) return "not exercised";
    return `${m.verdict} (${m.stopReason}${m.reflections ? `, ${m.reflections} reflections` : ""})`;
  };
  type Row = (typeof rows)[number];
  return renderTable(
    [
      { head: "task", priority: 100, cell: (r: Row) => r.task },
      ...(byProtocol ? [{ head: "protocol", priority: 100, cell: (r: Row) => r.protocol }] : []),
      {
        head: "sound",
        priority: 99,
        cell: (r: Row) =>
          r.missing.length > 0
            ? { text: "not playable", colour: "yellow" as const }
            : { text: r.sound ? "yes" : "NO", colour: r.sound ? ("green" as const) : ("red" as const) },
      },
      {
        head: "probes (expected verdict: got)",
        priority: 98,
        cell: (r: Row) =>
          r.missing.length > 0
            ? `none: needs ${r.missing.join(", ")}, which ${r.protocol}'s action space has no way to express`
            : r.mine.map((m) => `${m.probe.name} ${m.probe.expect}: ${got(m)}`).join("; "),
      },
    ],
    rows,
    style,
  );
}
