import { closeSelfTestRun, openSelfTestRun, probeBatch, selfTestStatus, startSelfTestRun } from "./self-test-run.js";
import { resolveAgentConfigs, type AgentConfig } from "../agent/config.js";
import type { EndpointReport } from "../runner/schedule/concurrency-gate.js";
import type { TrialEnd } from "../runner/schedule/run-hooks.js";
import type { PlannedTrial } from "../runner/schedule/trial-plan.js";
import { executeTrials } from "../runtime/suite-runtime.js";
import type { StoredRunOptionsInput } from "../store/run-options.js";
import type { Store } from "../store/store.js";
import type { Target } from "../targets/contract.js";
import type { Task } from "../task/schema.js";
import { newRunId, trialId } from "../vocabulary.js";
import type { Probe, ProbeResult } from "./probes.js";

/** The pack's scripted oracle: a command agent, and the environments it knows. */
export interface PackOracle {
  /** The stand-in agent config of the command agent (its label names it in the table). */
  config: AgentConfig;
  command: NonNullable<PlannedTrial["command"]>;
  knows: (task: Task) => boolean;
  /** What the oracle answers, without acting, to an utterance it cannot read. */
  unread: string;
}

export interface PackSelfTestOptions {
  /** The pack's environments as tasks. */
  tasks: Task[];
  /** The pack's target(s), started by the runtime. */
  targets: Readonly<Record<string, () => Promise<Target>>>;
  oracle: PackOracle;
  /** An environment's name as the benchmark gives it (task miniwob-click-button: click-button). */
  environment: (task: Task) => string;
  /** Stored with the run beside `selfTest` (the pack it tested). */
  runOptions: Omit<StoredRunOptionsInput, "selfTest">;
  store: Store;
  outDir: string;
  concurrency: number;
  signal: AbortSignal;
  env: NodeJS.ProcessEnv;
  onTrialEnd?: (end: TrialEnd, probe: string) => void;
  onNotice?: (message: string) => void;
}

/** An environment no probe exercised, and why. */
export interface NotExercised {
  task: string;
  why: string;
}

export interface PackSelfTestOutcome {
  runId: string;
  results: ProbeResult[];
  notExercised: NotExercised[];
  concurrency: EndpointReport[];
  interrupted: boolean;
}

const ANSWER_NOW: Probe = {
  name: "answer-now",
  model: "reference:answer-now",
  mode: "structured",
  expect: "failed",
  trajectory: null,
};

function oracleProbe(oracle: PackOracle): Probe {
  return { name: "oracle", model: oracle.config.model, mode: "structured", expect: "passed", trajectory: null };
}

/** answer-now on every environment, the oracle on those it knows; one repeat each (the same seed for both). */
function planPackProbes(runId: string, options: PackSelfTestOptions) {
  const [answerNow] = resolveAgentConfigs({ model: ANSWER_NOW.model, mode: ANSWER_NOW.mode, env: options.env });
  const trials: PlannedTrial[] = [];
  const probes = new Map<string, { task: Task; probe: Probe }>();
  const notExercised: NotExercised[] = [];
  const add = (task: Task, probe: Probe, agent: AgentConfig, command?: PackOracle["command"]) => {
    const seq = trials.length;
    const trial: PlannedTrial = {
      id: trialId(runId, seq),
      seq,
      task,
      agent,
      repeat: 0,
      ...(command ? { command } : {}),
    };
    trials.push(trial);
    probes.set(trial.id, { task, probe });
  };
  for (const task of [...options.tasks].sort((a, b) => a.id.localeCompare(b.id))) {
    add(task, ANSWER_NOW, answerNow!);
    if (options.oracle.knows(task))
      add(task, oracleProbe(options.oracle), options.oracle.config, options.oracle.command);
    else
      notExercised.push({
        task: task.id,
        why: `no oracle for ${options.environment(task)}: answer-now showed it can fail, no probe that it can pass`,
      });
  }
  return { trials, probes, notExercised, agents: [answerNow!] };
}

export async function runPackSelfTest(options: PackSelfTestOptions): Promise<PackSelfTestOutcome> {
  const runId = `selftest-${newRunId()}`;
  const planned = planPackProbes(runId, options);
  const { store } = options;
  const run = await startSelfTestRun(runId, options, { agents: planned.agents, builtInTargets: options.targets }, 1);
  let status: "finished" | "interrupted" = "interrupted";
  try {
    const concurrency = { mode: "pinned" as const, trials: options.concurrency };
    await openSelfTestRun(run, options.tasks, planned.trials, { ...options.runOptions, selfTest: true, concurrency });
    const probeOf = (end: TrialEnd) => planned.probes.get(end.trial.id)?.probe.name ?? "";
    const executed = await executeTrials({
      ...probeBatch(run, planned.trials, options.concurrency),
      reporters: options.onTrialEnd ? [{ onTrialEnd: (end: TrialEnd) => options.onTrialEnd!(end, probeOf(end)) }] : [],
    });
    status = selfTestStatus(run, executed);
    const results = executed.ends.map((end) => judgePackProbe(end, planned.probes.get(end.trial.id)!, store, options));
    const unread = results.filter((r) => r.probe.name === "oracle" && !r.exercised);
    const notExercised = [
      ...planned.notExercised,
      ...unread.map((r) => ({
        task: r.task,
        why: `the oracle could not read the utterance of ${options.environment(planned.probes.get(r.trialId)!.task)} (it answered "${options.oracle.unread}")`,
      })),
    ];
    return { runId, results, notExercised, concurrency: executed.concurrency, interrupted: status === "interrupted" };
  } finally {
    await closeSelfTestRun(run, status);
  }
}

/** One probe's result: ok when its verdict is the expected one; the oracle is exercised unless it could not read the utterance. */
function judgePackProbe(
  end: TrialEnd,
  planned: { task: Task; probe: Probe },
  store: Store,
  options: PackSelfTestOptions,
): ProbeResult {
  const { task, probe } = planned;
  const stored = store.trial(end.trial.id);
  const checks = store.checks(end.trial.id);
  const exercised = probe.name !== "oracle" || stored?.answer !== options.oracle.unread;
  const failedChecks = checks.filter((c) => c.required && !c.pass).map((c) => c.name);
  const ok = exercised && end.verdict === probe.expect;
  const reasons: string[] = [];
  const said = (stored?.metrics.fromEnvironment as { instruction?: string } | undefined)?.instruction;
  if (!exercised) reasons.push(`the oracle could not read the utterance: ${said ?? "(none)"}`);
  else if (end.verdict === "error" || end.verdict === "cancelled")
    reasons.push(`${end.verdict}: ${stored?.error ?? stored?.stopDetail ?? end.stopReason}`);
  else if (!ok && probe.expect === "passed")
    reasons.push(...checks.filter((c) => c.required && !c.pass).map((c) => `check '${c.name}' failed: ${c.reason}`));
  else if (!ok) reasons.push("every required check passed: the checks cannot tell doing nothing from solving it");
  return {
    task: task.id,
    probe,
    protocol: probe.mode,
    trialId: end.trial.id,
    verdict: end.verdict,
    stopReason: end.stopReason,
    stopLine: end.stopLine,
    reflections: 0,
    exercised,
    failedChecks,
    reasons,
    clockWait: end.stopReason === "timeout" ? `the time limit ran out (${stored?.stopDetail || "timeout"})` : null,
    ok,
  };
}
