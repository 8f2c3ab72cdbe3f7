/**
 * `umpire rejudge RUN [--task ID]...`: today's checks (the task files as they are now) on each
 * trial's stored evidence (src/checks/trial-evidence.ts), without the app, the agent or a model
 * turn. The new judgement is stored beside the run's own (both kept); the latest is the trial's
 * verdict for compare, history, show and the reports, marked re-judged. Checks that need a live
 * app are named and keep their earlier result.
 */
import { join, resolve } from "node:path";
import type { Browser } from "playwright";
import { launchChromium } from "../../browser/chromium.js";
import { CUSTOM_CHECK_RULES } from "../../checks/custom-rules.js";
import { summarizeClaim, verdictOf } from "../../checks/verdict.js";
import type { CheckResult } from "../../checks/types.js";
import { rejudgeTrial, type LiveCheck } from "../../checks/rejudge.js";
import { readTrialEvidence } from "../../checks/trial-evidence.js";
import { projectTargets } from "../../config/project.js";
import { OPTIONS as O } from "../../config/options.js";
import type { OptionSpec } from "../../config/option.js";
import { UmpireError } from "../../errors.js";
import { INFRASTRUCTURE_STOPS, STOP_WORDS } from "../../runner/trial/stop-reason.js";
import { openStore } from "../../store/open.js";
import { runOptionsOf } from "../../store/run-options.js";
import type { Store } from "../../store/store.js";
import type { TrialRecord } from "../../store/records.js";
import { taskContentHash } from "../../task/content-hash.js";
import { loadTasksOrThrowAsync } from "../../task/loader.js";
import type { Task } from "../../task/schema.js";
import type { Verdict } from "../../vocabulary.js";
import type { ParsedCommand } from "../args.js";
import { defineCommand } from "../command.js";
import { EXIT } from "../exit-codes.js";
import { restorePack } from "../run/pack.js";
import type { CommandIO } from "../io.js";

const OPTIONS = {
  task: { kind: "string", multiple: true, arg: "ID", help: "re-judge only this task's trials (repeatable)" },
  json: { ...O.json, help: "print JSON only" },
  db: O.db,
  "pack-dir": {
    kind: "string",
    arg: "DIR",
    help: "a benchmark pack's run: where its checkout is now, when not where the run found it\n(docs/benchmarks.md)",
  },
} as const satisfies Record<string, OptionSpec>;

export const run = defineCommand({
  name: "rejudge",
  options: OPTIONS,
  positionals: [{ name: "run", required: true }],
  example: "umpire rejudge <run> [--task ID]",
  description: `Runs today's checks (the task files as they are now) on the end state each trial of the run stored
(its pages' DOM, storage, effects log, workspace files, http responses, command output), with no
model turn and no app. Both judgements are kept; the new one is what compare, history and show use
(marked re-judged). Checks that need a live app (custom checks, a page, request or command the
trial never read) are named and keep their earlier result.`,
  run: execute,
});

export interface TrialRejudged {
  trial: string;
  task: string;
  before: Verdict | null;
  after: Verdict | null;
  liveChecks: LiveCheck[];
  /** Why the trial was not re-judged; absent when it was. */
  skipped?: string;
}

/** Why a stored trial cannot be re-judged, or null when it can. */
function unjudgeable(trial: TrialRecord, task: Task | undefined): string | null {
  if (trial.status !== "done" || trial.verdict === null) return "it has not finished";
  if (trial.verdict === "cancelled") return "it was cancelled (umpire run --resume runs it)";
  if (trial.stopReason && INFRASTRUCTURE_STOPS.has(trial.stopReason))
    return `it stopped on an infrastructure error (${trial.stopReason}), so there is no end state to judge`;
  if (trial.mode === "external") return "a command agent's trial: which of its checks decide depends on how it ran";
  if (!task) return `its task ${trial.taskId} is no longer in ${trial.taskFile}`;
  if (!trial.folder) return "it has no trial folder";
  return null;
}

function stopLine(trial: TrialRecord, checks: readonly CheckResult[], verdict: Verdict): string {
  const head = `${trial.stopReason ? STOP_WORDS[trial.stopReason] : "stopped"} (re-judged)`;
  if (verdict === "error") return `${head}; not judged: a check needs a live app`;
  const failing = checks.find((c) => c.required && !c.pass);
  return failing ? `${head}, ${failing.reason}` : `${head}, all required checks passed`;
}

async function todaysTasks(
  trials: readonly TrialRecord[],
  io: CommandIO,
  config: Parameters<typeof projectTargets>[0],
  pack: { run: { id: string; options: unknown }; dir: string | undefined },
): Promise<Map<string, Task>> {
  // A pack's run: its tasks are made again from the checkout, as the run stored them, not read from files.
  const stored = runOptionsOf(pack.run).pack;
  if (stored) {
    const again = { id: pack.run.id, again: `umpire rejudge ${pack.run.id}` };
    const made = restorePack(stored, again, pack.dir === undefined ? {} : { "pack-dir": pack.dir }, io.env);
    return new Map(made.pack.tasks.map((t) => [t.id, t]));
  }
  const files = [...new Set(trials.map((t) => t.taskFile))];
  const project = projectTargets(config, files, io.cwd);
  const tasks = await loadTasksOrThrowAsync(files, { cwd: io.cwd, targets: project.targets }, CUSTOM_CHECK_RULES);
  return new Map(tasks.map((t) => [t.id, t]));
}

