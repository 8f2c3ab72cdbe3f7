/**
 * What `umpire run` prints when the trials are done: JSON only (--json), or the summary table,
 * and, when the run has both output modes, the structured-vs-function-calling comparison.
 */
import { compareGroups, groupTrialsBy } from "../../report/compare.js";
import { reportedCost } from "../../report/cost.js";
import type { PriceBook } from "../../pricing.js";
import { runSummaryLine, runSummaryTable } from "../../report/run-summary.js";
import { compareText } from "../../report/tables.js";
import { terminalStyle } from "../../report/table-layout.js";
import { runToJson, trialToJson } from "../../report/trial-json.js";
import type { Store } from "../../store/store.js";
import type { VerdictCounts } from "../exit-codes.js";
import type { CommandIO } from "../io.js";
import { describeConcurrency, type EndpointReport } from "../../runner/schedule/concurrency-gate.js";
import { describePools } from "../../targets/pool-report.js";
import type { PoolReport } from "../../targets/instance-pool.js";

/** Prints the run's outcome; returns its trials' failures and errors, for the exit code. */
export function renderRunOutcome(
  store: Store,
  runId: string,
  prices: PriceBook,
  io: CommandIO,
  json: boolean,
  extra: { concurrency?: EndpointReport[]; pools?: PoolReport[] } = {},
): VerdictCounts {
  const run = store.getRun(runId);
  const trials = store.trials(runId).map((t) => ({ ...t, costUsd: reportedCost(t, prices) }));
  const counts: VerdictCounts = {
    failed: trials.filter((t) => t.verdict === "failed").length,
    errors: trials.filter((t) => t.verdict === "error").length,
  };
  if (json) {
    const body = {
      ...runToJson(
        run,
        trials.map((t) => trialToJson(t, store.checks(t.id))),
      ),
      ...(extra.concurrency ? { concurrency: extra.concurrency } : {}),
      ...(extra.pools?.length ? { targets: extra.pools } : {}),
    };
    io.stdout.write(`${JSON.stringify(body, null, 2)}\n`);
    return counts;
  }
  const style = terminalStyle(io.stdout, io.env);
  io.stdout.write(`\nrun ${run.id} (${run.status})\n${runSummaryTable(trials, style)}\n${runSummaryLine(trials)}\n`);
  const modes = new Set(trials.map((t) => t.mode));
  if (modes.size > 1) {
    // An external agent (its own loop) is a mode of its own, not one of the two protocols.
    const heading = modes.has("external")
      ? "by mode (structured outputs, function calling, external agents)"
      : "structured outputs vs function calling";
    io.stdout.write(`\n${heading}\n${compareText(compareGroups(groupTrialsBy(trials, "mode"), "mode"), style)}`);
  }
  for (const line of describeConcurrency(extra.concurrency ?? [])) io.stdout.write(`\n${line}`);
  for (const line of describePools(extra.pools ?? [])) io.stdout.write(`\n${line}`);
  io.stdout.write(`\nstored in the database; details: umpire show ${run.id}\n`);
  return counts;
}
