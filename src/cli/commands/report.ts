/** `umpire report [run]`: writes the run's static HTML report and prints the path of its index.html. */
import { resolve } from "node:path";
import { UmpireError } from "../../errors.js";
import { openStore } from "../../store/index.js";
import { writeRunReport } from "../../report/html/index.js";
import { PRICE_OPTIONS, parseCommandArgs, pricesFromFlags } from "../args.js";
import { EXIT } from "../exit-codes.js";
import type { Command } from "../io.js";
import { DEFAULT_DB } from "./runs.js";

const HELP = `usage: umpire report [run] [--out PATH] [--db FILE] [--config FILE] [--price-in USD --price-out USD]

Writes a self-contained HTML report of one run (default: the latest; a unique prefix of its id is
enough) and prints the path of its index.html. Open it from disk in any browser: no server, no
network. It has the overview (summary, tasks x agent configs, every trial with filters and
sorting), one page per trial (each turn's screenshot with the proposed clicks drawn on it, the
model's thought, note and reasoning, each action's result, the checks) and a side-by-side view.

  --out PATH      the report folder (default: <run folder>/report, or results/reports/<run id>
                  when the run folder is gone); an earlier report there is replaced
  --db FILE       the results database (default ${DEFAULT_DB})
  --config FILE   prices from this file's "prices" (default: umpire.config.json if present)
  --price-in USD, --price-out USD
                  price every model at these USD per million tokens (re-prices stored tokens)
`;

export const run: Command = async (argv, io) => {
  const { values, positionals } = parseCommandArgs("report", argv, {
    out: { type: "string" },
    db: { type: "string" },
    ...PRICE_OPTIONS,
  });
  if (values.help) {
    io.stdout.write(HELP);
    return EXIT.ok;
  }
  if (positionals.length > 1) throw new UmpireError("usage", `report takes one run, got ${positionals.length}`, "umpire report <run> [--out PATH]");
  const prices = pricesFromFlags(values, io.cwd);
  const store = openStore(resolve(io.cwd, values.db ?? DEFAULT_DB), { readonly: true });
  try {
    const result = writeRunReport(store, positionals[0] ?? "latest", { out: values.out, prices, cwd: io.cwd });
    if (result.files.missing > 0) {
      io.stderr.write(`umpire: ${result.files.missing} screenshot(s) of this run were not found on disk; the report marks them as missing\n`);
    }
    io.stdout.write(`${result.indexPath}\n`);
    return EXIT.ok;
  } finally {
    store.close();
  }
};
