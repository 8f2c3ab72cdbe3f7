/**
 * `umpire import [options] playwright [playwright test args...]`: runs the project's own Playwright
 * tests (`npx playwright test`, their config and webServer) with umpire's reporter added, and writes
 * one draft task per passing test into tasks/imported/, the target merged into umpire.config.yaml.
 * With --negatives, then derives and plays mutation negatives of each written task (umpire negatives).
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { locateChromium } from "../../browser/chromium.js";
import { CUSTOM_CHECK_RULES } from "../../checks/custom-rules.js";
import { loadConfig } from "../../config/loader.js";
import { projectTargets } from "../../config/project.js";
import { UmpireError } from "../../errors.js";
import { RECORDING_FILE_ENV, type Recording } from "../../importer/recording.js";
import { planMarks, planTarget, mergeConfig, type TargetPlan } from "../../importer/target-merge.js";
import { renderTask } from "../../importer/task-writer.js";
import { resetOf, taskIdOf, translateTest, type DraftTask, type TranslateContext } from "../../importer/translate.js";
import { oneLine } from "../../safety/terminal.js";
import { formatProblems } from "../../task/format-problems.js";
import { loadTasksAsync } from "../../task/loader.js";
import type { ParsedCommand } from "../args.js";
import { defineCommand } from "../command.js";
import { EXIT } from "../exit-codes.js";
import type { CommandIO } from "../io.js";
import { schemaReference } from "../schema-reference.js";
import { addStateChecks, deriveStateChecks, markChecks } from "../import-probes.js";
import { negativesFor, NEGATIVES_OPTIONS } from "./negatives.js";

const OPTIONS = {
  "tasks-dir": { kind: "string", arg: "DIR", default: "tasks/imported", help: "where the draft tasks are written" },
  negatives: {
    kind: "boolean",
    help: "derive mutation negatives of each written task and keep the ones the checks catch\n(as umpire negatives does): the default, kept for scripts that pass it",
  },
  "no-probes": {
    kind: "boolean",
    help: "write the drafts only: play no probe, add no check from the state the gold changed,\nderive no negatives",
  },
  concurrency: NEGATIVES_OPTIONS.concurrency,
  db: NEGATIVES_OPTIONS.db,
  out: NEGATIVES_OPTIONS.out,
  config: {
    ...NEGATIVES_OPTIONS.config,
    defaultText: "umpire.config.yaml in the working folder, created when missing",
    help: "the umpire config file the target is merged into",
  },
} as const;

export const run = defineCommand({
  name: "import",
  options: OPTIONS,
  positionals: [],
  passThrough: { word: "playwright", args: "playwright test args" },
  example: "umpire import --tasks-dir tasks/imported playwright --grep @smoke",
  description: `Runs your Playwright tests (npx playwright test, with your config and webServer; the arguments
after 'playwright' are passed to it) with umpire's reporter added, and writes one draft task per
passing test: gold steps from its actions, marks from its locators, page checks from its final
expects, effects or http checks from the network calls it awaited that umpire.config.yaml's
import.requests maps (the others get a TODO with the line to add), the target from its
baseURL/webServer merged into umpire.config.yaml (its port as \${PORT}, a beforeEach request.post
as the reset). Then it plays the drafts (unless --no-probes): checks on the state the gold changed
(storage, the test's GET URLs), answer-now and the gold's mutations, keeping the caught ones and
marking each check with the wrong trajectories shown to fail it. Each task is marked draft: true
until a person has reviewed it (docs/from-playwright.md).`,
  run: execute,
});

const REPORTER = fileURLToPath(new URL("../../importer/playwright-reporter.js", import.meta.url));

/** Playwright's args with umpire's reporter added beside any `--reporter` the user gave (else beside `list`). */
export function playwrightArgs(userArgs: readonly string[]): string[] {
  const args = [...userArgs];
  const at = args.findIndex((a) => a === "--reporter" || a.startsWith("--reporter="));
  if (at < 0) return ["test", ...args, `--reporter=list,${REPORTER}`];
  const given = args[at]!.includes("=") ? args[at]!.slice("--reporter=".length) : (args[at + 1] ?? "");
  args.splice(at, args[at]!.includes("=") ? 1 : 2, `--reporter=${given},${REPORTER}`);
  return ["test", ...args];
}

