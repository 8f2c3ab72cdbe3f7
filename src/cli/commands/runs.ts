/** `umpire runs`: the stored runs, newest first. */
import { UmpireError } from "../../errors.js";
import { EXIT } from "../exit-codes.js";
import { OPTIONS as O } from "../../config/options.js";
import { optionsHelp, parseCommand } from "../args.js";
import type { Command } from "../io.js";

const OPTIONS = {
  db: O.db,
  limit: { kind: "int", arg: "N", min: 1, help: "show only the newest N runs" },
  json: { ...O.json, help: "print JSON only" },
  config: O.config,
} as const;

const HELP = `usage: umpire runs [--db FILE] [--limit N] [--json]

Lists the stored runs, newest first: status, tags, trials, passes, failures, errors, cancelled, cost.

${optionsHelp({ "": OPTIONS })}`;

export const run: Command = async (argv, io) => {
  const parsed = parseCommand("runs", argv, OPTIONS, io);
  const { values, positionals } = parsed;
  if (parsed.help) {
    io.stdout.write(HELP);
    return EXIT.ok;
  }
  if (positionals.length > 0) throw new UmpireError("usage", `runs takes no arguments, got ${positionals.join(" ")}`, "umpire runs --help lists the options");
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
};
