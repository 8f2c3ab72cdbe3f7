/**
 * `umpire try TASK [--negative NAME]`: plays the task's gold `reference` (or one negative) once on
 * the reference model, exactly as `validate --self-test` plays that probe (src/authoring/self-test.ts),
 * and shows the author where each step went: a line per step naming the mark it aimed at and how
 * the action went (a mark not found is reported at its step), a picture per step with the click
 * marked (src/authoring/step-pictures.ts), and the checks' results. Stored like the self-test's probes.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { CUSTOM_CHECK_RULES } from "../../checks/custom-rules.js";
import { OPTIONS as O } from "../../config/options.js";
import { OUTPUT_MODES, type OutputMode } from "../../vocabulary.js";
import { projectTargets } from "../../config/project.js";
import { UmpireError } from "../../errors.js";
import { oneLine } from "../../safety/terminal.js";
import { openStore } from "../../store/open.js";
import { formatProblems } from "../../task/format-problems.js";
import { loadTasksAsync } from "../../task/loader.js";
import type { Task } from "../../task/schema.js";
import { EXIT } from "../exit-codes.js";
import type { ParsedCommand } from "../args.js";
import { defineCommand } from "../command.js";
import type { CommandIO } from "../io.js";
import { isHoloMode, probesFor, type Probe } from "../../authoring/probes.js";
import { missingTools, notPlayableText, toolsOfSteps } from "../../agent/protocols/playable.js";
import type { ToolName } from "../../toolbox/tools.js";
import { runSelfTest } from "../../authoring/self-test.js";
import { pictureName, writeStepPictures } from "../../authoring/step-pictures.js";
import { describeControl, markNamesLine } from "../page-survey.js";
import { pageControls, type PageControl } from "../../targets/page-controls.js";
import { triedStepLine, triedStepSymbol, triedSteps } from "../../authoring/tried-steps.js";

const OPTIONS = {
  negative: { kind: "string", arg: "NAME", help: "play this negative instead of the gold reference" },
  mode: {
    kind: "enum",
    arg: "M",
    values: OUTPUT_MODES,
    default: "structured",
    help: `the protocol the reference model plays in, as run's --mode names it:\n${OUTPUT_MODES.join(", ")}`,
  },
  pictures: {
    kind: "string",
    arg: "DIR",
    defaultText: "<out>/<run>/try-<task>",
    help: "where the pictures go (one per step)",
  },
  "allow-drafts": { ...O["allow-drafts"], help: "play a task still marked draft: true (imported, not yet reviewed)" },
  config: O.config,
  db: { ...O.db, help: "the results database the trial is stored in (a run tagged self-test)" },
  out: { ...O.out, help: "where the trial folder goes" },
} as const;

export const run = defineCommand({
  name: "try",
  options: OPTIONS,
  positionals: [{ name: "task", required: true }],
  example: "umpire try tasks/first-task.yaml",
  description: `Plays the task's gold reference (or --negative NAME) once on the reference model, as
validate --self-test does, and prints one line per step: the mark it aimed at, the point it
clicked and how the action went; a step whose mark the page did not show is reported at that
step, with the marks the page had. Writes a picture per step (the click circled, the mark named)
into a folder it prints, then the checks' results. TASK is a task file, or a task id in tasks/.`,
  run: execute,
});

/** The task a `try` or `marks` argument names (a file, or an id in tasks/), its config's targets with it. */
export async function loadOne(
  arg: string,
  parsed: { config: Parameters<typeof projectTargets>[0] },
  io: CommandIO,
  command = "try",
  allowDrafts = false,
): Promise<{ task: Task; project: ReturnType<typeof projectTargets> }> {
  const byPath = existsSync(resolve(io.cwd, arg));
  const paths = byPath ? [arg] : [];
  const project = projectTargets(parsed.config, paths, io.cwd);
  const loaded = await loadTasksAsync(
    paths,
    { cwd: io.cwd, targets: project.targets, allowDrafts },
    CUSTOM_CHECK_RULES,
  );
  const errors = loaded.problems.filter((p) => p.severity === "error");
  const task = byPath ? loaded.tasks[0] : loaded.tasks.find((t) => t.id === arg);
  if (errors.length > 0 && (!task || errors.some((p) => p.file === task.file))) {
    throw new UmpireError(
      "input",
      `${command}: ${arg} is not valid:\n${formatProblems(errors)}`,
      "fix the task file (umpire validate lists every problem)",
    );
  }
  if (!task) {
    const ids = loaded.tasks.map((t) => t.id);
    throw new UmpireError(
      "input",
      `${command}: no task file or task id ${arg}`,
      ids.length ? `a task file path, or one of: ${ids.join(", ")}` : "give a task file's path",
    );
  }
  return { task, project };
}