/**
 * The Playwright run's environment: the recording file, and the Chromium umpire resolved as
 * UMPIRE_CHROMIUM (a config reads it as `launchOptions.executablePath`, as examples/todomvc's does),
 * so a machine with only its distribution's Chromium imports as it runs umpire.
 */
export function playwrightEnv(env: NodeJS.ProcessEnv, recordingFile: string): NodeJS.ProcessEnv {
  let chromium: string | undefined;
  try {
    chromium = env.UMPIRE_CHROMIUM || locateChromium(env)?.path;
  } catch {
    chromium = undefined;
  }
  return { ...env, [RECORDING_FILE_ENV]: recordingFile, ...(chromium ? { UMPIRE_CHROMIUM: chromium } : {}) };
}

function runPlaywright(args: string[], io: CommandIO, recordingFile: string): Promise<number> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn("npx", ["--no-install", "playwright", ...args], {
      cwd: io.cwd,
      env: playwrightEnv(io.env, recordingFile),
      stdio: ["ignore", "pipe", "pipe"],
    });
    // Playwright's own output is progress: it goes to stderr, stdout carries umpire's summary.
    child.stdout.on("data", (chunk: Buffer) => io.stderr.write(chunk));
    child.stderr.on("data", (chunk: Buffer) => io.stderr.write(chunk));
    const stop = () => child.kill("SIGINT");
    io.signal.addEventListener("abort", stop, { once: true });
    child.on("error", (error) =>
      reject(
        new UmpireError(
          "usage",
          `could not run npx playwright: ${error.message}`,
          "install Playwright Test in this project: npm install -D @playwright/test",
        ),
      ),
    );
    child.on("close", (code) => {
      io.signal.removeEventListener("abort", stop);
      resolvePromise(code ?? 1);
    });
  });
}

function readRecording(file: string, exitCode: number): Recording {
  if (!existsSync(file)) {
    throw new UmpireError(
      "usage",
      `npx playwright test exited ${exitCode} and reported no tests to umpire`,
      "run `npx playwright test` in this folder first and fix what it says (a missing config, no tests found)",
    );
  }
  return JSON.parse(readFileSync(file, "utf8")) as Recording;
}

function sourceReader(): TranslateContext["sourceLine"] {
  const cache = new Map<string, string[]>();
  return (file, line) => {
    if (!cache.has(file)) cache.set(file, existsSync(file) ? readFileSync(file, "utf8").split("\n") : []);
    return cache.get(file)![line - 1] ?? null;
  };
}

/** A file a person has finished (no `draft: true` left) is theirs: import never overwrites it. */
function finishedByPerson(file: string): boolean {
  return existsSync(file) && !/^draft:\s*true\s*$/m.test(readFileSync(file, "utf8"));
}

function renameMarks(task: DraftTask, names: Map<string, string>): void {
  for (const step of task.reference) if (step.target && names.has(step.target)) step.target = names.get(step.target)!;
}

