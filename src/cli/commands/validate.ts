/**
 * `umpire validate [paths...] [--json]`: loads task files and prints a table of the tasks and
 * every problem. Exit 0 when all are valid (warnings allowed), 2 otherwise.
 */
import { availableParallelism } from "node:os";
import { parseArgs } from "node:util";
import { UmpireError } from "../../errors.js";
import { EXIT } from "../exit-codes.js";
import type { Command } from "../io.js";
import { formatProblems, formatTaskTable, statusOf, type TaskRow } from "../../task/format-problems.js";
import { loadTasks, type LoadResult } from "../../task/loader.js";
import { loadProjectConfig } from "../../task/project-config.js";
import { terminalStyle } from "../../report/table-layout.js";
import { runSelfTest, selfTestTable } from "../self-test.js";

const USAGE = `usage: umpire validate [paths...] [--json]

Checks task files (files, folders or task ids; default tasks/) and prints each task and its problems.
Exit 0 when every task is valid, 2 otherwise.

options:
  --json        print the result as JSON
  --self-test   also prove each task sound on the reference model: its gold trajectory passes in
                both modes, answering "Done." at once fails, and every declared negative fails
                (exit 1 when a task is unsound)
  --concurrency N  trials at once during the self-test (default: the number of cores)
  --config FILE    the project config file declaring targets (default: umpire.config.yaml|json
                   beside the tasks, or in the working folder)
  -h, --help    show this help
`;

function rowsOf(result: LoadResult): TaskRow[] {
  return result.files.map((entry) => {
    const mine = result.problems.filter((p) => p.file === entry.file);
    return {
      id: entry.task?.id ?? entry.id ?? "?",
      title: entry.task?.title ?? "",
      tools: entry.task?.tools ?? [],
      checks: entry.task?.checks.length ?? 0,
      file: entry.file,
      errors: mine.filter((p) => p.severity === "error").length,
      warnings: mine.filter((p) => p.severity === "warning").length,
    };
  });
}

export const run: Command = async (argv, io) => {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { json: { type: "boolean" }, "self-test": { type: "boolean" }, concurrency: { type: "string" }, config: { type: "string" }, help: { type: "boolean", short: "h" } },
    });
  } catch (error) {
    throw new UmpireError("usage", error instanceof Error ? error.message : String(error), "see 'umpire validate --help'");
  }
  if (parsed.values.help) {
    io.stdout.write(USAGE);
    return EXIT.ok;
  }

  // Targets come from the project's config file (beside the tasks, or --config): tasks name them.
  const project = loadProjectConfig(parsed.positionals, io.cwd, parsed.values.config);
  const result = loadTasks(parsed.positionals, { cwd: io.cwd, targets: project.targets });
  const rows = rowsOf(result);
  const ok = !result.problems.some((p) => p.severity === "error");

  if (parsed.values.json) {
    const tasks = rows.map((row) => ({ ...row, status: statusOf(row) }));
    io.stdout.write(`${JSON.stringify({ ok, tasks, problems: result.problems }, null, 2)}\n`);
  } else {
    if (rows.length > 0) io.stdout.write(`${formatTaskTable(rows)}\n`);
    if (result.problems.length > 0) io.stdout.write(`\n${formatProblems(result.problems)}\n`);
    const errors = result.problems.filter((p) => p.severity === "error").length;
    const warnings = result.problems.length - errors;
    const valid = rows.filter((r) => r.errors === 0).length;
    io.stdout.write(`\n${valid} of ${rows.length} task file${rows.length === 1 ? "" : "s"} valid; ${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}\n`);
  }

  if (parsed.values["self-test"]) {
    if (!ok) {
      io.stderr.write("umpire validate: fix the task files first; the self-test runs only valid tasks\n");
      return EXIT.usage;
    }
    const concurrency = parsed.values.concurrency === undefined ? availableParallelism() : Number(parsed.values.concurrency);
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new UmpireError("usage", `--concurrency ${parsed.values.concurrency}: expected a whole number >= 1`, "e.g. --concurrency 2");
    io.stderr.write(`umpire validate: self-test of ${result.tasks.length} tasks on the reference model\n`);
    const results = await runSelfTest({
      tasks: result.tasks,
      config: project,
      concurrency,
      signal: io.signal,
      env: io.env,
      onTrialEnd: (end) => io.stderr.write(`  ${end.trial.task.id} [${end.trial.agent.label}]: ${end.verdict} (${end.stopReason})\n`),
    });
    const sound = results.every((r) => r.ok);
    if (parsed.values.json) io.stdout.write(`${JSON.stringify({ sound, results }, null, 2)}\n`);
    else io.stdout.write(`\n${selfTestTable(results, terminalStyle(io.stdout, io.env))}\n${sound ? "every task is sound" : "some tasks are unsound: their checks cannot tell right from wrong"}\n`);
    return sound ? EXIT.ok : EXIT.failed;
  }
  return ok ? EXIT.ok : EXIT.usage;
};
