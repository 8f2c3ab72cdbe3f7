/** `umpire show <run>`: one run's trials, stop reasons, costs, timings and every check. */
import { writeOutputFile } from "../output-file.js";
import { resolve } from "node:path";
import { UmpireError } from "../../errors.js";
import type { RunRecord, TrialRecord, TurnRecord } from "../../store/records.js";
import { reportedCost } from "../../report/cost.js";
import { costOfUsage } from "../../pricing.js";
import { junitXml } from "../../report/junit.js";
import { showText, type TrialDetail } from "../../report/tables.js";
import { terminalStyle } from "../../report/table-layout.js";
import { runToJson, trialToJson } from "../../report/trial-json.js";
import { OPTIONS as O, PRICE_OPTIONS } from "../../config/options.js";
import { type ParsedCommand, pricesOf } from "../args.js";
import { defineCommand } from "../command.js";
import { planOutputs, writeRunOutputs } from "../reporters.js";
import { dotLine } from "../progress.js";
import { runSummaryLine } from "../../report/run-summary.js";
import { EXIT } from "../exit-codes.js";
import type { CommandIO } from "../io.js";
import { withReadStore } from "../read-store.js";
import { readTrialEvidence } from "../../checks/trial-evidence.js";

/**
 * What of the environment can differ from trial to trial inside one run: the target it ran against
 * (and that target's version as the run recorded it), its viewport and scale factor (per task), and
 * for a command agent the sandbox it ran in. Read from the trial's stored evidence; null without it.
 */
function trialEnvironment(run: RunRecord, trial: TrialRecord, cwd: string): Record<string, unknown> | null {
  if (!run.folder || !trial.folder) return null;
  let evidence: ReturnType<typeof readTrialEvidence> = null;
  try {
    evidence = readTrialEvidence(resolve(cwd, run.folder, trial.folder));
  } catch {
    return null; // unreadable evidence: unknown, never guessed
  }
  if (!evidence) return null;
  const versions = (run.environment?.targets ?? {}) as Record<string, unknown>;
  return {
    target: { name: evidence.target.name, version: versions[evidence.target.name] ?? null },
    viewport: evidence.viewport,
    ...(trial.sandbox ? { sandbox: trial.sandbox } : {}),
  };
}

const OPTIONS = {
  turns: {
    kind: "boolean",
    help: "also list every turn (model time, first token, tokens, cost) and action\n(status, executor time, message)",
  },
  json: { ...O.json, help: "print JSON only (the same trial shape as `umpire run --json`)" },
  junit: { kind: "string", arg: "FILE", help: "also write the trials as JUnit XML (same as --reporter junit:FILE)" },
  // Not from the config file's defaults here: those are for runs, and show would rewrite a run's files.
  reporter: {
    ...O.reporter,
    config: false,
    help: "list (default) | dot | json | junit | markdown | html, each with an\noptional output file (html: a folder), as on umpire run; repeatable",
  },
  db: O.db,
  ...PRICE_OPTIONS,
} as const;

export const run = defineCommand({
  name: "show",
  options: OPTIONS,
  positionals: [{ name: "run" }],
  example: "umpire show <run>",
  description: `Shows one run (default: the latest; a unique prefix of its id is enough): per trial the verdict,
stop reason and detail, claimed/verified, turns, actions, tokens, cost, wall time and where it went,
repetition metrics, and every check with its pass, confidence and reason. The run's environment
(umpire, browser, Playwright, Node, OS, fonts, target versions) heads it, with each named agent whose
protocol was inferred from its model id and each task x agent pair not played (the agent's protocol
cannot offer a tool the task needs). Under the trials, per agent: passes, cost per success,
time per step and the model's calls umpire refused, by kind (invalidCalls in --json); --json also
gives each trial's environment (its target, viewport and sandbox).`,
  run: execute,
});

async function execute(parsed: ParsedCommand<typeof OPTIONS>, io: CommandIO): Promise<number> {
  const { values, positionals } = parsed;
  const prices = pricesOf(values, parsed.config);
  // --json keeps its own shape here (it may carry the turn log); other reporters render as on `umpire run`.
  const outputs = await planOutputs(
    (values.reporter ?? []).filter((r) => !(values.json && r === "json")),
    { cwd: io.cwd },
  );
  return withReadStore(values.db, io, (store) => {
    const runRecord = store.getRun(positionals[0] ?? "latest");
    // Re-price turns like trials when the user supplied prices (see reportedCost).
    const turnCost = (turn: TurnRecord, model: string) =>
      prices.userPrices ? costOfUsage(turn.usage, prices.lookup(model)) : turn.costUsd;
    const details: TrialDetail[] = store.trials(runRecord.id).map((t) => ({
      trial: { ...t, costUsd: reportedCost(t, prices) },
      checks: store.checks(t.id),
      ...(values.turns
        ? {
            turns: store.turns(t.id).map((turn) => ({ ...turn, costUsd: turnCost(turn, t.model) })),
            actions: store.actions(t.id),
          }
        : {}),
    }));
    if (values.junit)
      writeOutputFile(
        resolve(io.cwd, values.junit),
        junitXml([{ name: runRecord.id, trials: details }]),
        `--junit ${values.junit}`,
      );
    if (values.json) {
      if (!outputs.summary)
        throw new UmpireError(
          "usage",
          "--json and a reporter without a file would both write to stdout",
          "give the reporter a file: --reporter NAME:FILE",
        );
      const trials = details.map((d) => ({
        ...trialToJson(d.trial, d.checks),
        environment: trialEnvironment(runRecord, d.trial, io.cwd),
        ...(d.turns ? { turnLog: d.turns, actionLog: d.actions } : {}),
      }));
      io.stdout.write(`${JSON.stringify(runToJson(runRecord, trials), null, 2)}\n`);
    } else if (outputs.progress === "dot") {
      io.stdout.write(
        `${dotLine(details.map((d) => d.trial.verdict))}\n${runSummaryLine(details.map((d) => d.trial))}\n`,
      );
    } else if (outputs.summary) {
      io.stdout.write(showText(runRecord, details, terminalStyle(io.stdout, io.env)));
    }
    for (const note of writeRunOutputs(outputs, store, runRecord.id, prices, io))
      (outputs.summary && !values.json ? io.stdout : io.stderr).write(`${note}\n`);
    return EXIT.ok;
  });
}
