/**
 * `umpire validate [paths...] [--json]`: loads task files and prints a table of the tasks and
 * every problem. Exit 0 when all are valid (warnings allowed), 2 otherwise.
 */
import { availableParallelism } from "node:os";
import { oneLine } from "../../safety/terminal.js";
import { EXIT, exitCodesHelp } from "../exit-codes.js";
import { OPTIONS as O } from "../../config/options.js";
import type { ParsedCommand } from "../args.js";
import { defineCommand } from "../command.js";
import type { CommandIO } from "../io.js";
import { selfTestProgress } from "../self-test-progress.js";
import { formatProblems, formatTaskTable, statusOf, type TaskRow } from "../../task/format-problems.js";
import { loadTasksAsync, noTaskFiles, type LoadResult } from "../../task/loader.js";
import { missingSeeds } from "../../targets/restore-seed.js";
import { CUSTOM_CHECK_RULES } from "../../checks/custom-rules.js";
import { projectTargets } from "../../config/project.js";
import { terminalStyle } from "../../report/table-layout.js";
import type { SelfTestOutcome } from "../../authoring/self-test.js";
import { resolve } from "node:path";
import { plural } from "../../report/format.js";
import { PACK_OPTIONS } from "../run/pack.js";
import { validatePack } from "../validate-pack.js";
import { HOLO_MODES, OUTPUT_MODES, type OutputMode } from "../../vocabulary.js";

/** `--mode` of the self-test: any protocol (run's `--mode` names), both (Holo's two), all (every protocol). */
const SELF_TEST_MODE_CHOICES = [...OUTPUT_MODES, "both", "all"] as const;

/** The protocols `--mode` names, in the registry's order, each once. */
export function selfTestProtocols(given: readonly string[]): OutputMode[] {
  const wanted = new Set(
    given.flatMap((m) => (m === "all" ? OUTPUT_MODES : m === "both" ? HOLO_MODES : [m as OutputMode])),
  );
  return OUTPUT_MODES.filter((m) => wanted.has(m));
}

const OPTIONS = {
  json: {
    kind: "boolean",
    help: "print the result as one JSON document: {ok, tasks, problems}, and with\n--self-test also selfTest: {sound, runId, protocols, results (each naming its protocol),\nunsoundPairs, notPlayable (task/protocol pairs whose gold needs tools the protocol\ncannot offer: not played, not unsound), uncovered, warnings} (null when the files\nare invalid; warnings: the machine's CPU was saturated, as in the run summary)",
  },
  "self-test": {
    kind: "boolean",
    help: `also prove each task sound on the reference model: its gold trajectory passes in\neach --mode protocol (default both Holo modes), answering "Done." at once fails, and\nevery declared negative is played as written and fails (on each check its failsOn\nnames); stored as a run tagged self-test (exit ${EXIT.failed} when a task is unsound). With --pack: answer-now fails\nevery environment, the scripted oracle passes those it knows, the rest are listed`,
  },
  mode: {
    kind: "enum",
    arg: "M",
    multiple: true,
    values: SELF_TEST_MODE_CHOICES,
    default: ["both"],
    help: `with --self-test: the protocols the gold trajectory is played in (repeatable): one of\n${OUTPUT_MODES.join(", ")},\nboth (structured and tools) or all (every protocol umpire speaks). Answer-now and the\nnegatives are played in structured; each vendor protocol also plays answer-now, and\nthe first one every negative`,
  },
  strict: {
    kind: "boolean",
    help: "with --self-test: a required check that no probe failed (it may be unable to fail)\nmakes the task unsound, not only a warning; with --pack, an environment no probe exercised",
  },
  "allow-drafts": O["allow-drafts"],
  concurrency: { ...O.concurrency, defaultText: "the number of cores", help: "trials at once during the self-test" },
  db: { ...O.db, help: "the results database the self-test's run (tagged self-test) is stored in" },
  out: { ...O.out, help: "where the self-test's trial folders go" },
  config: {
    ...O.config,
    help: "the config file declaring targets (default: umpire.config.* in the working folder, else beside the tasks)",
  },
  ...PACK_OPTIONS,
  pack: {
    ...PACK_OPTIONS.pack,
    help: "a public benchmark's pack from your own checkout instead of task files: lists its\nenvironments, and with --self-test proves what it can (docs/benchmarks.md)",
  },
} as const;

export const run = defineCommand({
  name: "validate",
  options: OPTIONS,
  positionals: [{ name: "paths", variadic: true }],
  description:
    "Checks task files (files, folders or task ids; default tasks/) and prints each task and its problems;\nwith --pack, a benchmark pack's environments.",
  epilogue: exitCodesHelp({
    ok: "every task is valid (and, with --self-test, sound)",
    failed: "with --self-test: a task is unsound",
    usage: "a task file is invalid, or bad arguments",
    interrupted: "the self-test was interrupted (Ctrl-C)",
  }),
  run: execute,
});

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

