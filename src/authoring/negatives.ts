/**
 * `umpire negatives`: plays the gold's mutations (negative-mutations.ts) through the self-test's
 * own probes (self-test.ts, probe-exercise.ts, probe-judgement.ts) and sorts them: a mutation that
 * was played as written and failed is a negative worth keeping (written into the task file); one
 * that passed every check is a check gap, said in words; one the reference model could not play
 * proves nothing and is dropped with its reason.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { YAMLSeq, isMap, parseDocument } from "yaml";
import type { ProjectTargets } from "../config/project.js";
import type { Store } from "../store/store.js";
import type { ReferenceStep, Task } from "../task/schema.js";
import { deriveMutations, type Mutation } from "./negative-mutations.js";
import type { ProbeResult } from "./probes.js";
import { runSelfTest } from "./self-test.js";

export interface MutationVerdict {
  mutation: Mutation;
  result: ProbeResult;
}

export interface TaskNegatives {
  task: Task;
  /** The gold passed in both modes: without it, no mutation's verdict means anything. */
  goldPassed: boolean;
  goldProblems: string[];
  caught: MutationVerdict[];
  gaps: MutationVerdict[];
  notPlayed: MutationVerdict[];
}

export interface NegativesOptions {
  tasks: Task[];
  config: ProjectTargets;
  store: Store;
  outDir: string;
  concurrency: number;
  signal: AbortSignal;
  env: NodeJS.ProcessEnv;
  onProbe?: (line: string) => void;
}

function knownMarks(task: Task, config: ProjectTargets): string[] {
  return [...Object.keys(config.targets[task.target]?.marks ?? {}), ...Object.keys(task.marks)];
}

export async function runNegatives(options: NegativesOptions): Promise<{ runId: string; tasks: TaskNegatives[] }> {
  const mutations = new Map(
    options.tasks.map((task) => [task.id, deriveMutations(task, knownMarks(task, options.config))]),
  );
  // The task as written, its own negatives set aside: the probes are gold, answer-now and the mutations.
  const probed = options.tasks.map((task) => ({
    ...task,
    negatives: Object.fromEntries(mutations.get(task.id)!.map((m) => [m.name, m.steps])),
    negativeFailsOn: undefined,
  }));
  const outcome = await runSelfTest({
    tasks: probed,
    config: options.config,
    store: options.store,
    outDir: options.outDir,
    concurrency: options.concurrency,
    signal: options.signal,
    env: options.env,
    onTrialEnd: (end) =>
      options.onProbe?.(`  ${end.trial.task.id} [${end.trial.agent.label}]: ${end.verdict} (${end.stopReason})`),
  });
  const tasks = options.tasks.map((task): TaskNegatives => {
    const mine = outcome.results.filter((r) => r.task === task.id);
    const gold = mine.filter((r) => r.probe.name.startsWith("gold/"));
    const verdicts = mutations.get(task.id)!.flatMap((mutation) => {
      const result = mine.find((r) => r.probe.name === `negative:${mutation.name}`);
      return result ? [{ mutation, result }] : [];
    });
    return {
      task,
      goldPassed: gold.length > 0 && gold.every((r) => r.ok),
      goldProblems: gold.filter((r) => !r.ok).flatMap((r) => r.reasons.map((reason) => `${r.probe.name}: ${reason}`)),
      caught: verdicts.filter((v) => v.result.exercised && v.result.verdict === "failed"),
      gaps: verdicts.filter((v) => v.result.exercised && v.result.verdict === "passed"),
      notPlayed: verdicts.filter(
        (v) => !v.result.exercised || (v.result.verdict !== "passed" && v.result.verdict !== "failed"),
      ),
    };
  });
  return { runId: outcome.runId, tasks };
}

/** The lines a person reads: kept negatives, check gaps in words, mutations that proved nothing. */
export function negativesReport(t: TaskNegatives): string[] {
  const lines = [`${t.task.id}:`];
  if (!t.goldPassed) {
    lines.push(
      "  the gold does not pass, so no mutation of it proves anything: fix the task first",
      ...t.goldProblems.map((p) => `    - ${p}`),
    );
    return lines;
  }
  for (const { mutation, result } of t.caught) {
    lines.push(
      `  kept ${mutation.name}: ${mutation.what} failed ${result.failedChecks.map((c) => `'${c}'`).join(", ")}`,
    );
  }
  for (const { mutation } of t.gaps) {
    lines.push(`  check gap: ${mutation.what} passed every check: the checks do not see ${mutation.unseen}`);
  }
  for (const { mutation, result } of t.notPlayed) {
    const why = result.reasons[0] ?? `${result.verdict} (${result.stopReason})`;
    lines.push(`  not kept ${mutation.name}: ${mutation.what} was not played as written (${why})`);
  }
  if (t.caught.length + t.gaps.length + t.notPlayed.length === 0) lines.push("  no mutation of the gold to try");
  return lines;
}

const plainStep = (step: ReferenceStep) => ({
  tool: step.tool,
  ...(step.target ? { target: step.target } : {}),
  ...(Object.keys(step.args).length ? { args: step.args } : {}),
});

/** Writes the caught mutations into the task file's `negatives:` (comments and other fields kept); returns the names written. */
export function writeNegatives(t: TaskNegatives, cwd: string): string[] {
  const file = resolve(cwd, t.task.file);
  const doc = parseDocument(readFileSync(file, "utf8"));
  const existing = doc.get("negatives");
  const have = new Set(
    isMap(existing) ? existing.items.map((p) => JSON.stringify((p.value as { toJSON(): unknown })?.toJSON())) : [],
  );
  const written: string[] = [];
  for (const { mutation, result } of t.caught) {
    const plain = mutation.steps.map(plainStep);
    if (have.has(JSON.stringify(plain))) continue;
    const steps = new YAMLSeq();
    for (const s of plain) steps.items.push(doc.createNode(s, { flow: true }));
    steps.commentBefore = ` ${mutation.what}: fails ${result.failedChecks.map((c) => `'${c}'`).join(", ")} (umpire negatives)`;
    doc.setIn(["negatives", mutation.name], steps);
    written.push(mutation.name);
  }
  if (written.length) writeFileSync(file, doc.toString({ lineWidth: 0 }));
  return written;
}
