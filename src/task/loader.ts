/**
 * Loads task files: read -> parse YAML (keeping lines) -> zod-validate -> normalize -> named
 * rules. Every problem in every file is reported at once, each with its file, line, dotted path
 * and a fix. Bad input never throws; only an unreadable folder argument does.
 *
 * The named rules judge a resolved task, so they run once a file passes the schema; a file
 * with schema errors reports those (and `known-tools`, which reads the raw data) first.
 */
import fs from "node:fs";
import type { z } from "zod";
import path from "node:path";
import { UmpireError, messageOf } from "../errors.js";
import { formatProblems } from "./format-problems.js";
import { normalizeTask } from "./normalize.js";
import { dottedPath, hasErrors, type Problem } from "./problem.js";
import { DEFAULT_RULE_CONTEXT, type RuleContext } from "./rule.js";
import { TASK_RULES, duplicateIds, knownToolsInRaw } from "./rules.js";
import type { RuleFinding } from "./problem.js";
import { targetCatalog, type TargetDecl } from "./target-decl.js";
import { TaskFileSchema, type Task } from "./schema.js";
import { parseYamlSource, type YamlSource } from "./yaml-source.js";
import { plainIssues } from "./zod-issues.js";

export interface LoadOptions {
  /** Folder that relative paths, task ids and the default `tasks/` resolve against. */
  cwd: string;
  /** Targets declared in the project's config file (the fixture is always known). */
  targets?: Readonly<Record<string, TargetDecl>>;
  /** Accept tasks still marked `draft: true` (`umpire validate --allow-drafts`). */
  allowDrafts?: boolean;
}

/**
 * A rule that must import code to judge a task: a custom check's module validates its own
 * options and declares the values it expects (src/checks/custom-rules.ts). It lives outside this
 * layer (the task layer imports no checks) and is handed in by the caller of `loadTasksAsync`.
 */
export interface ModuleTaskRule {
  name: string;
  check(task: Task): Promise<RuleFinding[]>;
}

/** One file that was read, valid or not: what `umpire validate` lists as a row. */
export interface LoadedFile {
  file: string;
  /** The id written in the file, when it has a text id. */
  id?: string;
  /** The resolved task when the file passed the schema (it may still break a rule). */
  task?: Task;
  /** True when the file has no error-severity problem. */
  valid: boolean;
}

export interface LoadResult {
  /** The tasks without errors (warnings allowed), in file order. */
  tasks: Task[];
  /** Every problem found, grouped by file, by line within a file. */
  problems: Problem[];
  files: LoadedFile[];
  /** The folders searched for task files (as given or shown, subfolders included): what "none found" names. */
  searched: string[];
}

const DEFAULT_FOLDER = "tasks";
const TASK_FILE = /\.ya?ml$/i;
const TASK_ID = /^[a-z0-9][a-z0-9-]*$/;

function displayPath(absolute: string, cwd: string): string {
  const relative = path.relative(cwd, absolute);
  return relative && !relative.startsWith("..") && !path.isAbsolute(relative) ? relative : absolute;
}

/** The project's config file sits beside tasks; it is not a task. */
export const CONFIG_FILE = /^umpire\.config\.(ya?ml|json)$/i;

/** Folders never searched for tasks: hidden ones (.git), installed packages. */
const SKIPPED_FOLDER = /^(\.|node_modules$)/;

/**
 * The task files of a folder and of its subfolders (`tasks/imported/` holds what `umpire import`
 * wrote), sorted; each folder searched is added to `searched`.
 */
