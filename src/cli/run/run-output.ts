/**
 * What `umpire run` prints when the trials are done: JSON only (--json), or the summary table,
 * and, when it has more than one mode (or named agents sharing one), the comparison of its groups.
 */
import { isNamedAgent, type ReportTrial } from "../../report/aggregate.js";
import { compareGroups, groupTrialsBy, inModeOrder } from "../../report/compare.js";
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

const MODE_WORDS: Readonly<Record<string, string>> = {
  structured: "structured outputs",
  tools: "function calling",
  external: "external agents",
};

/**
 * How the run's trials are compared at its end, or null with one mode. By mode, except when named
 * agents share a mode (two Claude agents, one per tool version): pooled, they would read as one
 * protocol and pair with nothing, so each named agent is a row (with its protocol beside the name).
 */
export function endOfRunSplit(
  trials: readonly Pick<ReportTrial, "mode" | "model" | "agentLabel">[],
): { by: "mode" | "agent"; heading: string } | null {
  const modes = [...new Set(trials.map((t) => t.mode))];
  const agentsOf = (mode: string) => new Set(trials.filter((t) => t.mode === mode).map((t) => t.agentLabel));
  if (trials.some(isNamedAgent) && modes.some((mode) => agentsOf(mode).size > 1)) {
    return { by: "agent", heading: "by agent (agents sharing a mode are rows of their own)" };
  }
  if (modes.length < 2) return null;
  if (modes.length === 2 && modes.includes("structured") && modes.includes("tools")) {
    return { by: "mode", heading: "structured outputs vs function calling" };
  }
  return {
    by: "mode",
    heading: `by mode (${inModeOrder(modes)
      .map((m) => MODE_WORDS[m] ?? m)
      .join(", ")})`,
  };
}

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
  const split = endOfRunSplit(trials);
  if (split) {
    const groups = groupTrialsBy(trials, split.by);
    io.stdout.write(`\n${split.heading}\n${compareText(compareGroups(groups, split.by), style)}`);
  }
  for (const line of describeConcurrency(extra.concurrency ?? [])) io.stdout.write(`\n${line}`);
  for (const line of describePools(extra.pools ?? [])) io.stdout.write(`\n${line}`);
  io.stdout.write(`\nstored in the database; details: umpire show ${run.id}\n`);
  return counts;
}
