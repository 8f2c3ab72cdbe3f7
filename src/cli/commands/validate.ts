/**
 * `umpire validate [paths...] [--json]`: loads task files and prints a table of the tasks and
 * every problem. Exit 0 when all are valid (warnings allowed), 2 otherwise.
 */
import { parseArgs } from "node:util";
import { UmpireError } from "../../errors.js";
import { EXIT } from "../exit-codes.js";
import type { Command } from "../io.js";
import { formatProblems, formatTaskTable, statusOf, type TaskRow } from "../../task/format-problems.js";
import { loadTasks, type LoadResult } from "../../task/loader.js";

const USAGE = `usage: umpire validate [paths...] [--json]

Checks task files (files, folders or task ids; default tasks/) and prints each task and its problems.
Exit 0 when every task is valid, 2 otherwise.

options:
  --json        print the result as JSON
  --self-test   also run each task's reference and negatives against the fixture (needs the run loop)
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
      options: { json: { type: "boolean" }, "self-test": { type: "boolean" }, help: { type: "boolean", short: "h" } },
    });
  } catch (error) {
    throw new UmpireError("usage", error instanceof Error ? error.message : String(error), "see 'umpire validate --help'");
  }
  if (parsed.values.help) {
    io.stdout.write(USAGE);
    return EXIT.ok;
  }

  const result = loadTasks(parsed.positionals, { cwd: io.cwd });
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
    // Placeholder until the run loop exists; the lead replaces this branch.
    io.stderr.write("umpire validate: self-test needs the run loop\n");
    return EXIT.usage;
  }
  return ok ? EXIT.ok : EXIT.usage;
};
