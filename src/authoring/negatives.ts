/**
 * `umpire negatives`: plays the gold's mutations (negative-mutations.ts) through the self-test's
 * own probes (self-test.ts, probe-exercise.ts, probe-judgement.ts) and sorts them: a mutation that
 * was played as written and failed is a negative worth keeping (written into the task file); one
 * that passed every check is a check gap, said in words; one the reference model could not play
 * proves nothing and is dropped with its reason.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { YAMLSeq, isMap, parseDocument } from "yaml";
import type { ProjectTargets } from "../config/project.js";
import type { Store } from "../store/store.js";
import { CheckSpec, type ReferenceStep, type Task } from "../task/schema.js";
import { deriveMutations, type Mutation } from "./negative-mutations.js";
import type { PageMark } from "./page-marks-check.js";
import { probesFor, type ProbeResult } from "./probes.js";
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
  /** The do-nothing probe (answering at once): the checks it failed catch an agent that does nothing. */
  answerNow: ProbeResult | null;
  caught: MutationVerdict[];
  /** Mutation name -> the task's own negative that plays the same steps (nothing new to write). */
  existing: Map<string, string>;
  gaps: MutationVerdict[];
  notPlayed: MutationVerdict[];
}

export interface NegativesOptions {
  /** The controls on each task's gold page (import surveys them already); surveyed here when absent. */
  pageMarks?: ReadonlyMap<string, readonly PageMark[]>;
  tasks: Task[];
  config: ProjectTargets;
  store: Store;
  outDir: string;
  concurrency: number;
  signal: AbortSignal;
  env: NodeJS.ProcessEnv;
  onProbe?: (line: string) => void;
}

/** What both self-test runs of `negatives` (the survey and the probes) take from its options as they are. */
function selfTestSettings(options: NegativesOptions) {
  const { config, store, outDir, concurrency, signal, env } = options;
  return { config, store, outDir, concurrency, signal, env };
}

function knownMarks(task: Task, config: ProjectTargets): string[] {
  return [...Object.keys(config.targets[task.target]?.marks ?? {}), ...Object.keys(task.marks)];
}

/** The mutations whose steps are one of the task's negatives already, by that negative's name. */
function sameAsNegatives(task: Task, mutations: readonly Mutation[]): Map<string, string> {
  const bySteps = new Map(
    Object.entries(task.negatives).map(([name, steps]) => [JSON.stringify(steps.map(plainStep)), name]),
  );
  return new Map(
    mutations.flatMap((m) => {
      const name = bySteps.get(JSON.stringify(m.steps.map(plainStep)));
      return name === undefined ? [] : [[m.name, name] as [string, string]];
    }),
  );
}

/** The task's mutations, among its declared marks and the controls on its gold's page (declared for the probe). */
function mutationsOf(task: Task, config: ProjectTargets, onPage: readonly PageMark[]): Mutation[] {
  const known = knownMarks(task, config);
  const found = onPage.filter((m) => !known.includes(m.name));
  const declare = new Map(found.flatMap((m) => (m.decl ? [[m.name, m.decl] as const] : [])));
  return deriveMutations(task, [...known, ...found.map((m) => m.name)]).map((m) => {
    const marks = Object.fromEntries(
      m.steps.flatMap((s) => (s.target && declare.has(s.target) ? [[s.target, declare.get(s.target)!]] : [])),
    );
    return Object.keys(marks).length ? { ...m, marks } : m;
  });
}

