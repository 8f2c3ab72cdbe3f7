/**
 * Choosing what runs: `--grep`/`--grep-invert` on task id and title, `--task-tag` on the tags task
 * files declare, and `--last-failed`/`--failed-in` on what did not pass in a stored run. Filters
 * narrow the plan before trial ids are given, so a filtered run's ids count from 0 like any run's,
 * and every shard of it filters the same way.
 */
import { UmpireError } from "../../errors.js";
import type { PlannedTrial } from "../../runner/schedule/trial-plan.js";
import { SELF_TEST_TAG, trialId } from "../../vocabulary.js";
import type { Store } from "../../store/store.js";
import type { Task } from "../../task/schema.js";
import { compileUserRegex, userRegexProblem, type UserRegex } from "../../task/user-regex.js";

export interface TaskFilter {
  grep?: string[];
  "grep-invert"?: string[];
  "task-tag"?: string[];
}

/** A `--grep` pattern on RE2 (linear time, like every user pattern): a bad one is a usage error. */
function compileFlag(flag: string, source: string): UserRegex {
  const problem = userRegexProblem(source);
  if (problem)
    throw new UmpireError(
      "usage",
      `--${flag} ${JSON.stringify(source)}: ${problem}`,
      `write an RE2 pattern, e.g. --${flag} 'note-bb0(17|42)'`,
    );
  return compileUserRegex(source);
}

/** True when the task's id or title matches. */
const matches = (re: UserRegex, task: Task) => re.test(task.id) || re.test(task.title);

/** Whether any filter option was given (the message for "nothing selected" names them). */
export function hasTaskFilter(filter: TaskFilter): boolean {
  return Boolean(filter.grep?.length || filter["grep-invert"]?.length || filter["task-tag"]?.length);
}

/**
 * The tasks the filters keep, in their order. `--grep` and `--task-tag` keep a task that matches
 * any of their values (both given: it must pass both); `--grep-invert` drops a task that matches any.
 */
export function filterTasks(tasks: readonly Task[], filter: TaskFilter): Task[] {
  const keep = (filter.grep ?? []).map((g) => compileFlag("grep", g));
  const drop = (filter["grep-invert"] ?? []).map((g) => compileFlag("grep-invert", g));
  const tags = new Set(filter["task-tag"] ?? []);
  return tasks.filter(
    (task) =>
      (keep.length === 0 || keep.some((re) => matches(re, task))) &&
      !drop.some((re) => matches(re, task)) &&
      (tags.size === 0 || task.tags.some((t) => tags.has(t))),
  );
}

/** The usage error for filters that leave no task, naming what the filters saw. */
export function nothingSelected(tasks: readonly Task[], filter: TaskFilter): UmpireError {
  const given = [
    ...(filter.grep ?? []).map((g) => `--grep ${JSON.stringify(g)}`),
    ...(filter["grep-invert"] ?? []).map((g) => `--grep-invert ${JSON.stringify(g)}`),
    ...(filter["task-tag"] ?? []).map((t) => `--task-tag ${t}`),
  ].join(" ");
  const tags = [...new Set(tasks.flatMap((t) => t.tags))].sort();
  return new UmpireError(
    "usage",
    `${given} selects none of the ${tasks.length} tasks`,
    `patterns match task ids and titles (umpire validate lists them)${tags.length ? `; the declared tags are: ${tags.join(", ")}` : ""}`,
  );
}

/** The task x agent pairs of a stored run that did not pass, and what the run was. */
export interface FailedPairs {
  runId: string;
  /** `taskId` + U+0000 + `agentLabel`. */
  pairs: Set<string>;
  /** How many trials of the run there were; how many did not pass. */
  trials: number;
  notPassed: number;
}

export const pairKey = (taskId: string, agentLabel: string) => `${taskId}\u0000${agentLabel}`;

/**
 * Task x agent pairs of `runRef` where some trial did not pass: failed, error, cancelled, or never
 * run (a run stopped by --max-failures or Ctrl-C). A pair with one passing repeat and one failing
 * is re-run whole: its repeats belong together for pass@k.
 */
export function failedPairs(store: Store, runRef: string): FailedPairs {
  const run = refuseSelfTestRun(store.getRun(runRef), "--failed-in");
  const trials = store.trials(run.id);
  const notPassed = trials.filter((t) => t.verdict !== "passed");
  return {
    runId: run.id,
    pairs: new Set(notPassed.map((t) => pairKey(t.taskId, t.agentLabel))),
    trials: trials.length,
    notPassed: notPassed.length,
  };
}

/** The planned trials of the given pairs only, renumbered so ids stay dense and deterministic. */
export function keepPairs(trials: readonly PlannedTrial[], pairs: ReadonlySet<string>, runId: string): PlannedTrial[] {
  return trials
    .filter((t) => pairs.has(pairKey(t.task.id, t.agent.label)))
    .map((t, seq) => ({ ...t, seq, id: trialId(runId, seq) }));
}

/**
 * A self-test's run holds probes (answer-now, negatives), which fail on purpose: re-running or
 * resuming them as an evaluation means nothing. `umpire validate --self-test` runs them again.
 */
export function refuseSelfTestRun<R extends { id: string; tags: string[] }>(run: R, flag: string): R {
  if (!run.tags.includes(SELF_TEST_TAG)) return run;
  throw new UmpireError(
    "usage",
    `run ${run.id} is a self-test's (tagged ${SELF_TEST_TAG}): ${flag} does not run its probes as an evaluation`,
    "umpire validate --self-test runs them again",
  );
}
