/**
 * The reporters of `--reporter NAME[:FILE]` on `run` and `show`: one `Reporter` interface, one
 * typed name -> factory map for the built-in six, and any other name loaded as a module from the
 * user's project (a path such as ./my-reporter.mjs, or a package installed there), as
 * Playwright's `createReporters`/`loadReporter` and Vitest's `ReportersMap` do. docs/reporting.md
 * ("Reporters") documents the interface and a custom reporter.
 *
 * A reporter has two kinds of hooks: the run's live hooks (`onRunBegin` ... `onRunEnd`, called
 * while `umpire run` happens, isolated by src/runner/schedule/run-hooks.ts' multiplexer) and `onStoredRun`,
 * called once the run is stored (the end of `umpire run`; `umpire show` calls only this one).
 * - `list`, `dot`: the terminal's progress (stderr while a run happens, then the summary on stdout);
 * - `json`, `junit`, `markdown`: written from the stored run, to FILE, or to stdout when no file
 *   is given (then they are all stdout carries, so it stays parseable);
 * - `html`: the static report, in FILE as its folder (default: the report's usual folder).
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { writeOutputFile } from "./output-file.js";
import { UmpireError } from "../errors.js";
import type { PriceBook } from "../pricing.js";
import { reportedCost } from "../report/cost.js";
import { writeRunReport } from "../report/html/writer.js";
import { junitXml } from "../report/junit.js";
import { runSummaryMarkdown } from "../report/run-summary.js";
import { runToJson, trialToJson, type RunJson } from "../report/trial-json.js";
import type { RunHooks } from "../runner/schedule/run-hooks.js";
import type { CheckRecord, RunRecord, TrialRecord } from "../store/records.js";
import type { Store } from "../store/store.js";
import { didYouMean } from "../task/suggest.js";
import type { CommandIO } from "./io.js";
import {
  createDotProgress,
  createLineProgress,
  createLiveView,
  isLiveTerminal,
  type ProgressStream,
} from "./progress.js";

/** A stored run, as `onStoredRun` gets it. */
export interface StoredRun {
  /** The run as `--reporter json` writes it: its fields and every trial with its checks. */
  json: RunJson;
  record: RunRecord;
  trials: { trial: TrialRecord; checks: CheckRecord[] }[];
  store: Store;
  prices: PriceBook;
}

/** Every reporter, built-in or the user's: the run's live hooks, and the stored run once it is written. */
export interface Reporter extends RunHooks {
  /** Returns a line saying where the output went (printed after the summary), or nothing. Synchronous. */
  onStoredRun?(run: StoredRun): string | void;
}

/** What a custom reporter's default export gets: FILE of `--reporter NAME:FILE` (absolute), and the working folder. */
export interface CustomReporterOptions {
  file?: string;
  cwd: string;
}

/** What a built-in's factory gets: the custom options and the command's streams. */
export interface ReporterOptions extends CustomReporterOptions {
  io: Pick<CommandIO, "stdout" | "stderr" | "env">;
}

/** Where a built-in writes: the terminal (no file), stdout unless given a file, or a folder. */
type Destination = "terminal" | "stdout-or-file" | "folder";

interface BuiltinReporter {
  destination: Destination;
  create(options: ReporterOptions): Reporter;
}

/** A stored-run reporter whose text goes to its file, else to stdout. */
function textReporter(name: string, render: (run: StoredRun) => string): BuiltinReporter {
  return {
    destination: "stdout-or-file",
    create: ({ file, io }) => ({
      onStoredRun(run) {
        const text = render(run);
        if (!file) return void io.stdout.write(text);
        writeOutputFile(file, text, `--reporter ${name}:${file}`);
        return `${name}: ${file}`;
      },
    }),
  };
}

/** The list view: live on a terminal, lines (with a heartbeat) in a log. */
function listProgress({ io }: ReporterOptions): Reporter {
  const stream = io.stderr as ProgressStream;
  if (isLiveTerminal(stream, io.env)) return createLiveView(stream);
  // UMPIRE_HEARTBEAT_MS shortens the 30 s heartbeat (tests; a CI that kills jobs quiet for less).
  const heartbeat = Number(io.env.UMPIRE_HEARTBEAT_MS);
  return createLineProgress(stream, Number.isFinite(heartbeat) && heartbeat > 0 ? { heartbeatMs: heartbeat } : {});
}

