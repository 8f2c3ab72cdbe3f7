/**
 * Problems as people read them: one line each (`tasks/x.yaml:12: checks[2].path: required
 * (fix: ...)`), and the task table `umpire validate` prints.
 */
import Table from "cli-table3";
import { oneLine } from "../safety/terminal.js";
import type { Problem } from "./problem.js";

/** `tasks/x.yaml:12: checks[2].path: required (fix: add path)`; warnings say so after the location. */
export function formatProblem(problem: Problem): string {
  const location = problem.line !== undefined ? `${problem.file}:${problem.line}` : problem.file;
  const level = problem.severity === "warning" ? "warning: " : "";
  const where = problem.path ? `${problem.path}: ` : "";
  const fix = problem.fix ? ` (fix: ${problem.fix})` : "";
  // Messages quote the file's own text (titles, values): one line each, controls shown.
  return oneLine(`${location}: ${level}${where}${problem.message}${fix}`);
}

/** One line per problem, each prefixed with `indent`. */
export function formatProblems(problems: readonly Problem[], indent = ""): string {
  return problems.map((p) => `${indent}${formatProblem(p)}`).join("\n");
}

export interface TaskRow {
  id: string;
  title: string;
  tools: string[];
  checks: number;
  file: string;
  errors: number;
  warnings: number;
}

/** The status column: `ok`, `ok (1 warning)`, `invalid (2 errors)`. */
export function statusOf(row: Pick<TaskRow, "errors" | "warnings">): string {
  const count = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  if (row.errors > 0)
    return `invalid (${count(row.errors, "error")}${row.warnings ? `, ${count(row.warnings, "warning")}` : ""})`;
  return row.warnings > 0 ? `ok (${count(row.warnings, "warning")})` : "ok";
}

/** The task table. No colours: the output is read in terminals, logs and tests alike. */
export function formatTaskTable(rows: readonly TaskRow[]): string {
  const table = new Table({
    head: ["id", "title", "tools", "checks", "status"],
    // compact: no rule between rows, only under the head; long titles and tool lists wrap.
    style: { head: [], border: [], compact: true },
    colWidths: [null, 40, 34, null, null],
    wordWrap: true,
  });
  for (const row of rows)
    table.push([oneLine(row.id), oneLine(row.title), row.tools.join(" "), String(row.checks), statusOf(row)]);
  return table.toString();
}
