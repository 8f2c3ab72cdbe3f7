/**
 * `umpire history`: cost per task over time. Per task and agent over the last N runs: pass rate,
 * cost per success, mean tokens and p50 wall time with their trends, flagging a cost rise beyond a
 * threshold and a pass-rate drop the paired test calls significant (src/report/history.ts).
 */
import { UmpireError } from "../../errors.js";
import { DEFAULT_HISTORY_RUNS } from "../../store/history-query.js";
import { DEFAULT_ALPHA, DEFAULT_COST_THRESHOLD_PCT, buildHistory } from "../../report/history.js";
import { historyMarkdown, historyTable } from "../../report/history-text.js";
import { terminalStyle } from "../../report/table-layout.js";
import { OPTIONS as O } from "../../config/options.js";
import type { ParsedCommand } from "../args.js";
import { defineCommand } from "../command.js";
import { EXIT } from "../exit-codes.js";
import type { CommandIO } from "../io.js";
import { withReadStore } from "../read-store.js";

const OPTIONS = {
  db: O.db,
  task: { kind: "string", arg: "ID", multiple: true, help: "only this task id (repeatable)" },
  agent: {
    kind: "string",
    arg: "A",
    multiple: true,
    help: "only this agent: a label such as reference/structured,\nor a config agent's name (repeatable)",
  },
  tag: { kind: "string", arg: "T", multiple: true, help: "only runs labelled with this tag (repeatable: all of them)" },
  last: {
    kind: "int",
    arg: "N",
    min: 2,
    default: DEFAULT_HISTORY_RUNS,
    help: "the last N runs of each task and agent",
  },
  "cost-threshold": {
    kind: "number",
    arg: "PCT",
    min: 0,
    default: DEFAULT_COST_THRESHOLD_PCT,
    help: "flag a cost-per-success rise above this percentage",
  },
  json: { ...O.json, help: "print JSON only" },
  markdown: { kind: "boolean", help: "print a Markdown table (e.g. for a pull-request comment)" },
  config: O.config,
} as const;

export const run = defineCommand({
  name: "history",
  options: OPTIONS,
  positionals: [],
  example: "umpire history --task ID --agent A",
  description: `Cost per task over time: per task and agent, over its last N runs, the pass rate, cost per
success, mean tokens and p50 wall time, each as first → last (change). Flags a cost-per-success
rise beyond --cost-threshold and a pass-rate drop that the exact McNemar test on the first and last
runs' repeats calls significant (p < ${DEFAULT_ALPHA}). A task or agent whose stored hash changed starts a
new segment: the trend and flags cover only the runs since the change.`,
  run: execute,
});

async function execute({ values }: ParsedCommand<typeof OPTIONS>, io: CommandIO): Promise<number> {
  if (values.json && values.markdown)
    throw new UmpireError("usage", "--json and --markdown cannot be combined", "pick one output format");
  const rows = withReadStore(values.db, io, (store) =>
    store.history({
      tasks: values.task ?? [],
      agents: values.agent ?? [],
      tags: values.tag ?? [],
      lastRuns: values.last,
    }),
  );
  const history = buildHistory(rows, { costThresholdPct: values["cost-threshold"] });
  if (values.json) io.stdout.write(`${JSON.stringify(history, null, 2)}\n`);
  else if (values.markdown) io.stdout.write(historyMarkdown(history));
  else io.stdout.write(historyTable(history, terminalStyle(io.stdout, io.env)));
  return EXIT.ok;
}
