/** `umpire show <run>`: one run's trials, stop reasons, costs, timings and every check. */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { UmpireError } from "../../errors.js";
import type { TurnRecord } from "../../store/records.js";
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
repetition metrics, and every check with its pass, confidence and reason.`,
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
    if (values.junit) writeFileSync(resolve(io.cwd, values.junit), junitXml([{ name: runRecord.id, trials: details }]));
    if (values.json) {
      if (!outputs.summary)
        throw new UmpireError(
          "usage",
          "--json and a reporter without a file would both write to stdout",
          "give the reporter a file: --reporter NAME:FILE",
        );
      const trials = details.map((d) => ({
        ...trialToJson(d.trial, d.checks),
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