function listFolder(folder: string, shown: string, searched: string[] = []): string[] {
  try {
    const entries = fs.readdirSync(folder, { withFileTypes: true });
    // A project folder (config file + tasks/) stands for its tasks: `umpire validate examples/todomvc`.
    if (
      entries.some((e) => e.isFile() && CONFIG_FILE.test(e.name)) &&
      entries.some((e) => e.isDirectory() && e.name === DEFAULT_FOLDER)
    ) {
      return listFolder(path.join(folder, DEFAULT_FOLDER), path.join(shown, DEFAULT_FOLDER), searched);
    }
    searched.push(shown);
    const files = entries
      .filter((entry) => entry.isFile() && TASK_FILE.test(entry.name) && !CONFIG_FILE.test(entry.name))
      .map((entry) => path.join(folder, entry.name));
    for (const sub of entries.filter((e) => e.isDirectory() && !SKIPPED_FOLDER.test(e.name)))
      files.push(...listFolder(path.join(folder, sub.name), path.join(shown, sub.name), searched));
    return files.sort();
  } catch (error) {
    if (error instanceof UmpireError) throw error;
    const reason = messageOf(error);
    throw new UmpireError(
      "input",
      `cannot read the task folder ${shown}: ${reason}`,
      "pass task files, folders or task ids that exist",
    );
  }
}

/** Finds the file of a task id: `tasks/<id>.yaml`, else any file in `tasks/` whose id is `<id>`. */
function findTaskById(id: string, cwd: string): string | undefined {
  const folder = path.join(cwd, DEFAULT_FOLDER);
  for (const ext of [".yaml", ".yml"]) {
    const candidate = path.join(folder, `${id}${ext}`);
    if (fs.existsSync(candidate)) return candidate;
  }
  if (!fs.existsSync(folder)) return undefined;
  return listFolder(folder, DEFAULT_FOLDER).find((file) => {
    const source = parseYamlSource(fs.readFileSync(file, "utf8"));
    return (source.data as { id?: unknown } | undefined)?.id === id;
  });
}

/** Expands the arguments into task files; arguments that name nothing become problems. */
function resolveArguments(
  args: readonly string[],
  cwd: string,
): { files: string[]; problems: Problem[]; searched: string[] } {
  const files: string[] = [];
  const problems: Problem[] = [];
  const searched: string[] = [];
  for (const arg of args.length > 0 ? args : [DEFAULT_FOLDER]) {
    const absolute = path.resolve(cwd, arg);
    const stat = fs.statSync(absolute, { throwIfNoEntry: false });
    if (stat?.isDirectory()) files.push(...listFolder(absolute, arg, searched));
    else if (stat?.isFile()) files.push(absolute);
    else if (args.length === 0)
      listFolder(absolute, arg); // throws: the default folder is missing
    else {
      const byId = TASK_ID.test(arg) ? findTaskById(arg, cwd) : undefined;
      if (byId) files.push(byId);
      else
        problems.push({
          file: arg,
          path: "",
          severity: "error",
          rule: "input",
          message: `no task file, folder or task id named ${JSON.stringify(arg)}`,
          fix: `check the spelling; task ids are the file names in ${DEFAULT_FOLDER}/`,
        });
    }
  }
  return { files: [...new Set(files)], problems, searched };
}

interface FileOutcome {
  entry: LoadedFile;
  problems: Problem[];
  source?: YamlSource;
  /** A file the schema refused: the task read without the refused values, which the module rules judge too. */
  rest?: Task;
}