async function execute(parsed: ParsedCommand<typeof OPTIONS>, io: CommandIO, passed: string[] | null): Promise<number> {
  if (passed === null)
    throw new UmpireError(
      "usage",
      "umpire import: the test runner to read is missing (playwright)",
      "umpire import playwright [playwright test args...] (umpire import --help)",
    );
  const configFile = parsed.config.file ? resolve(io.cwd, parsed.config.file) : join(io.cwd, "umpire.config.yaml");
  if (/\.json$/i.test(configFile))
    throw new UmpireError(
      "usage",
      `${parsed.config.file}: import merges its target into a YAML config file`,
      "convert the config to umpire.config.yaml, or pass --config with a YAML file",
    );

  const scratch = mkdtempSync(join(tmpdir(), "umpire-import-"));
  let recording: Recording;
  try {
    const file = join(scratch, "recording.json");
    const code = await runPlaywright(playwrightArgs(passed), io, file);
    if (io.signal.aborted) return EXIT.interrupted;
    recording = readRecording(file, code);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }

  const declared = (parsed.config.data.targets ?? {}) as Parameters<typeof planTarget>[1];
  const baseURL = (recording.projects.find((p) => p.baseURL) ?? recording.projects[0])?.baseURL ?? "";
  const reset = recording.tests.map((t) => resetOf(t, baseURL)).find((r) => r !== null) ?? null;
  const target = planTarget(recording, declared, dirname(configFile), basename(io.cwd), reset);
  const requests = {
    mappings: parsed.config.data.import?.requests ?? {},
    effectsSource: (declared[target.name] ?? target.decl)?.effects !== undefined,
  };
  const { written, stateUrls } = writeTasks(
    recording,
    target,
    requests,
    configFile,
    resolve(io.cwd, parsed.values["tasks-dir"]),
    io,
  );
  if (written.length === 0) {
    io.stdout.write(
      "nothing imported: no test passed (see Playwright's output above), or every task file is finished already\n",
    );
    return EXIT.failed;
  }

  // The config as merged, read and validated again: what the written tasks will run on.
  const project = projectTargets(loadConfig({ cwd: io.cwd, file: configFile }), [], io.cwd);
  const load = () =>
    loadTasksAsync(written, { cwd: io.cwd, targets: project.targets, allowDrafts: true }, CUSTOM_CHECK_RULES);
  let loaded = await load();
  if (loaded.problems.length) io.stdout.write(`\n${formatProblems(loaded.problems)}\n`);
  const next = `npx umpire validate --self-test --allow-drafts ${relative(io.cwd, resolve(io.cwd, parsed.values["tasks-dir"]))}`;
  const failedToLoad = loaded.problems.some((p) => p.severity === "error");
  if (parsed.values["no-probes"] || failedToLoad || loaded.tasks.length === 0) {
    io.stdout.write(`\nnext: read each file (its TODO lines), then ${next}\n`);
    return failedToLoad ? EXIT.usage : EXIT.ok;
  }
  const probing = {
    project,
    db: parsed.values.db,
    out: parsed.values.out,
    concurrency: parsed.values.concurrency ?? availableParallelism(),
  };
  const derived = await deriveStateChecks({ ...probing, tasks: loaded.tasks, stateUrls }, io);
  if (io.signal.aborted) return EXIT.interrupted;
  io.stdout.write("\n");
  for (const task of loaded.tasks) {
    const checks = derived.checks.get(task.id);
    if (checks === undefined) continue;
    addStateChecks(resolve(io.cwd, task.file), checks);
    const what = checks.map((c) => (c.kind === "http" ? `GET ${c.url}` : `${c.area} ${JSON.stringify(c.key)}`));
    io.stdout.write(
      `${task.file}: ${checks.length ? `${checks.length} check(s) from the state the gold changed (${what.join(", ")})` : "the gold changed no state umpire can read (storage, the test's GET URLs)"}\n`,
    );
  }
  loaded = await load();
  const marked: string[] = [];
  const code = await negativesFor(
    {
      ...probing,
      tasks: loaded.tasks,
      pageMarks: derived.pageMarks,
      write: true,
      onTasks: (tasks) => {
        for (const t of tasks.filter((x) => x.goldPassed)) {
          const { shown, unshown } = markChecks(t, io.cwd);
          marked.push(
            `${t.task.id}: ${shown} of ${shown + unshown.length} checks shown to fail a wrong trajectory${unshown.length ? ` (not: ${unshown.map((u) => `'${u}'`).join(", ")})` : ""}`,
          );
        }
      },
    },
    io,
  );
  io.stdout.write(
    `${marked.map((m) => `${oneLine(m)}\n`).join("")}\nnext: read each file (its TODO lines), then ${next}\n`,
  );
  return code;
}

