/** `umpire runs`: the stored runs, newest first. */
import { resolve } from "node:path";
import { parseArgs } from "node:util";
import { UmpireError } from "../../errors.js";
import { openStore } from "../../store/index.js";
import { runsTable } from "../../report/tables.js";
import { terminalStyle } from "../../report/table-layout.js";
import { EXIT } from "../exit-codes.js";
import type { Command } from "../io.js";

export const DEFAULT_DB = "results/umpire.db";

const HELP = `usage: umpire runs [--db FILE] [--limit N] [--json]

Lists the stored runs, newest first: status, tags, trials, passes, failures, errors, cancelled, cost.

  --db FILE   the results database (default ${DEFAULT_DB})
  --limit N   show only the newest N runs
  --json      print JSON only
`;

export const run: Command = async (argv, io) => {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: { db: { type: "string" }, limit: { type: "string" }, json: { type: "boolean" }, help: { type: "boolean", short: "h" } },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new UmpireError("usage", (error as Error).message, "umpire runs --help lists the options");
  }
  if (values.help) {
    io.stdout.write(HELP);
    return EXIT.ok;
  }
  const limit = values.limit === undefined ? undefined : Number(values.limit);
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
    throw new UmpireError("usage", `--limit ${values.limit}: not a positive whole number`, "e.g. --limit 10");
  }
  const store = openStore(resolve(io.cwd, values.db ?? DEFAULT_DB), { readonly: true });
  try {
    const runs = store.listRuns().slice(0, limit);
    if (values.json) io.stdout.write(`${JSON.stringify({ runs }, null, 2)}\n`);
    else io.stdout.write(runsTable(runs, terminalStyle(io.stdout, io.env)));
    return EXIT.ok;
  } finally {
    store.close();
  }
};
