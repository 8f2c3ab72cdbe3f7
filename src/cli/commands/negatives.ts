/**
 * `umpire negatives [tasks...]`: derives known-wrong trajectories from each task's gold, plays them
 * as the self-test plays negatives, writes the ones the checks catch into the task file and names
 * the ones no check catches as check gaps. Exit 0 when every gold passed (gaps are findings to act
 * on, printed), 1 when a gold did not pass, 2 on bad input.
 */
import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { CUSTOM_CHECK_RULES } from "../../checks/custom-rules.js";
import { OPTIONS as O } from "../../config/options.js";
import { projectTargets, type ProjectTargets } from "../../config/project.js";
import { oneLine } from "../../safety/terminal.js";
import { openStore } from "../../store/open.js";
import { loadTasksOrThrowAsync } from "../../task/loader.js";
import type { Task } from "../../task/schema.js";
import type { ParsedCommand } from "../args.js";
import type { PageMark } from "../../authoring/page-marks-check.js";
import { defineCommand } from "../command.js";
import { EXIT } from "../exit-codes.js";
import type { CommandIO } from "../io.js";
import { negativesReport, runNegatives, writeNegatives, type TaskNegatives } from "../../authoring/negatives.js";

export const NEGATIVES_OPTIONS = {
  "dry-run": { kind: "boolean", help: "report what the checks catch and miss; write nothing into the task files" },
  concurrency: { ...O.concurrency, defaultText: "the number of cores", help: "trials at once" },
  db: { ...O.db, help: "the results database the probes' run (tagged self-test) is stored in" },
  out: { ...O.out, help: "where the probes' trial folders go" },
  config: {
    ...O.config,
    help: "the config file declaring targets (default: umpire.config.* in the working folder, else beside the tasks)",
  },
} as const;

export const run = defineCommand({
  name: "negatives",
  options: NEGATIVES_OPTIONS,
  positionals: [{ name: "tasks", variadic: true }],
  description: `Derives known-wrong trajectories from each task's gold (drop the last state-changing step, stop
before the last click, aim a click at a sibling mark or a control on the gold's page, click both,
type a near-miss value), plays them on the
reference model as the self-test plays negatives, writes the ones a required check catches into the
task's negatives, and names the ones no check catches as check gaps. Drafts are accepted.`,
  run: execute,
});

export interface NegativesRun {
  tasks: Task[];
  project: ProjectTargets;
  db: string;
  out: string;
  concurrency: number;
  write: boolean;
  /** The controls on each gold's page, when the caller surveyed them already (import). */
  pageMarks?: ReadonlyMap<string, readonly PageMark[]>;
  /** Told every task's sorted mutations (import marks each check with the probes that failed it). */
  onTasks?: (tasks: TaskNegatives[]) => void;
}

/** Runs and reports the negatives of these tasks; shared with `umpire import playwright --negatives`. */
export async function negativesFor(run: NegativesRun, io: CommandIO): Promise<number> {
  io.stderr.write(
    `umpire negatives: mutations of the gold of ${run.tasks.length} task${run.tasks.length === 1 ? "" : "s"} on the reference model\n`,
  );
  const store = openStore(resolve(io.cwd, run.db));
  let outcome: Awaited<ReturnType<typeof runNegatives>>;
  try {
    outcome = await runNegatives({
      tasks: run.tasks,
      config: run.project,
      store,
      outDir: resolve(io.cwd, run.out),
      concurrency: run.concurrency,
      pageMarks: run.pageMarks,
      signal: io.signal,
      env: io.env,
      onProbe: (line) => io.stderr.write(`${oneLine(line)}\n`),
    });
  } finally {
    store.close();
  }
  for (const t of outcome.tasks) {
    io.stdout.write(`${negativesReport(t).map(oneLine).join("\n")}\n`);
    if (!run.write || !t.goldPassed) continue;
    const written = writeNegatives(t, io.cwd);
    if (written.length) io.stdout.write(`  wrote ${written.join(", ")} into ${t.task.file}\n`);
  }
  run.onTasks?.(outcome.tasks);
  io.stdout.write(`probes stored as run ${outcome.runId} (tagged self-test): umpire show ${outcome.runId}\n`);
  if (io.signal.aborted) return EXIT.interrupted;
  return outcome.tasks.every((t) => t.goldPassed) ? EXIT.ok : EXIT.failed;
}

async function execute(parsed: ParsedCommand<typeof NEGATIVES_OPTIONS>, io: CommandIO): Promise<number> {
  const project = projectTargets(parsed.config, parsed.positionals, io.cwd);
  const tasks = await loadTasksOrThrowAsync(
    parsed.positionals,
    { cwd: io.cwd, targets: project.targets, allowDrafts: true },
    CUSTOM_CHECK_RULES,
  );
  return negativesFor(
    {
      tasks,
      project,
      db: parsed.values.db,
      out: parsed.values.out,
      concurrency: parsed.values.concurrency ?? availableParallelism(),
      write: parsed.values["dry-run"] !== true,
    },
    io,
  );
}