function loadOne(absolute: string, cwd: string, ctx: RuleContext): FileOutcome {
  const file = displayPath(absolute, cwd);
  const problems: Problem[] = [];
  const fail = (message: string, fix?: string, line?: number, rule = "yaml"): FileOutcome => {
    problems.push({ file, line, path: "", message, fix, severity: "error", rule });
    return { entry: { file, valid: false }, problems };
  };

  let text: string;
  try {
    text = fs.readFileSync(absolute, "utf8");
  } catch (error) {
    return fail(`cannot read the file: ${messageOf(error)}`, undefined, undefined, "input");
  }
  const source = parseYamlSource(text);
  if (source.problems.length > 0) {
    for (const p of source.problems)
      problems.push({ file, line: p.line, path: "", message: p.message, fix: p.fix, severity: "error", rule: "yaml" });
    return { entry: { file, valid: false }, problems, source };
  }
  const data = source.data;
  if (data === null || data === undefined)
    return fail("the file is empty", "write the task's fields: id, title, instruction, tools, checks, reference");
  if (typeof data !== "object" || Array.isArray(data)) {
    return {
      ...fail(
        `expected a mapping of task fields at the top level, got ${Array.isArray(data) ? "a list" : "a single value"}`,
        "start the file with id: ..., title: ...",
        1,
        "schema",
      ),
      source,
    };
  }

  const add = (finding: RuleFinding, rule: string) => problems.push(problemAt(file, source, finding, rule));

  const toolFindings = knownToolsInRaw(data);
  for (const finding of toolFindings) add(finding, "known-tools");
  const reported = new Set(toolFindings.map((f) => dottedPath(f.path)));

  const parsed = TaskFileSchema.safeParse(data, { reportInput: true });
  const rawId = typeof (data as { id?: unknown }).id === "string" ? (data as { id: string }).id : undefined;
  if (!parsed.success) {
    for (const issue of plainIssues(parsed.error.issues, TaskFileSchema, data)) {
      if (!reported.has(dottedPath(issue.path))) add({ ...issue, severity: "error" }, "schema");
    }
    // The rules still judge the rest: one pass shows every problem of the file, schema and semantic.
    const parsedRest = parseWithout(data, parsed.error.issues);
    const rest = parsedRest ? normalizeTask(parsedRest, file) : undefined;
    if (rest) {
      const shown = new Set(problems.map((p) => p.path));
      for (const rule of TASK_RULES)
        for (const finding of rule.check(rest, ctx)) if (!shown.has(dottedPath(finding.path))) add(finding, rule.name);
    }
    return { entry: { file, id: rawId, valid: false }, problems, source, ...(rest ? { rest } : {}) };
  }
  const task = normalizeTask(parsed.data, file);
  for (const rule of TASK_RULES) for (const finding of rule.check(task, ctx)) add(finding, rule.name);
  return { entry: { file, id: task.id, task, valid: true }, problems, source };
}

type SchemaIssue = { path: PropertyKey[]; code?: string; keys?: string[] };

/**
 * The task as the schema reads it once each value it refused is left out (an unknown key, a wrong
 * optional value), so the rules can judge everything else in the same pass; null when what is left
 * still does not parse (a required field is wrong), after a few rounds.
 */
function parseWithout(data: object, issues: readonly SchemaIssue[]): z.output<typeof TaskFileSchema> | null {
  const patched: unknown = structuredClone(data);
  let left = issues;
  for (let round = 0; round < 4; round++) {
    // Deepest and last first, so removing an array's item does not move one still to remove.
    const paths = left.flatMap((i) =>
      i.code === "unrecognized_keys" && i.keys ? i.keys.map((k) => [...i.path, k]) : [i.path],
    );
    for (const path of paths.sort((a, b) => String(b.at(-1)).localeCompare(String(a.at(-1)), "en", { numeric: true })))
      removeAt(patched, path);
    const again = TaskFileSchema.safeParse(patched);
    if (again.success) return again.data;
    left = again.error.issues;
    if (left.every((i) => i.path.length === 0)) return null;
  }
  return null;
}

function removeAt(value: unknown, path: readonly PropertyKey[]): void {
  if (path.length === 0) return;
  let parent: unknown = value;
  for (const key of path.slice(0, -1)) {
    if (parent === null || typeof parent !== "object") return;
    parent = (parent as Record<PropertyKey, unknown>)[key];
  }
  const last = path.at(-1)!;
  if (Array.isArray(parent) && typeof last === "number") parent.splice(last, 1);
  else if (parent !== null && typeof parent === "object") delete (parent as Record<PropertyKey, unknown>)[last];
}

/** A rule's finding placed in its file and line: every rule's findings (schema, task, module, ids) go through here. */
function problemAt(file: string, source: YamlSource | undefined, finding: RuleFinding, rule: string): Problem {
  return {
    file,
    line: source?.lineOf(finding.path, { key: finding.atKey }),
    path: dottedPath(finding.path),
    message: finding.message,
    fix: finding.fix,
    severity: finding.severity,
    rule,
  };
}

/**
 * Loads task files. `paths` may be files, folders (their `*.yaml`) or task ids; none means
 * `tasks/`. Returns the valid tasks and every problem; throws only when a folder cannot be read.
 */
export function loadTasks(paths: readonly string[], options: LoadOptions): LoadResult {
  const { outcomes, argumentProblems, searched } = readAll(paths, options);
  return finish(outcomes, argumentProblems, searched);
}

