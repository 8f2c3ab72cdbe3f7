/**
 * `umpire validate --pack NAME [--self-test]`: a benchmark pack in place of task files. Without
 * --self-test it builds the pack's tasks from the user's checkout and lists them (and what of the
 * selection does not run); with it, it runs the pack's self-test (src/authoring/pack-self-test.ts):
 * answer-now fails every environment, the pack's scripted oracle passes the ones it knows, and every
 * environment no probe exercised is listed. Exit codes as the task self-test's.
 */
import type { LoadedConfig } from "../config/loader.js";
import { resolve } from "node:path";
import type { PackOracle, PackSelfTestOutcome } from "../authoring/pack-self-test.js";
import { UmpireError } from "../errors.js";
import { ORACLE_UNREAD, oracleKnows, oracleScript } from "../packs/miniwob-oracle.js";
import { plural } from "../report/format.js";
import { terminalStyle } from "../report/table-layout.js";
import { oneLine } from "../safety/terminal.js";
import { formatTaskTable, statusOf, type TaskRow } from "../task/format-problems.js";
import { EXIT } from "./exit-codes.js";
import type { CommandIO } from "./io.js";
import { selfTestProgress } from "./self-test-progress.js";
import { configPackDir, packNotice, selectPack, storedPack, type PackValues, type SelectedPack } from "./run/pack.js";

export interface ValidatePackValues extends PackValues {
  json?: boolean;
  "self-test"?: boolean;
  strict?: boolean;
  concurrency?: number;
  db: string;
  out: string;
}

/** The oracle as a command agent: umpire's own script, so it runs outside the sandbox (the trial records none, and why). */
async function miniwobOracle(cwd: string): Promise<PackOracle> {
  const name = "oracle";
  const { commandAgentConfig } = await import("./run/agents.js");
  return {
    config: commandAgentConfig(name, undefined),
    command: {
      name,
      command: [process.execPath, oracleScript()],
      cwd,
      env: {},
      passEnv: [],
      network: [],
      sandbox: { kind: "none", why: "umpire's own scripted oracle (the pack self-test)" },
      modelProxy: null,
    },
    knows: (task) => oracleKnows(task.id),
    unread: ORACLE_UNREAD,
  };
}

function rowsOf(selected: SelectedPack): TaskRow[] {
  return selected.pack.tasks.map((task) => ({
    id: task.id,
    title: task.title,
    tools: task.tools,
    checks: task.checks.length,
    file: task.file,
    errors: 0,
    warnings: 0,
  }));
}

export async function validatePack(
  values: ValidatePackValues,
  positionals: readonly string[],
  io: CommandIO,
  /** The config file the command read: its `packs.miniwob.dir` names the folder when no flag does. */
  config: LoadedConfig,
): Promise<number> {
  if (positionals.length > 0)
    throw new UmpireError(
      "usage",
      "--pack does not go with task paths",
      "validate the pack and your tasks as two commands",
    );
  const selected = selectPack(values, positionals, io.env, configPackDir(config, io.cwd))!;
  for (const line of packNotice(selected)) io.stderr.write(`umpire: ${line}\n`);
  const rows = rowsOf(selected);
  const pack = {
    name: selected.name,
    dir: selected.pack.htmlDir,
    notRunnable: selected.pack.notRunnable,
    caveats: selected.pack.caveats,
  };
  const validation = { ok: true, tasks: rows.map((row) => ({ ...row, status: statusOf(row) })), problems: [], pack };
  if (values.json && !values["self-test"]) io.stdout.write(`${JSON.stringify(validation, null, 2)}\n`);
  if (!values.json) {
    io.stdout.write(`${formatTaskTable(rows)}\n`);
    const missing = selected.pack.notRunnable.length;
    io.stdout.write(
      `\n${plural(rows.length, "environment")} of pack ${selected.name} from ${selected.pack.htmlDir}${missing ? `; ${missing} not in the folder` : ""}\n`,
    );
  }
  if (!values["self-test"]) return EXIT.ok;
  return packSelfTest(values, selected, validation, io);
}

async function packSelfTest(
  values: ValidatePackValues,
  selected: SelectedPack,
  validation: Record<string, unknown>,
  io: CommandIO,
): Promise<number> {
  const { availableParallelism } = await import("node:os");
  const concurrency = values.concurrency ?? availableParallelism();
  const oracle = await miniwobOracle(io.cwd);
  const known = selected.pack.tasks.filter((t) => oracle.knows(t)).length;
  io.stderr.write(
    `umpire validate: self-test of pack ${selected.name}: answer-now on ${plural(selected.pack.tasks.length, "environment")}, the scripted oracle on the ${known} it knows\n`,
  );
  // Loaded here: the self-test plays trials and stores them (Playwright, SQLite), which listing the pack does not need.
  const { runPackSelfTest } = await import("../authoring/pack-self-test.js");
  const { selfTestClosing, selfTestTable, isSound } = await import("../authoring/self-test.js");
  const { openStore } = await import("../store/open.js");
  const store = openStore(resolve(io.cwd, values.db));
  let outcome: PackSelfTestOutcome;
  try {
    outcome = await runPackSelfTest({
      tasks: selected.pack.tasks,
      targets: selected.targets,
      oracle,
      environment: (task) => task.id.replace(/^miniwob-/, ""),
      runOptions: { paths: [], pack: storedPack(selected) },
      store,
      outDir: resolve(io.cwd, values.out),
      concurrency,
      signal: io.signal,
      env: io.env,
      ...selfTestProgress(io),
    });
  } finally {
    store.close();
  }
  const { results, notExercised, runId } = outcome;
  const strict = values.strict === true;
  const sound = isSound(results, [], false) && (!strict || notExercised.length === 0) && !outcome.interrupted;
  const closing = selfTestClosing(results, outcome.concurrency, [], false, concurrency);
  const warnings = closing.filter((line) => line.startsWith("warning:"));
  const passed = results.filter((r) => r.probe.name === "oracle" && r.ok).length;
  const head = sound
    ? `pack ${selected.name} is sound as far as its probes reach: answer-now failed ${plural(selected.pack.tasks.length, "environment")}, the oracle passed ${passed}, ${notExercised.length} not exercised`
    : isSound(results, [], false)
      ? `pack ${selected.name} is unsound under --strict: ${plural(notExercised.length, "environment")} no probe exercised`
      : closing[0]!.replace("some tasks are", "some environments are");
  const stored = `stored as run ${runId} (tagged self-test): umpire show ${runId}, umpire report ${runId}`;
  if (values.json) {
    const selfTest = { sound, runId, results, notExercised, uncovered: [], warnings };
    io.stdout.write(`${JSON.stringify({ ...validation, selfTest }, null, 2)}\n`);
    io.stderr.write(`umpire validate: ${stored}\n`);
  } else {
    const findings = results
      .filter((r) => !r.ok)
      .flatMap((r) => [
        `${r.task} ${r.probe.name}: expected ${r.probe.expect}, got ${r.verdict} (${r.stopReason})`,
        ...r.reasons.map((x) => `  - ${x}`),
      ]);
    const unexercised = notExercised.map((n) => `not exercised: ${n.why}`);
    const blocks = [selfTestTable(results, terminalStyle(io.stdout, io.env)), findings, unexercised]
      .map((b) => (Array.isArray(b) ? b.map(oneLine).join("\n") : b))
      .filter(Boolean);
    io.stdout.write(`\n${blocks.join("\n\n")}\n\n${[head, ...warnings].join("\n")}\n${stored}\n`);
  }
  if (outcome.interrupted) return EXIT.interrupted;
  return sound ? EXIT.ok : EXIT.failed;
}