export async function runNegatives(options: NegativesOptions): Promise<{ runId: string; tasks: TaskNegatives[] }> {
  const onPage = options.pageMarks ?? (await surveyPageMarks(options));
  const mutations = new Map(
    options.tasks.map((task) => [task.id, mutationsOf(task, options.config, onPage.get(task.id) ?? [])]),
  );
  // The task as written, its own negatives set aside: the probes are gold, answer-now and the mutations.
  const probed = options.tasks.map((task) => ({
    ...task,
    marks: Object.assign({}, task.marks, ...mutations.get(task.id)!.map((m) => m.marks ?? {})),
    negatives: Object.fromEntries(mutations.get(task.id)!.map((m) => [m.name, m.steps])),
    negativeFailsOn: undefined,
  }));
  const outcome = await runSelfTest({
    ...selfTestSettings(options),
    tasks: probed,
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
      existing: sameAsNegatives(task, mutations.get(task.id)!),
      answerNow: mine.find((r) => r.probe.name === "answer-now") ?? null,
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
    const failed = result.failedChecks.map((c) => `'${c}'`).join(", ");
    const same = t.existing.get(mutation.name);
    lines.push(
      same === undefined
        ? `  kept ${mutation.name}: ${mutation.what} failed ${failed}`
        : `  already a negative: ${mutation.what} is the task's negative '${same}' (failed ${failed}); nothing to write`,
    );
  }
  for (const { mutation } of t.gaps) {
    const same = t.existing.get(mutation.name);
    lines.push(
      `  check gap: ${mutation.what} passed every check: the checks do not see ${mutation.unseen}${same === undefined ? "" : ` (it is the task's negative '${same}', which the self-test will report)`}`,
    );
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
    if (t.existing.has(mutation.name)) continue;
    const plain = mutation.steps.map(plainStep);
    if (have.has(JSON.stringify(plain))) continue;
    const steps = new YAMLSeq();
    for (const s of plain) steps.items.push(doc.createNode(s, { flow: true }));
    steps.commentBefore = ` ${mutation.what}: fails ${result.failedChecks.map((c) => `'${c}'`).join(", ")} (umpire negatives)`;
    doc.setIn(["negatives", mutation.name], steps);
    // A control found on the page, aimed at: declared in the task so the negative plays as written.
    for (const [name, decl] of Object.entries(mutation.marks ?? {}))
      if (!doc.hasIn(["marks", name])) doc.setIn(["marks", name], doc.createNode(decl, { flow: true }));
    written.push(mutation.name);
  }
  if (written.length) writeFileSync(file, doc.toString({ lineWidth: 0 }));
  return written;
}

const PAGE_MARKS_MODULE = fileURLToPath(
  new URL(`./page-marks-check.${import.meta.url.endsWith(".ts") ? "ts" : "js"}`, import.meta.url),
);

/** The advisory check that lists the controls of the page a gold left (page-marks-check.ts). */
export function pageMarksCheck(task: Task, config: ProjectTargets, dir: string): Task["checks"][number] {
  return CheckSpec.parse({
    kind: "custom",
    name: "umpire negatives: the page's controls",
    required: false,
    module: PAGE_MARKS_MODULE,
    export: "pageMarks",
    options: { dir, testIdAttribute: config.targets[task.target]?.testIdAttribute ?? "data-testid" },
  });
}

/** The controls a trial's page-marks check wrote, or none. */
export function readPageMarks(dir: string, trialId: string): PageMark[] {
  const file = join(dir, `${trialId}.marks.json`);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as PageMark[]) : [];
}

/** Plays each gold once (structured) to list the controls on the page it leaves. */
async function surveyPageMarks(options: NegativesOptions): Promise<Map<string, PageMark[]>> {
  const dir = mkdtempSync(join(tmpdir(), "umpire-marks-"));
  try {
    const outcome = await runSelfTest({
      tasks: options.tasks.map((t) => ({
        ...t,
        checks: [...t.checks, pageMarksCheck(t, options.config, dir)],
        negatives: {},
        negativeFailsOn: undefined,
      })),
      ...selfTestSettings(options),
      probes: (task) => probesFor({ ...task, negatives: {} }).filter((p) => p.name === "gold/structured"),
    });
    return new Map(
      options.tasks.map((t) => {
        const gold = outcome.results.find((r) => r.task === t.id && r.probe.name === "gold/structured");
        return [t.id, gold ? readPageMarks(dir, gold.trialId) : []];
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