export const BUILTIN_REPORTERS = {
  list: { destination: "terminal", create: listProgress },
  dot: { destination: "terminal", create: ({ io }) => createDotProgress(io.stderr as ProgressStream) },
  json: textReporter("json", (run) => `${JSON.stringify(run.json, null, 2)}\n`),
  junit: textReporter("junit", (run) => junitXml([{ name: run.record.id, trials: run.trials }])),
  markdown: textReporter("markdown", (run) => runSummaryMarkdown(run.record, run.trials)),
  html: {
    destination: "folder",
    create: ({ file, cwd }) => ({
      onStoredRun: (run) =>
        `report: ${
          writeRunReport(run.store, run.record.id, { prices: run.prices, cwd, ...(file ? { out: file } : {}) })
            .indexPath
        }`,
    }),
  },
} as const satisfies Record<string, BuiltinReporter>;

export type ReporterName = keyof typeof BUILTIN_REPORTERS;
export const REPORTER_NAMES = Object.keys(BUILTIN_REPORTERS) as ReporterName[];

export interface ReporterSpec {
  /** A built-in name, or the module's name as given. */
  name: string;
  /** Resolved against the working directory; absent: the terminal/stdout (html: its default folder). */
  file?: string;
  /** A custom reporter: the module's resolved path. */
  module?: string;
}

/**
 * What the terminal gets: the progress kind (none under --quiet or a stdout reporter) and
 * whether the summary table prints; and the reporters.
 */
export interface OutputPlan {
  reporters: ReporterSpec[];
  progress: "list" | "dot" | null;
  /** False when a json/junit/markdown reporter owns stdout. */
  summary: boolean;
  /** The custom reporters, created. */
  custom: Reporter[];
}

const isBuiltin = (name: string): name is ReporterName => Object.hasOwn(BUILTIN_REPORTERS, name);
const destinationOf = (spec: ReporterSpec): Destination | "module" =>
  isBuiltin(spec.name) ? BUILTIN_REPORTERS[spec.name].destination : "module";

/** The module a non-built-in name means, from the working folder: a path, or a package installed there; else null. */
function resolveModule(name: string, cwd: string): string | null {
  if (name.startsWith(".") || isAbsolute(name)) {
    const path = resolve(cwd, name);
    if (existsSync(path)) return path;
    throw new UmpireError(
      "usage",
      `--reporter ${name}: no such file ${path}`,
      "give the module's path from the working folder",
    );
  }
  try {
    return createRequire(join(cwd, "package.json")).resolve(name);
  } catch {
    return null;
  }
}

function parseSpec(value: string, cwd: string): ReporterSpec {
  const colon = value.indexOf(":");
  const name = colon < 0 ? value : value.slice(0, colon);
  const file = colon < 0 ? undefined : value.slice(colon + 1);
  const module = isBuiltin(name) ? undefined : resolveModule(name, cwd);
  if (!isBuiltin(name) && !module) {
    const hint =
      didYouMean(name, REPORTER_NAMES) ??
      "a custom reporter is a module path (./my-reporter.mjs) or a package installed here";
    throw new UmpireError(
      "usage",
      `--reporter ${JSON.stringify(value)}: unknown reporter '${name}', expected one of ${REPORTER_NAMES.join(", ")}` +
        " or a module",
      hint,
    );
  }
  if (file === "")
    throw new UmpireError(
      "usage",
      `--reporter ${value}: the file after ':' is empty`,
      `write --reporter ${name} for stdout, or --reporter ${name}:FILE`,
    );
  if (file !== undefined && isBuiltin(name) && BUILTIN_REPORTERS[name].destination === "terminal") {
    throw new UmpireError(
      "usage",
      `--reporter ${value}: ${name} writes to the terminal and takes no file`,
      `use --reporter json:FILE, junit:FILE or markdown:FILE for a file`,
    );
  }
  return { name, ...(file !== undefined ? { file: resolve(cwd, file) } : {}), ...(module ? { module } : {}) };
}

/**
 * Loads a custom reporter: the module's default export, a class (constructed) or a function
 * (called), given the reporter's options; what it returns has the hooks of `Reporter`.
 */
async function loadReporter(spec: ReporterSpec, options: CustomReporterOptions): Promise<Reporter> {
  const fix = "export default a class or a function taking ({ file, cwd }) that returns the hooks (docs/reporting.md)";
  let exported: unknown;
  try {
    exported = ((await import(pathToFileURL(spec.module!).href)) as { default?: unknown }).default;
  } catch (error) {
    throw new UmpireError("usage", `--reporter ${spec.name}: cannot load ${spec.module} (${String(error)})`, fix);
  }
  if (typeof exported !== "function")
    throw new UmpireError(
      "usage",
      `--reporter ${spec.name}: ${spec.module} has no default export to make a reporter with`,
      fix,
    );
  const isClass = /^class\b/.test(Function.prototype.toString.call(exported));
  type Make = (o: CustomReporterOptions) => unknown;
  const made = (
    isClass ? new (exported as new (o: CustomReporterOptions) => unknown)(options) : (exported as Make)(options)
  ) as Reporter;
  if (!made || typeof made !== "object")
    throw new UmpireError("usage", `--reporter ${spec.name}: its default export returned no reporter object`, fix);
  return made;
}

