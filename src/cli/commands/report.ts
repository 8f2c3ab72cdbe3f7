/** `umpire report [run]`: writes the run's static HTML report and prints the path of its index.html. */
import { pathToFileURL } from "node:url";
import { openInBrowser } from "../open-in-browser.js";
import { REPORT_PORT_OPTION, serveUntilStopped } from "../serve-report.js";
import { UmpireError } from "../../errors.js";
import { writeRunReport } from "../../report/html/writer.js";
import { OPTIONS as O, PRICE_OPTIONS } from "../../config/options.js";
import { type ParsedCommand, pricesOf } from "../args.js";
import { defineCommand } from "../command.js";
import { EXIT } from "../exit-codes.js";
import type { CommandIO } from "../io.js";
import { withReadStore } from "../read-store.js";
import { resolveBaseline } from "../baseline.js";
import { divergencesBetween } from "../divergence-tools.js";
import type { Store } from "../../store/store.js";
import { compareGroups } from "../../report/compare.js";
import { changeLines, sidesOf } from "../../report/agent-changes.js";

const OPTIONS = {
  out: {
    kind: "string",
    arg: "PATH",
    defaultText: "<run folder>/report, or results/reports/<run id>\nwhen the run folder is gone",
    help: "the report folder; an earlier report there is replaced",
  },
  baseline: {
    kind: "string",
    arg: "RUN|TAG",
    help: "also write divergence.html: where each task that flipped between RUN (a tag\nmeans the newest run with it) and this run diverged, side by side",
  },
  db: O.db,
  ...PRICE_OPTIONS,
  open: {
    kind: "boolean",
    help: "open the report in this machine's browser ($BROWSER, open,\nstart or xdg-open) after writing it",
  },
  serve: {
    kind: "boolean",
    help: "serve the report on 127.0.0.1 and print its URL\n(for a remote machine); Ctrl-C stops",
  },
  port: { ...REPORT_PORT_OPTION, help: "the port --serve listens on" },
} as const;

export const run = defineCommand({
  name: "report",
  options: OPTIONS,
  positionals: [{ name: "run" }],
  example: "umpire report <run> [--out PATH]",
  description: `Writes a self-contained HTML report of one run (default: the latest; a unique prefix of its id is
enough) and prints the path of its index.html. Open it from disk in any browser: no server, no
network. It has the overview (summary, tasks x agent configs, every trial with filters and
sorting), one page per trial (each turn's screenshot with the proposed clicks drawn on it, the
model's thought, note and reasoning, each action's result, the checks), a side-by-side view and
a history page (cost per success and pass rate per task over the runs up to this one).
With --baseline, divergence.html shows, for each task that flipped between the baseline and
this run, the turn where the two trajectories parted and the next one, side by side.
--open hands it to the local browser; --serve (or \`umpire show-report\`) serves it on 127.0.0.1.`,
  run: execute,
});

/** `--baseline`: the flipped tasks' divergences for divergence.html. */
function baselineDivergence(store: Store, runRef: string, baselineRef: string, cwd: string) {
  const candidate = store.getRun(runRef);
  const base = resolveBaseline(store, baselineRef, [candidate.id]);
  if (base.id === candidate.id)
    throw new UmpireError(
      "usage",
      `--baseline ${baselineRef} is the reported run itself`,
      "give an earlier run as --baseline",
    );
  // Paired as `compare` pairs them (task and agent name); what changed between the runs heads the page.
  const groups = [base, candidate].map((r) => ({ label: r.id, runIds: [r.id], trials: store.trials(r.id) }));
  const comparison = compareGroups(groups, "run");
  const changes = changeLines(
    comparison,
    sidesOf(
      comparison,
      (id) => store.getRun(id),
      (label) => groups.find((g) => g.label === label)?.trials ?? [],
    ),
  );
  return { baseRun: base.id, changes, items: divergencesBetween(store, base, candidate, cwd, comparison) };
}

async function execute(parsed: ParsedCommand<typeof OPTIONS>, io: CommandIO): Promise<number> {
  const { values, positionals } = parsed;
  const prices = pricesOf(values, parsed.config);
  // The store closes once the report is written: opening a browser or serving may take a while.
  const result = withReadStore(values.db, io, (store) => {
    const runRef = positionals[0] ?? "latest";
    const divergence =
      values.baseline === undefined ? undefined : baselineDivergence(store, runRef, values.baseline, io.cwd);
    return writeRunReport(store, runRef, {
      out: values.out,
      prices,
      cwd: io.cwd,
      ...(divergence ? { divergence } : {}),
    });
  });
  if (result.files.missing > 0) {
    io.stderr.write(
      `umpire: ${result.files.missing} screenshot(s) of this run were not found on disk; the report marks them as missing\n`,
    );
  }
  io.stdout.write(`${result.indexPath}\n`);
  if (values.open && !values.serve) {
    const opened = await openInBrowser(pathToFileURL(result.indexPath).href, io.env);
    if (!opened)
      io.stderr.write(
        `umpire: no browser to open here (set $BROWSER, or install xdg-open); to view it from another machine: umpire show-report ${result.dir}\n`,
      );
  }
  if (values.serve) await serveUntilStopped(result.dir, values.port, io);
  return EXIT.ok;
}
