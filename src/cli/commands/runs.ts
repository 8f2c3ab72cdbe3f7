import { EXIT } from "../exit-codes.js";
import { OPTIONS as O } from "../../config/options.js";
import type { ParsedCommand } from "../args.js";
import { defineCommand } from "../command.js";
import type { CommandIO } from "../io.js";

const OPTIONS = {
  db: O.db,
  limit: { kind: "int", arg: "N", min: 1, help: "show only the newest N runs" },
  json: { ...O.json, help: "print JSON only" },
  config: O.config,
} as const;

export const run = defineCommand({
  name: "runs",
  options: OPTIONS,
  positionals: [],
  description: `Lists the stored runs, newest first: status, tags, trials, passes, failures, errors, cancelled, cost.`,
  run: execute,
});

async function execute({ values }: ParsedCommand<typeof OPTIONS>, io: CommandIO): Promise<number> {
  // Loaded here, not at the top: `runs --help` then starts without SQLite and the table code.
  const [{ withReadStore }, { runsTable }, { terminalStyle }] = await Promise.all([
    import("../read-store.js"),
    import("../../report/tables.js"),
    import("../../report/table-layout.js"),
  ]);
  const limit = values.limit;
  const runs = withReadStore(values.db, io, (store) => store.listRuns().slice(0, limit));
  if (values.json) io.stdout.write(`${JSON.stringify({ runs }, null, 2)}\n`);
  else io.stdout.write(runsTable(runs, terminalStyle(io.stdout, io.env)));
  return EXIT.ok;
}
