/**
 * What `umpire import playwright` does after writing the drafts, so their checks already catch a
 * wrong agent: it plays each draft's gold (both modes) and answer-now with an advisory snapshot of
 * the app's state (importer/state-snapshot-check.ts), adds checks on what the gold changed
 * (importer/state-diff.ts), then plays the answer-now probe and the gold's mutations as `umpire
 * negatives` does, and marks each check in the file with the wrong trajectories shown to fail it.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isMap, isSeq, parseDocument, type Document } from "yaml";
import type { ProjectTargets } from "../config/project.js";
import { stateChecks, type StateCheck } from "../importer/state-diff.js";
import type { StateSnapshot } from "../importer/state-snapshot-check.js";
import { oneLine } from "../safety/terminal.js";
import { openStore } from "../store/open.js";
import { CheckSpec, type Task } from "../task/schema.js";
import type { CommandIO } from "./io.js";
import { pageMarksCheck, readPageMarks, type TaskNegatives } from "../authoring/negatives.js";
import type { PageMark } from "../authoring/page-marks-check.js";
import { probesFor } from "../authoring/probes.js";
import { runSelfTest } from "../authoring/self-test.js";

const SNAPSHOT_MODULE = fileURLToPath(
  new URL(`../importer/state-snapshot-check.${import.meta.url.endsWith(".ts") ? "ts" : "js"}`, import.meta.url),
);

export interface StateProbeRun {
  tasks: Task[];
  /** Per task id: the GET URLs its test read through the `request` fixture. */
  stateUrls: ReadonlyMap<string, readonly string[]>;
  project: ProjectTargets;
  db: string;
  out: string;
  concurrency: number;
}

function withSnapshot(task: Task, dir: string, urls: readonly string[], config: ProjectTargets): Task {
  const snapshot = CheckSpec.parse({
    kind: "custom",
    name: "umpire import: state snapshot",
    required: false,
    module: SNAPSHOT_MODULE,
    export: "snapshot",
    options: { dir, urls: [...urls] },
  });
  const checks = [...task.checks, snapshot, pageMarksCheck(task, config, dir)];
  return { ...task, checks, negatives: {}, negativeFailsOn: undefined };
}

function readSnapshot(dir: string, trialId: string): StateSnapshot | null {
  const file = join(dir, `${trialId}.json`);
  return existsSync(file) ? (JSON.parse(readFileSync(file, "utf8")) as StateSnapshot) : null;
}

export interface StateFindings {
  /** Per task: checks on what the gold changed (absent: the gold did not pass in both modes). */
  checks: Map<string, StateCheck[]>;
  /** Per task: the controls on the page the gold left, for the mutations to aim at. */
  pageMarks: Map<string, PageMark[]>;
}

/** Plays gold (both modes) and answer-now with a state snapshot; returns per task the checks on what the gold changed. */
export async function deriveStateChecks(run: StateProbeRun, io: CommandIO): Promise<StateFindings> {
  const dir = mkdtempSync(join(tmpdir(), "umpire-state-"));
  const store = openStore(resolve(io.cwd, run.db));
  io.stderr.write(`umpire import: reading the app's state before and after the gold of ${run.tasks.length} task(s)\n`);
  try {
    const outcome = await runSelfTest({
      tasks: run.tasks.map((t) => withSnapshot(t, dir, run.stateUrls.get(t.id) ?? [], run.project)),
      config: run.project,
      store,
      outDir: resolve(io.cwd, run.out),
      concurrency: run.concurrency,
      signal: io.signal,
      env: io.env,
      probes: (task) => probesFor({ ...task, negatives: {} }),
      onTrialEnd: (end) =>
        io.stderr.write(`${oneLine(`  ${end.trial.task.id} [${end.trial.agent.label}]: ${end.verdict}`)}\n`),
    });
    const derived = new Map<string, StateCheck[]>();
    const pageMarks = new Map<string, PageMark[]>();
    for (const task of run.tasks) {
      const mine = outcome.results.filter((r) => r.task === task.id);
      const structured = mine.find((r) => r.probe.name === "gold/structured");
      if (structured) pageMarks.set(task.id, readPageMarks(dir, structured.trialId));
      const before = mine.find((r) => r.probe.name === "answer-now");
      const golds = mine.filter((r) => r.probe.name.startsWith("gold/") && r.verdict === "passed");
      const beforeSnap = before ? readSnapshot(dir, before.trialId) : null;
      const afterSnaps = golds.flatMap((g) => readSnapshot(dir, g.trialId) ?? []);
      // A gold that did not pass in both modes changed nothing the task can trust.
      if (!beforeSnap || afterSnaps.length < 2) continue;
      derived.set(task.id, stateChecks(beforeSnap, afterSnaps));
    }
    return { checks: derived, pageMarks };
  } finally {
    store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function checksSeq(doc: Document) {
  const checks = doc.get("checks");
  return isSeq(checks) ? checks : null;
}

/** Appends the state checks to the task file's `checks:` (block style, each JSON expectation on one line). */
export function addStateChecks(file: string, checks: readonly StateCheck[]): void {
  const doc = parseDocument(readFileSync(file, "utf8"));
  const seq = checksSeq(doc);
  if (!seq || checks.length === 0) return;
  for (const check of checks) {
    const node = doc.createNode(check);
    for (const field of ["json", "contains"]) {
      const list = node.get(field);
      if (isSeq(list)) for (const item of list.items) if (isMap(item)) item.flow = true;
    }
    if (check === checks[0])
      node.commentBefore = " From the state the gold changed (read before and after it by umpire import):";
    seq.items.push(node);
  }
  writeFileSync(file, doc.toString({ lineWidth: 0 }));
}

/** Per check name: the wrong trajectories (answer-now, kept mutations) that failed it. */
export function failedBy(t: TaskNegatives): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const add = (check: string, probe: string) => out.set(check, [...(out.get(check) ?? []), probe]);
  if (t.answerNow?.verdict === "failed") for (const c of t.answerNow.failedChecks) add(c, "answer-now");
  for (const { mutation, result } of t.caught) for (const c of result.failedChecks) add(c, mutation.name);
  return out;
}

/** Marks each check of the task file with the wrong trajectories shown to fail it, or a TODO when none was. */
export function markChecks(t: TaskNegatives, cwd: string): { shown: number; unshown: string[] } {
  const file = resolve(cwd, t.task.file);
  const doc = parseDocument(readFileSync(file, "utf8"));
  const seq = checksSeq(doc);
  const by = failedBy(t);
  const unshown: string[] = [];
  let shown = 0;
  for (const item of seq?.items ?? []) {
    if (!isMap(item)) continue;
    const name = String(item.get("name") ?? "");
    const probes = by.get(name) ?? [];
    // The state checks' own heading stays above the first of them.
    const heading = item.commentBefore?.split("\n").filter((l) => !/^ (shown to fail|TODO: no wrong)/.test(l)) ?? [];
    const mark = probes.length
      ? ` shown to fail: ${probes.join(", ")} (umpire import)`
      : " TODO: no wrong trajectory the import played failed this check; add a negative that does, or drop it";
    item.commentBefore = [...heading, mark].join("\n");
    if (probes.length) shown++;
    else unshown.push(name);
  }
  writeFileSync(file, doc.toString({ lineWidth: 0 }));
  return { shown, unshown };
}
