/**
 * `umpire validate --self-test`: proves each task sound on the reference model. A task is sound
 * when its gold trajectory passes in both output modes, an agent that answers "Done." at once
 * fails, and every declared negative (a known-wrong trajectory) fails. A check that cannot fail,
 * or a gold path the checks reject, shows up here before any real model is blamed.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveAgentConfigs, type AgentConfig } from "../agent/index.js";
import { createPriceBook } from "../pricing.js";
import { renderTable, type TableStyle } from "../report/table-layout.js";
import { describeConcurrency, type EndpointReport } from "../runner/concurrency-gate.js";
import { storedPlan, type PlannedTrial } from "../runner/plan.js";
import { newRunId, trialId } from "../vocabulary.js";
import type { TrialEnd } from "../runner/reporters.js";
import { openStore } from "../store/index.js";
import type { Task } from "../task/schema.js";
import type { ProjectTargets } from "../config/project.js";
import { executeTrials, startRuntime } from "./suite-runtime.js";

/** What one self-test trial is for, and the verdict that makes the task sound. */
export interface Probe {
  /** "gold/structured", "gold/tools", "answer-now", "negative:wrong-record". */
  name: string;
  model: string;
  mode: "structured" | "tools";
  expect: "passed" | "failed";
}

export function probesFor(task: Task): Probe[] {
  return [
    { name: "gold/structured", model: "reference", mode: "structured", expect: "passed" },
    { name: "gold/tools", model: "reference", mode: "tools", expect: "passed" },
    { name: "answer-now", model: "reference:answer-now", mode: "structured", expect: "failed" },
    ...Object.keys(task.negatives).map((n): Probe => ({ name: `negative:${n}`, model: `reference:negative-${n}`, mode: "structured", expect: "failed" })),
  ];
}

export interface ProbeResult {
  task: string;
  probe: Probe;
  verdict: string;
  stopReason: string;
  stopLine: string;
  /** Reflections the repetition detector asked for: on a gold trajectory, each is a false positive. */
  reflections: number;
  ok: boolean;
}

export interface SelfTestOptions {
  tasks: Task[];
  /** The project's targets; default only the fixture. */
  config?: ProjectTargets;
  concurrency: number;
  signal: AbortSignal;
  env: NodeJS.ProcessEnv;
  onTrialEnd?: (end: TrialEnd) => void;
}

export interface SelfTestOutcome {
  results: ProbeResult[];
  /** How many trials ran at once and what the machine's CPU did meanwhile (the run summary's report). */
  concurrency: EndpointReport[];
}

export async function runSelfTest(options: SelfTestOptions): Promise<SelfTestOutcome> {
  const runId = `selftest-${newRunId()}`;
  const configs = new Map<string, AgentConfig>();
  const trials: PlannedTrial[] = [];
  const probes = new Map<string, { task: Task; probe: Probe }>();
  for (const task of [...options.tasks].sort((a, b) => a.id.localeCompare(b.id))) {
    for (const probe of probesFor(task)) {
      const [config] = resolveAgentConfigs({ model: probe.model, mode: probe.mode, env: options.env });
      configs.set(config!.label, config!);
      const seq = trials.length;
      const trial: PlannedTrial = { id: trialId(runId, seq), seq, task, agent: config!, repeat: 0 };
      trials.push(trial);
      probes.set(trial.id, { task, probe });
    }
  }
  // A scratch store and folder: a self-test is a property of the task files, not a run to keep.
  const dir = mkdtempSync(join(tmpdir(), "umpire-selftest-"));
  const store = openStore(join(dir, "selftest.db"));
  const runtime = await startRuntime({ tasks: options.tasks, agents: [...configs.values()], config: options.config, logDir: dir, env: options.env, signal: options.signal });
  try {
    store.createRun({ id: runId, umpireVersion: "self-test", folder: join(dir, runId), tags: ["self-test"] });
    store.addTrials(runId, trials.map((t) => storedPlan(t)));
    const { ends, concurrency } = await executeTrials({
      runtime,
      store,
      runId,
      runDir: join(dir, runId),
      trials,
      env: options.env,
      prices: createPriceBook(),
      concurrency: options.concurrency,
      modelConcurrency: options.concurrency,
      repetition: { window: 3, recoveryLimit: 1 },
      reporters: options.onTrialEnd ? [{ onTrialEnd: options.onTrialEnd }] : [],
      signal: options.signal,
    });
    const results = ends.map((end) => {
      const { task, probe } = probes.get(end.trial.id)!;
      const repetition = (store.trial(end.trial.id)?.metrics.repetition ?? {}) as { reflections?: number };
      const reflections = repetition.reflections ?? 0;
      // A gold path that trips the repetition detector is a detector false positive: not sound either.
      const ok = end.verdict === probe.expect && (probe.expect === "failed" || reflections === 0);
      return { task: task.id, probe, verdict: end.verdict, stopReason: end.stopReason, stopLine: end.stopLine, reflections, ok };
    });
    return { results, concurrency };
  } finally {
    await runtime.close();
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The self-test's closing lines: sound or not, and, when the machine's CPU was saturated for a
 * good part of it, the run summary's warning. A gold trial that timed out on a starved machine
 * says nothing about the task's checks, so "unsound" is then said as "not proven".
 */
export function selfTestClosing(results: readonly ProbeResult[], reports: readonly EndpointReport[]): string[] {
  const warning = describeConcurrency(reports).filter((line) => line.startsWith("warning:"));
  if (results.every((r) => r.ok)) return ["every task is sound", ...warning];
  if (warning.length === 0) return ["some tasks are unsound: their checks cannot tell right from wrong"];
  return [
    "some tasks are not proven sound, on a saturated machine: run the self-test again with fewer trials at once (--concurrency 1) before reading their checks as wrong",
    ...warning,
  ];
}

/** One row per task: each probe's verdict, marked where it is not what soundness needs. */
export function selfTestTable(results: ProbeResult[], style: TableStyle): string {
  const tasks = [...new Set(results.map((r) => r.task))];
  const rows = tasks.map((task) => {
    const mine = results.filter((r) => r.task === task);
    return { task, sound: mine.every((r) => r.ok), mine };
  });
  return renderTable(
    [
      { head: "task", priority: 100, cell: (r: (typeof rows)[number]) => r.task },
      { head: "sound", priority: 99, cell: (r) => ({ text: r.sound ? "yes" : "NO", colour: r.sound ? "green" : "red" }) },
      {
        head: "probes (expected verdict: got)",
        priority: 98,
        cell: (r) =>
          r.mine
            .map((m) => `${m.probe.name} ${m.probe.expect}: ${m.ok ? "ok" : `${m.verdict} (${m.stopReason}${m.reflections ? `, ${m.reflections} reflections` : ""})`}`)
            .join("; "),
      },
    ],
    rows,
    style,
  );
}
