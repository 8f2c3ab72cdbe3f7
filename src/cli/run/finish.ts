/**
 * Phase "finish": once the runtime is closed, says how the run ended (finished only when every
 * planned trial has a judged verdict), writes the summary, the reporters' outputs and the HTML
 * report, and gives the exit code.
 */
import { benchmarkTable } from "../../report/benchmark-table.js";
import { writeRunReport } from "../../report/html/writer.js";
import { runExitCode, type VerdictCounts } from "../exit-codes.js";
import { writeRunOutputs } from "../reporters.js";
import { renderRunOutcome } from "./run-output.js";
import { decisionText, moneyStopNotice } from "./until-decided.js";
import { fromPhase, type RunContext } from "./context.js";
import type { Phase } from "./phases.js";
import type { ValueSource } from "../args.js";

export const finishPhase: Phase<RunContext> = {
  title: "finish",
  setup(ctx) {
    const { settings, values, io } = ctx;
    const { outputs, prices } = settings;
    const store = fromPhase(ctx.store, "select");
    const { runId } = fromPhase(ctx.plan, "plan");
    const outcome = fromPhase(ctx.outcome, "execute");
    // Finished only when every planned trial has a judged verdict (a cancelled one, or one --max-failures left unstarted, waits for --resume).
    if (outcome.status === "interrupted" || store.unfinishedTrials(runId).length > 0) store.markInterrupted(runId);
    else store.finishRun(runId, "finished");
    ctx.finished = true;
    // --json (a json reporter on stdout) keeps the run's JSON shape with its concurrency report.
    const stdoutJson = outputs.reporters.some((r) => r.name === "json" && !r.file);
    const counts =
      outputs.summary || stdoutJson
        ? renderRunOutcome(store, runId, prices, io, stdoutJson, {
            concurrency: outcome.concurrency.map((r) => ({ ...r, pinnedBy: pinnedBy(ctx.sources.concurrency) })),
            pools: outcome.pools,
          })
        : verdictCounts(store.trials(runId));
    // stdout stays pure JSON under --json: notes go to stderr then.
    const notes = outputs.summary ? io.stdout : io.stderr;
    const others = { ...outputs, reporters: outputs.reporters.filter((r) => !(r.name === "json" && !r.file)) };
    for (const note of writeRunOutputs(others, store, runId, prices, io)) notes.write(`${note}\n`);
    if (outcome.decided) notes.write(decisionText(outcome.decided));
    // A benchmark pack's run ends with the table its papers print: success per environment and overall, with intervals.
    const pack = ctx.selection?.pack;
    if (pack) for (const line of benchmarkTable(store.trials(runId), `${pack.name}-`)) notes.write(`${line}\n`);
    const { stoppedEarly } = outcome;
    if (stoppedEarly) {
      io.stderr.write(
        `umpire: stopped after ${plural(stoppedEarly.failures, "failed or error trial")} (--max-failures ${settings.maxFailures}); ${plural(stoppedEarly.notStarted, "trial")} not run: umpire run --resume ${runId} runs them\n`,
      );
    }
    if (values.report) {
      const { indexPath } = writeRunReport(store, runId, { prices, cwd: io.cwd });
      notes.write(`report: ${indexPath}\n`);
    }
    const unpaid = settings.runSpend ? moneyStopNotice(store, runId, settings.runSpend) : null;
    if (unpaid) io.stderr.write(unpaid);
    return runExitCode(counts, {
      interrupted: outcome.status === "interrupted" || unpaid !== null,
      reporterFailed: outcome.reporterFailed,
    });
  },
};

/** Failures and errors of stored trials, for the exit code when nothing prints the summary. */
function verdictCounts(trials: readonly { verdict: string | null }[]): VerdictCounts {
  return {
    failed: trials.filter((t) => t.verdict === "failed").length,
    errors: trials.filter((t) => t.verdict === "error").length,
  };
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;

/** Where a pinned concurrency came from, in the summary's words: the flag, the config file's defaults, or umpire's default. */
export function pinnedBy(source: ValueSource | undefined): string {
  if (source === "config") return "the config file's defaults.concurrency";
  if (source === "flag") return "--concurrency";
  return "the default";
}
