/**
 * `--reporter NAME[:FILE]` on `run` and `show`: which outputs a run gets, and where each goes.
 * - `list`, `dot`: the terminal's (stderr while a run happens, then the summary on stdout);
 * - `json`, `junit`, `markdown`: written from the stored run when it ends, to FILE, or to stdout
 *   when no file is given (then they are all stdout carries, so it stays parseable);
 * - `html`: the static report, in FILE as its folder (default: the report's usual folder).
 * One place decides these rules, so `run` and `show` agree on them.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { UmpireError, messageOf } from "../errors.js";
import { reportedCost } from "../report/cost.js";
import { writeRunReport } from "../report/html/writer.js";
import { junitXml } from "../report/junit.js";
import type { PriceBook } from "../pricing.js";
import { runSummaryMarkdown } from "../report/run-summary.js";
import { runToJson, trialToJson } from "../report/trial-json.js";
import type { Store } from "../store/store.js";
import { didYouMean } from "../task/suggest.js";
import type { CommandIO } from "./io.js";

export const REPORTER_NAMES = ["list", "dot", "json", "junit", "markdown", "html"] as const;
export type ReporterName = (typeof REPORTER_NAMES)[number];

export interface ReporterSpec {
  name: ReporterName;
  /** Resolved against the working directory; absent: the terminal/stdout (html: its default folder). */
  file?: string;
}

/** What the terminal gets: the progress kind (none under --quiet or a stdout reporter) and whether the summary table prints. */
export interface OutputPlan {
  reporters: ReporterSpec[];
  progress: "list" | "dot" | null;
  /** False when a json/junit/markdown reporter owns stdout. */
  summary: boolean;
}

/**
 * Parses `--reporter` values (and `--json`, which is `--reporter json`). Throws `usage` for an
 * unknown name, a file on a terminal reporter, or two reporters both wanting stdout.
 */
export function planOutputs(values: string[], opts: { json?: boolean; quiet?: boolean; cwd: string }): OutputPlan {
  const reporters: ReporterSpec[] = values.map((value) => {
    const colon = value.indexOf(":");
    const name = colon < 0 ? value : value.slice(0, colon);
    const file = colon < 0 ? undefined : value.slice(colon + 1);
    if (!(REPORTER_NAMES as readonly string[]).includes(name)) {
      throw new UmpireError("usage", `--reporter ${JSON.stringify(value)}: unknown reporter '${name}', expected one of ${REPORTER_NAMES.join(", ")}`, didYouMean(name, REPORTER_NAMES) ?? "e.g. --reporter junit:results/junit.xml");
    }
    if (file === "") throw new UmpireError("usage", `--reporter ${value}: the file after ':' is empty`, `write --reporter ${name} for stdout, or --reporter ${name}:FILE`);
    if (file !== undefined && (name === "list" || name === "dot")) {
      throw new UmpireError("usage", `--reporter ${value}: ${name} writes to the terminal and takes no file`, `use --reporter json:FILE, junit:FILE or markdown:FILE for a file`);
    }
    return { name: name as ReporterName, ...(file !== undefined ? { file: resolve(opts.cwd, file) } : {}) };
  });
  if (opts.json && !reporters.some((r) => r.name === "json" && !r.file)) reporters.push({ name: "json" });
  const toStdout = reporters.filter((r) => !r.file && (r.name === "json" || r.name === "junit" || r.name === "markdown"));
  if (toStdout.length > 1) {
    throw new UmpireError("usage", `${toStdout.map((r) => r.name).join(" and ")} would both write to stdout`, `give all but one a file: --reporter ${toStdout[1]!.name}:FILE`);
  }
  const terminal = reporters.filter((r) => r.name === "list" || r.name === "dot");
  if (terminal.length > 1) throw new UmpireError("usage", `--reporter list and dot both draw the progress`, "keep one of them");
  // With only file reporters (or none), the terminal still shows the run as it happens.
  const progress = opts.quiet ? null : terminal.length ? (terminal[0]!.name as "list" | "dot") : toStdout.length ? null : "list";
  return { reporters, progress, summary: toStdout.length === 0 };
}

/**
 * Writes every json/junit/markdown/html reporter from the stored run. Returns the lines worth
 * telling the user (where each file went), for stderr or stdout as the caller decides.
 */
export function writeRunOutputs(plan: OutputPlan, store: Store, runId: string, prices: PriceBook, io: CommandIO): string[] {
  const notes: string[] = [];
  const wanted = plan.reporters.filter((r) => r.name !== "list" && r.name !== "dot");
  if (wanted.length === 0) return notes;
  const run = store.getRun(runId);
  const details = store.trials(run.id).map((t) => ({ trial: { ...t, costUsd: reportedCost(t, prices) }, checks: store.checks(t.id) }));
  for (const reporter of wanted) {
    if (reporter.name === "html") {
      const { indexPath } = writeRunReport(store, run.id, { prices, cwd: io.cwd, ...(reporter.file ? { out: reporter.file } : {}) });
      notes.push(`report: ${indexPath}`);
      continue;
    }
    const text =
      reporter.name === "json"
        ? `${JSON.stringify(runToJson(run, details.map((d) => trialToJson(d.trial, d.checks))), null, 2)}\n`
        : reporter.name === "junit"
          ? junitXml([{ name: run.id, trials: details }])
          : runSummaryMarkdown(run, details);
    if (!reporter.file) {
      io.stdout.write(text);
      continue;
    }
    try {
      mkdirSync(dirname(reporter.file), { recursive: true });
      writeFileSync(reporter.file, text);
    } catch (error) {
      throw new UmpireError("input", `--reporter ${reporter.name}:${reporter.file}: cannot write the file (${messageOf(error)})`, "choose a writable path");
    }
    notes.push(`${reporter.name}: ${reporter.file}`);
  }
  return notes;
}
