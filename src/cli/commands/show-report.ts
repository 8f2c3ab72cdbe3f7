/**
 * `umpire show-report [folder]`: serves a report folder (default: the latest run's report, where
 * `umpire report` writes it by default) on 127.0.0.1 and prints the URL, for a machine whose
 * browser is elsewhere (forward the port over SSH). Like Playwright Test's `show-report`.
 */
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { UmpireError } from "../../errors.js";
import { defaultReportDir } from "../../report/html/writer.js";
import { INDEX_PAGE } from "../../report/html/layout.js";
import { OPTIONS as O } from "../../config/options.js";
import type { ParsedCommand } from "../args.js";
import { defineCommand } from "../command.js";
import { EXIT } from "../exit-codes.js";
import type { CommandIO } from "../io.js";
import { REPORT_PORT_OPTION, serveUntilStopped } from "../serve-report.js";
import { withReadStore } from "../read-store.js";

const OPTIONS = {
  port: { ...REPORT_PORT_OPTION, help: "the port to listen on (127.0.0.1 only)" },
  db: { ...O.db, help: "the database whose latest run's report is served\\nwhen no folder is given" },
} as const;

export const run = defineCommand({
  name: "show-report",
  options: OPTIONS,
  positionals: [{ name: "folder" }],
  example: "umpire show-report [folder] [--port N]",
  description: `Serves an HTML report folder on http://127.0.0.1:<port>/ and prints the URL; Ctrl-C stops.
Without a folder: the latest run's report (write it first with \`umpire report\`).`,
  run: execute,
});

async function execute({ values, positionals }: ParsedCommand<typeof OPTIONS>, io: CommandIO): Promise<number> {
  let folder: string;
  if (positionals[0]) folder = resolve(io.cwd, positionals[0]);
  else folder = withReadStore(values.db, io, (store) => defaultReportDir(store.getRun("latest"), io.cwd));
  if (!existsSync(join(folder, INDEX_PAGE))) {
    throw new UmpireError(
      "not_found",
      `${folder} holds no report (no ${INDEX_PAGE})`,
      "write one with `umpire report [run]`, or name a report folder: umpire show-report <folder>",
    );
  }
  await serveUntilStopped(folder, values.port, io);
  return EXIT.ok;
}