async function rejudgeOne(
  store: Store,
  trial: TrialRecord,
  task: Task,
  runFolder: string,
  browser: () => Promise<Browser>,
  io: CommandIO,
): Promise<TrialRejudged> {
  const base = { trial: trial.id, task: trial.taskId, before: trial.verdict, after: trial.verdict, liveChecks: [] };
  // A trial's folder is stored relative to its run's folder.
  const folder = resolve(io.cwd, runFolder, trial.folder!);
  const evidence = readTrialEvidence(folder);
  if (!evidence) return { ...base, skipped: `no stored evidence in ${folder} (run by an umpire that kept none)` };
  const needsBrowser = task.checks.some((c) => c.kind === "page");
  const judged = await rejudgeTrial({
    specs: task.checks,
    forbiddenEffects: task.permissions.forbiddenEffects,
    evidence,
    previous: store.checks(trial.id) as CheckResult[],
    browser: needsBrowser ? await browser() : null,
    workspaceDir: join(folder, "workspace"),
    trialId: trial.id,
    taskFile: task.file,
    env: io.env,
  });
  const verdict = verdictOf(judged.checks, {});
  const { claimed, verified } = summarizeClaim(evidence.answer, judged.checks, {
    infeasible: task.tags.includes("infeasible"),
  });
  store.recordRejudgement(trial.id, {
    taskHash: taskContentHash(task),
    verdict,
    claimed,
    verified,
    stopDetail: stopLine(trial, judged.checks, verdict),
    checks: judged.checks,
    liveChecks: judged.liveChecks,
  });
  return { ...base, after: verdict, liveChecks: judged.liveChecks };
}

/**
 * The checks that needed a live app, one line per kind and reason (not one per check and trial:
 * a run of custom checks said the same thing three times a trial): how many, in how many trials,
 * which checks by name, and whether they kept their earlier result.
 */
export function liveCheckLines(results: readonly TrialRejudged[]): string[] {
  const groups = new Map<
    string,
    { kind: string; why: string; kept: boolean; names: Set<string>; trials: Set<string>; n: number }
  >();
  for (const r of results)
    for (const live of r.liveChecks) {
      const key = `${live.kind}\u0000${live.why}\u0000${live.kept}`;
      const g =
        groups.get(key) ??
        groups
          .set(key, { kind: live.kind, why: live.why, kept: live.kept, names: new Set(), trials: new Set(), n: 0 })
          .get(key)!;
      g.names.add(live.name);
      g.trials.add(r.trial);
      g.n += 1;
    }
  return [...groups.values()].map((g) => {
    const names = [...g.names];
    const listed =
      names
        .slice(0, 3)
        .map((n) => `"${n}"`)
        .join(", ") + (names.length > 3 ? `, and ${names.length - 3} more` : "");
    const count = `${g.n} ${g.kind} check${g.n === 1 ? "" : "s"} in ${g.trials.size} trial${g.trials.size === 1 ? "" : "s"}`;
    const result = g.kept ? `kept ${g.n === 1 ? "its" : "their"} earlier result${g.n === 1 ? "" : "s"}` : "not judged";
    return `needs a live app: ${count} (${listed}): ${g.why}; ${result}`;
  });
}

function describe(results: readonly TrialRejudged[], runId: string): string {
  const lines: string[] = [];
  for (const r of results) {
    if (r.skipped) {
      lines.push(`${r.trial}  ${r.task}: not re-judged: ${r.skipped}`);
      continue;
    }
    const change = r.before === r.after ? `${r.after} (unchanged)` : `${r.before} -> ${r.after}`;
    lines.push(`${r.trial}  ${r.task}: ${change}`);
  }
  const live = liveCheckLines(results);
  if (live.length > 0) lines.push("", ...live);
  const done = results.filter((r) => !r.skipped);
  const changed = done.filter((r) => r.before !== r.after).length;
  lines.push(
    "",
    `re-judged ${done.length} of ${results.length} trial${results.length === 1 ? "" : "s"} of run ${runId} with today's checks: ${changed} verdict${changed === 1 ? "" : "s"} changed; no model turn made`,
  );
  return `${lines.join("\n")}\n`;
}

async function execute(parsed: ParsedCommand<typeof OPTIONS>, io: CommandIO): Promise<number> {
  const { values, positionals } = parsed;
  const store = openStore(resolve(io.cwd, values.db));
  let launched: Promise<Browser> | null = null;
  try {
    const runRecord = store.getRun(positionals[0]!);
    const wanted = values.task ?? [];
    let trials = store.trials(runRecord.id);
    if (wanted.length > 0) {
      const unknown = wanted.filter((id) => !trials.some((t) => t.taskId === id));
      if (unknown.length > 0)
        throw new UmpireError(
          "usage",
          `run ${runRecord.id} has no trials of task ${unknown.join(", ")}`,
          `tasks in it: ${[...new Set(trials.map((t) => t.taskId))].join(", ")}`,
        );
      trials = trials.filter((t) => wanted.includes(t.taskId));
    }
    const tasks = await todaysTasks(trials, io, parsed.config, { run: runRecord, dir: values["pack-dir"] });
    const browser = () => (launched ??= launchChromium({}, io.env));
    const results: TrialRejudged[] = [];
    for (const trial of trials) {
      const task = tasks.get(trial.taskId);
      const why = unjudgeable(trial, task);
      if (why)
        results.push({
          trial: trial.id,
          task: trial.taskId,
          before: trial.verdict,
          after: trial.verdict,
          liveChecks: [],
          skipped: why,
        });
      else results.push(await rejudgeOne(store, trial, task!, runRecord.folder ?? ".", browser, io));
    }
    if (values.json) io.stdout.write(`${JSON.stringify({ run: runRecord.id, trials: results }, null, 2)}\n`);
    else io.stdout.write(describe(results, runRecord.id));
    return EXIT.ok;
  } finally {
    if (launched) await (await (launched as Promise<Browser>)).close().catch(() => undefined);
    store.close();
  }
}