interface RequestMappings {
  mappings: TranslateContext["requests"];
  effectsSource: boolean;
}

function writeTasks(
  recording: Recording,
  target: TargetPlan,
  requests: RequestMappings,
  configFile: string,
  tasksDir: string,
  io: CommandIO,
): { written: string[]; stateUrls: Map<string, string[]> } {
  const project = recording.projects.find((p) => p.baseURL) ?? recording.projects[0];
  const ctx: TranslateContext = {
    baseURL: project?.baseURL ?? "",
    playwrightTestId: project?.testIdAttribute ?? "data-testid",
    targetTestId: target.testIdAttribute,
    sourceLine: sourceReader(),
    shownFile: (file) => relative(io.cwd, file),
    requests: requests.mappings,
    effectsSource: requests.effectsSource,
  };
  const passed = recording.tests.filter((t) => t.status === "passed");
  for (const t of recording.tests.filter((x) => x.status !== "passed")) {
    io.stdout.write(
      `skipped ${oneLine(t.titlePath.join(" › "))} (${relative(io.cwd, t.file)}:${t.line}): it ${t.status}; only passing tests become tasks\n`,
    );
  }
  const ids = new Set<string>();
  const drafts = passed.map((test) => translateTest(test, ctx, taskIdOf(test, ids)));
  for (const d of drafts)
    d.source = `${relative(io.cwd, d.source.replace(/:\d+$/, ""))}:${/:(\d+)$/.exec(d.source)?.[1] ?? ""}`;
  const marks = planMarks(
    drafts.map((d) => d.marks),
    target.marks,
  );
  mkdirSync(tasksDir, { recursive: true });
  const written: string[] = [];
  for (const [i, draft] of drafts.entries()) {
    const file = join(tasksDir, `${draft.id}.yaml`);
    if (finishedByPerson(file)) {
      io.stdout.write(`kept ${relative(io.cwd, file)}: it is no longer a draft (a person finished it)\n`);
      continue;
    }
    renameMarks(draft, marks.rename[i]!);
    writeFileSync(
      file,
      renderTask(draft, target.name, marks.taskMarks[i]!, schemaReference(file, "task.schema.json", io.cwd) ?? null),
    );
    written.push(file);
    const todos = draft.todo.length + draft.unmapped.length;
    const todo = todos ? `, ${todos} TODO` : "";
    io.stdout.write(
      `wrote ${relative(io.cwd, file)}: ${draft.reference.length} gold steps, ${draft.checks.length} checks${todo}\n`,
    );
  }
  reportUnmapped(drafts, io);
  const before = existsSync(configFile) ? readFileSync(configFile, "utf8") : "";
  writeFileSync(configFile, mergeConfig(before, target, marks.targetMarks));
  const added = Object.keys(marks.targetMarks);
  const what = target.reused
    ? `reused target ${target.name}`
    : `declared target ${target.name} (${target.decl?.baseUrl})`;
  io.stdout.write(
    `${relative(io.cwd, configFile)}: ${what}${added.length ? `; shared marks added: ${added.join(", ")}` : ""}\n`,
  );
  return { written, stateUrls: new Map(drafts.map((d) => [d.id, d.stateUrls])) };
}

/** The awaited calls no import.requests mapping names, once each across the tests, for a suite of hundreds. */
function reportUnmapped(drafts: readonly DraftTask[], io: CommandIO): void {
  const unmapped = drafts.flatMap((d) => d.unmapped.map((u) => u.what.replace(/ \(line [\d, ]+\)$/, "")));
  if (unmapped.length === 0) return;
  const counted = [...new Set(unmapped)].map((what) => {
    const tests = unmapped.filter((x) => x === what).length;
    return tests > 1 ? `${what} (${tests} tests)` : what;
  });
  const where = "each draft's TODO lines give the line to add under import.requests";
  io.stdout.write(`awaited, not mapped to a check: ${counted.join("; ")}: ${where}\n`);
}