function probeOf(task: Task, negative: string | undefined, mode: OutputMode): Probe {
  const all = probesFor(task, [mode]);
  // Gold in the protocol asked for even where it cannot be played: the refusal below names why.
  if (negative === undefined)
    return { name: `gold/${mode}`, model: "reference", mode, expect: "passed", trajectory: "reference" };
  const found = all.find((p) => p.name === `negative:${negative}`);
  if (!found) {
    const names = Object.keys(task.negatives);
    throw new UmpireError(
      "usage",
      `try: task ${task.id} has no negative ${negative}`,
      names.length ? `one of: ${names.join(", ")}` : "the task declares no negatives",
    );
  }
  return { ...found, mode, name: isHoloMode(mode) ? found.name : `${found.name}/${mode}` };
}

/** Refuses, before any trial, steps that use a tool the protocol cannot offer: they could not be played as written. */
function refuseNotPlayable(task: Task, probe: Probe, steps: readonly { tool: ToolName }[]): void {
  const missing = missingTools(toolsOfSteps(steps), probe.mode);
  if (missing.length === 0) return;
  const which =
    probe.trajectory === "reference" ? "its gold" : `its negative ${probe.name.split(":")[1]?.split("/")[0]}`;
  throw new UmpireError(
    "usage",
    `try: ${task.file} (${which}) is ${notPlayableText(probe.mode, missing)}`,
    `try it with another --mode (structured and tools offer every tool)`,
  );
}

async function execute(parsed: ParsedCommand<typeof OPTIONS>, io: CommandIO): Promise<number> {
  const arg = parsed.positionals[0]!;
  const { values } = parsed;
  const { task, project } = await loadOne(arg, parsed, io, "try", values["allow-drafts"] === true);
  const probe = probeOf(task, values.negative, values.mode as OutputMode);
  const steps = (probe.trajectory === "reference" ? task.reference : task.negatives[values.negative!]) ?? [];
  refuseNotPlayable(task, probe, steps);
  io.stderr.write(
    `umpire try: playing ${task.id} ${probe.name} (${steps.length} steps) on the reference model in ${probe.mode}\n`,
  );
  const outDir = resolve(io.cwd, values.out);
  const store = openStore(resolve(io.cwd, values.db));
  try {
    // Every observation's page surveyed as `umpire marks` does: the controls of a tray open at step 3 are listed there.
    const surveyed = new Map<number, PageControl[]>();
    const testIdAttribute = project.targets[task.target]?.testIdAttribute ?? "data-testid";
    const outcome = await runSelfTest({
      tasks: [task],
      config: project,
      store,
      outDir,
      concurrency: 1,
      signal: io.signal,
      env: io.env,
      probes: () => [probe],
      onNotice: (message) => io.stderr.write(`umpire: ${message}\n`),
      onObserved: async (_trial, n, page) => {
        surveyed.set(n, await pageControls(page, { testIdAttribute }));
      },
    });
    const result = outcome.results[0];
    if (!result) return outcome.interrupted ? EXIT.interrupted : EXIT.internal;
    const runDir = join(outDir, outcome.runId);
    const tried = triedSteps({
      trajectory: probe.trajectory!,
      steps,
      records: outcome.records(result.trialId),
      turns: store.turns(result.trialId),
      actions: store.actions(result.trialId),
      tools: task.tools,
    });
    const folder = values.pictures ? resolve(io.cwd, values.pictures) : join(runDir, `try-${task.id}`);
    mkdirSync(folder, { recursive: true });
    const pictures = await writeStepPictures(tried, runDir, folder);
    io.stdout.write(`${task.id} ${probe.name}: ${result.verdict} (${result.stopReason})\n\n`);
    for (const s of tried) {
      io.stdout.write(`${triedStepSymbol(s)} ${oneLine(triedStepLine(s))}\n`);
      const controls = surveyed.get(s.turn);
      if (!controls || !s.screenshot) continue;
      // Beside the picture: the page's controls with their declarations, as `umpire marks` lists them.
      writeFileSync(
        join(folder, pictureName(s).replace(/\.png$/, ".marks.txt")),
        `${controls.map(describeControl).join("\n")}\n`,
      );
      io.stdout.write(`    marks on its page: ${oneLine(markNamesLine(controls))}\n`);
    }
    const checks = store.checks(result.trialId);
    io.stdout.write(
      `\nchecks:\n${checks.map((c) => `${c.pass ? "✓" : "✗"} ${c.name}${c.required ? "" : " (optional)"}: ${oneLine(c.reason)}`).join("\n") || "(none ran)"}\n`,
    );
    for (const reason of result.reasons) io.stdout.write(`note: ${oneLine(reason)}\n`);
    // An environment error before the first observation has no pictures: say why, not "pictures (0)".
    io.stdout.write(
      pictures.length > 0
        ? `\npictures (${pictures.length}, one per turn, each with its page's marks in a .marks.txt beside it): ${folder}\n`
        : `\nno pictures: the trial ended before its first observation (${oneLine(result.stopLine)})\n`,
    );
    io.stdout.write(`stored as run ${outcome.runId} (tagged self-test): umpire show ${outcome.runId}\n`);
    if (outcome.interrupted) return EXIT.interrupted;
    return result.ok && tried.every((s) => !s.broken) ? EXIT.ok : EXIT.failed;
  } finally {
    store.close();
  }
}