/**
 * Parses `--reporter` values (and `--json`, which is `--reporter json`) and loads the custom
 * ones. Throws `usage` for an unknown name, a file on a terminal reporter, two reporters both
 * wanting stdout, or a module that does not load.
 */
export async function planOutputs(
  values: string[],
  opts: { json?: boolean; quiet?: boolean; cwd: string },
): Promise<OutputPlan> {
  const reporters = values.map((value) => parseSpec(value, opts.cwd));
  if (opts.json && !reporters.some((r) => r.name === "json" && !r.file)) reporters.push({ name: "json" });
  const toStdout = reporters.filter((r) => !r.file && destinationOf(r) === "stdout-or-file");
  if (toStdout.length > 1) {
    throw new UmpireError(
      "usage",
      `${toStdout.map((r) => r.name).join(" and ")} would both write to stdout`,
      `give all but one a file: --reporter ${toStdout[1]!.name}:FILE`,
    );
  }
  const terminal = reporters.filter((r) => destinationOf(r) === "terminal");
  if (terminal.length > 1)
    throw new UmpireError("usage", `--reporter list and dot both draw the progress`, "keep one of them");
  // With only file reporters (or none), the terminal still shows the run as it happens.
  const progress = opts.quiet
    ? null
    : terminal.length
      ? (terminal[0]!.name as "list" | "dot")
      : toStdout.length
        ? null
        : "list";
  const custom: Reporter[] = [];
  for (const spec of reporters.filter((r) => r.module))
    custom.push(await loadReporter(spec, { ...(spec.file ? { file: spec.file } : {}), cwd: opts.cwd }));
  return { reporters, progress, summary: toStdout.length === 0, custom };
}

/** The reporters `umpire run` calls while it runs: the progress view on stderr, then the custom ones. */
export function liveReporters(plan: OutputPlan, io: CommandIO): Reporter[] {
  const progress = plan.progress ? [BUILTIN_REPORTERS[plan.progress].create({ cwd: io.cwd, io })] : [];
  return [...progress, ...plan.custom];
}

/** The stored run as `onStoredRun` gets it, costs priced with the run's price book. */
function storedRun(store: Store, runId: string, prices: PriceBook): StoredRun {
  const record = store.getRun(runId);
  const trials = store
    .trials(record.id)
    .map((t) => ({ trial: { ...t, costUsd: reportedCost(t, prices) }, checks: store.checks(t.id) }));
  return {
    json: runToJson(
      record,
      trials.map((d) => trialToJson(d.trial, d.checks)),
    ),
    record,
    trials,
    store,
    prices,
  };
}

/**
 * Calls `onStoredRun` of every json/junit/markdown/html reporter and every custom one. Returns
 * the lines worth telling the user (where each output went), for stderr or stdout as the caller decides.
 */
export function writeRunOutputs(
  plan: OutputPlan,
  store: Store,
  runId: string,
  prices: PriceBook,
  io: CommandIO,
): string[] {
  const builtins = plan.reporters
    .filter((r) => isBuiltin(r.name) && BUILTIN_REPORTERS[r.name as ReporterName].destination !== "terminal")
    .map(
      (r): Reporter =>
        BUILTIN_REPORTERS[r.name as ReporterName].create({ ...(r.file ? { file: r.file } : {}), cwd: io.cwd, io }),
    );
  const wanted = [...builtins, ...plan.custom].filter((r) => r.onStoredRun);
  if (wanted.length === 0) return [];
  const run = storedRun(store, runId, prices);
  const notes: string[] = [];
  for (const reporter of wanted) {
    let note: unknown;
    try {
      note = reporter.onStoredRun!(run);
    } catch (error) {
      if (error instanceof UmpireError) throw error;
      throw new UmpireError(
        "input",
        `a custom reporter failed in onStoredRun: ${String(error)}`,
        "fix the reporter module (the run is stored: umpire show RUN --reporter ... runs it again)",
      );
    }
    if (note instanceof Promise) note.catch(() => undefined);
    if (note instanceof Promise)
      throw new UmpireError(
        "input",
        "a custom reporter's onStoredRun returned a promise",
        "write its output synchronously (fs.writeFileSync)",
      );
    if (typeof note === "string" && note) notes.push(note);
  }
  return notes;
}