async function execute(parsed: ParsedCommand<typeof OPTIONS>, io: CommandIO): Promise<number> {
  if (parsed.values.pack) return validatePack(parsed.values, parsed.positionals, io, parsed.config);
  // Tasks name targets, declared in the config file (the working folder's, --config, or the one beside the tasks).
  const project = projectTargets(parsed.config, parsed.positionals, io.cwd);
  const result = await loadTasksAsync(
    parsed.positionals,
    { cwd: io.cwd, targets: project.targets, allowDrafts: parsed.values["allow-drafts"] === true },
    CUSTOM_CHECK_RULES,
  );
  // Nothing to validate is no pass: a CI step that validated an empty folder must not go green.
  if (result.files.length === 0 && result.problems.length === 0) throw noTaskFiles("validate", result.searched);
  // The config's own problems a run would meet only at its first reset: a restore's seed that is not there.
  for (const seed of missingSeeds(project.targets, project.dir))
    result.problems.push({
      file: project.file ?? "umpire.config.yaml",
      path: `targets.${seed.target}.reset.from`,
      severity: "error",
      rule: "restore-from-exists",
      message: `the restore reset's seed ${seed.from} does not exist (${seed.resolved})`,
      fix: "give the seed's path relative to the config file's folder, or create it (a copy of the app's data in its starting state)",
    });
  // The config's notices (warnings: a forced computerTool its model id is not documented with).
  result.problems.push(...(parsed.config.notices ?? []));
  const rows = rowsOf(result);
  const ok = !result.problems.some((p) => p.severity === "error");

  // With --json, stdout carries exactly one JSON document: with --self-test its result joins the
  // validation's as `selfTest` (null when the task files are not valid and it did not run).
  const validation = { ok, tasks: rows.map((row) => ({ ...row, status: statusOf(row) })), problems: result.problems };
  const selfTestRequested = parsed.values["self-test"] === true;
  if (parsed.values.json) {
    if (!selfTestRequested || !ok)
      io.stdout.write(
        `${JSON.stringify(selfTestRequested ? { ...validation, selfTest: null } : validation, null, 2)}\n`,
      );
  } else {
    if (rows.length > 0) io.stdout.write(`${formatTaskTable(rows)}\n`);
    if (result.problems.length > 0) io.stdout.write(`\n${formatProblems(result.problems)}\n`);
    const errors = result.problems.filter((p) => p.severity === "error").length;
    const warnings = result.problems.length - errors;
    const valid = rows.filter((r) => r.errors === 0).length;
    io.stdout.write(
      `\n${valid} of ${rows.length} task file${rows.length === 1 ? "" : "s"} valid; ${errors} error${errors === 1 ? "" : "s"}, ${warnings} warning${warnings === 1 ? "" : "s"}\n`,
    );
  }

  if (!selfTestRequested && parsed.sources.mode === "flag")
    io.stderr.write("umpire validate: --mode chooses the self-test's protocols; without --self-test it does nothing\n");
  if (selfTestRequested) {
    if (!ok) {
      io.stderr.write("umpire validate: fix the task files first; the self-test runs only valid tasks\n");
      return EXIT.usage;
    }
    const concurrency = parsed.values.concurrency ?? availableParallelism();
    const protocols = selfTestProtocols(parsed.values.mode);
    io.stderr.write(
      `umpire validate: self-test of ${plural(result.tasks.length, "task")} on the reference model, gold in ${protocols.join(", ")}\n`,
    );
    // Imported here, not at the top: the self-test plays trials and stores them (the runner, Playwright,
    // SQLite), and a validation without it needs none of them: loading them was over half of the CPU
    // `umpire validate` spent on one task file (2.1-2.6 s before, 1.0-1.2 s after).
    const { isSound, runSelfTest, selfTestClosing, selfTestFindings, selfTestTable, unsoundPairs } = await import(
      "../../authoring/self-test.js"
    );
    const { openStore } = await import("../../store/open.js");
    const store = openStore(resolve(io.cwd, parsed.values.db));
    let outcome: SelfTestOutcome;
    try {
      outcome = await runSelfTest({
        tasks: result.tasks,
        config: project,
        store,
        outDir: resolve(io.cwd, parsed.values.out),
        concurrency,
        protocols,
        signal: io.signal,
        env: io.env,
        ...selfTestProgress(io),
      });
    } finally {
      store.close();
    }
    const { results, uncovered, runId } = outcome;
    const strict = parsed.values.strict === true;
    const sound = isSound(results, uncovered, strict) && !outcome.interrupted;
    const closing = selfTestClosing(results, outcome.concurrency, uncovered, strict, concurrency);
    const warnings = closing.filter((line) => line.startsWith("warning:"));
    const stored = `stored as run ${runId} (tagged self-test): umpire show ${runId}, umpire report ${runId}`;
    if (parsed.values.json) {
      io.stdout.write(
        `${JSON.stringify({ ...validation, selfTest: { sound, runId, protocols, results, unsoundPairs: unsoundPairs(results), notPlayable: outcome.notPlayable, uncovered, warnings } }, null, 2)}\n`,
      );
      io.stderr.write(`umpire validate: ${stored}\n`);
    } else {
      const findings = selfTestFindings(results, uncovered, strict, concurrency, outcome.notPlayable);
      io.stdout.write(
        `\n${selfTestTable(results, terminalStyle(io.stdout, io.env), outcome.notPlayable)}\n${findings.length ? `\n${findings.map(oneLine).join("\n")}\n\n` : ""}${closing.join("\n")}\n${stored}\n`,
      );
    }
    if (outcome.interrupted) return EXIT.interrupted;
    return sound ? EXIT.ok : EXIT.failed;
  }
  return ok ? EXIT.ok : EXIT.usage;
}