/**
 * `loadTasks`, plus rules that import code (each custom check's module judges its own options).
 * The CLI loads tasks this way; a module rule runs on every file that passed the schema.
 */
export async function loadTasksAsync(
  paths: readonly string[],
  options: LoadOptions,
  moduleRules: readonly ModuleTaskRule[],
): Promise<LoadResult> {
  const { outcomes, argumentProblems, searched } = readAll(paths, options);
  for (const outcome of outcomes) {
    const task = outcome.entry.task ?? outcome.rest;
    if (!task) continue;
    for (const rule of moduleRules)
      for (const finding of await rule.check(task))
        outcome.problems.push(problemAt(outcome.entry.file, outcome.source, finding, rule.name));
  }
  return finish(outcomes, argumentProblems, searched);
}

function readAll(
  paths: readonly string[],
  options: LoadOptions,
): { outcomes: FileOutcome[]; argumentProblems: Problem[]; searched: string[] } {
  const { files, problems: argumentProblems, searched } = resolveArguments(paths, options.cwd);
  const base: RuleContext = options.targets ? { targets: targetCatalog(options.targets) } : DEFAULT_RULE_CONTEXT;
  const ctx: RuleContext = options.allowDrafts ? { ...base, allowDrafts: true } : base;
  return { outcomes: files.map((file) => loadOne(file, options.cwd, ctx)), argumentProblems, searched };
}

function finish(outcomes: FileOutcome[], argumentProblems: Problem[], searched: string[]): LoadResult {
  for (const { file, finding } of duplicateIds(outcomes.map((o) => ({ file: o.entry.file, id: o.entry.id })))) {
    const outcome = outcomes.find((o) => o.entry.file === file)!;
    outcome.problems.push(problemAt(file, outcome.source, finding, "unique-ids"));
  }

  const problems = [...argumentProblems];
  for (const outcome of outcomes) {
    outcome.problems.sort((a, b) => (a.line ?? 0) - (b.line ?? 0));
    outcome.entry.valid = !hasErrors(outcome.problems);
    problems.push(...outcome.problems);
  }
  const entries = outcomes.map((o) => o.entry);
  return {
    tasks: entries.filter((e) => e.valid && e.task).map((e) => e.task!),
    problems,
    files: entries,
    searched,
  };
}

/**
 * The error for a load that found no task file at all: a run or validation of nothing would pass
 * vacuously (in CI, a green build that checked nothing). Names every folder searched.
 */
export function noTaskFiles(command: string, searched: readonly string[]): UmpireError {
  const where = searched.length ? searched.map((f) => `${f}/`).join(", ") : "the paths given";
  return new UmpireError(
    "input",
    `${command}: no task files (*.yaml) in ${where}, subfolders included`,
    `write one (umpire init writes tasks/first-task.yaml), or pass task files or folders: umpire ${command} path/to/tasks`,
  );
}

/** Like `loadTasks`, but any error becomes one UmpireError('input') listing every problem. */
export function loadTasksOrThrow(paths: readonly string[], options: LoadOptions): Task[] {
  return tasksOrThrow(loadTasks(paths, options));
}

/** `loadTasksAsync`, throwing like `loadTasksOrThrow`. */
export async function loadTasksOrThrowAsync(
  paths: readonly string[],
  options: LoadOptions,
  moduleRules: readonly ModuleTaskRule[],
  /** The command that refuses to go on with no task file at all (noTaskFiles); unset: none is an empty list. */
  noneRefusedBy?: string,
): Promise<Task[]> {
  const result = await loadTasksAsync(paths, options, moduleRules);
  if (noneRefusedBy && result.files.length === 0 && result.problems.length === 0)
    throw noTaskFiles(noneRefusedBy, result.searched);
  return tasksOrThrow(result);
}

function tasksOrThrow(result: LoadResult): Task[] {
  const errors = result.problems.filter((p) => p.severity === "error");
  if (errors.length > 0) {
    const noun = errors.length === 1 ? "problem" : "problems";
    throw new UmpireError(
      "input",
      `${errors.length} ${noun} in task files:\n${formatProblems(errors, "  ")}`,
      "run 'umpire validate' to see every task and problem",
    );
  }
  return result.tasks;
}
