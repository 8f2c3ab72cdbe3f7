/**
 * Phase "execute": runs the planned trials (then, with --until-decided, the repeats that decide
 * the comparison with the baseline), with a heartbeat that tells readers the run is alive and an
 * exit hook that marks it interrupted if the process dies (a second Ctrl-C). Its teardown stops both.
 */
import type { PlannedTrial } from "../../runner/schedule/trial-plan.js";
import { messageOf } from "../../errors.js";
import { HEARTBEAT_MS } from "../../store/rows.js";
import { poolReports } from "../../targets/pool-report.js";
import { EXIT } from "../exit-codes.js";
import { liveReporters, type Reporter } from "../reporters.js";
import { executeTrials } from "../../runtime/suite-runtime.js";
import { addRepeatsUntilDecided } from "./until-decided.js";
import { fromPhase, type Outcome, type RunContext } from "./context.js";
import type { Phase } from "./phases.js";

export const executePhase: Phase<RunContext> = {
  title: "execute",
  async setup(ctx) {
    const store = fromPhase(ctx.store, "select");
    const { runId } = fromPhase(ctx.plan, "plan");
    // Readers tell a live run from one killed with -9 by its owner's pid and this heartbeat.
    const heartbeat = setInterval(() => {
      try {
        store.heartbeat(runId);
      } catch {
        /* a full disk is reported by the trial writes; the heartbeat only goes stale */
      }
    }, HEARTBEAT_MS);
    heartbeat.unref();
    // A second Ctrl-C exits the process at once: still leave the run marked as interrupted.
    const markOnExit = () => {
      if (!ctx.finished) store.markInterrupted(runId);
    };
    process.once("exit", markOnExit);
    ctx.stopHeartbeat = () => {
      clearInterval(heartbeat);
      process.off("exit", markOnExit);
    };
    try {
      ctx.outcome = await executePlan(ctx);
    } catch (error) {
      // A storage fault (or a crash) stopped the run: mark it interrupted so `umpire runs` and
      // --resume see it as such. The store itself may be what is full: then the dead-owner check
      // in `umpire runs` shows it interrupted anyway.
      try {
        store.markInterrupted(runId);
        ctx.finished = true;
      } catch {
        /* the original error says what happened */
      }
      throw error;
    }
  },
  teardown(ctx) {
    ctx.stopHeartbeat?.();
  },
};

async function executePlan(ctx: RunContext): Promise<Outcome> {
  const { settings, values, io } = ctx;
  const store = fromPhase(ctx.store, "select");
  const runtime = fromPhase(ctx.runtime, "persist");
  const { runId, runDir, trials, previousAttempts } = fromPhase(ctx.plan, "plan");
  const reporters: Reporter[] = liveReporters(settings.outputs, io);
  let reporterFailed = false;
  const execute = (batch: PlannedTrial[]) =>
    executeTrials({
      runSpend: settings.runSpend,
      runtime,
      store,
      runId,
      runDir,
      trials: batch,
      env: io.env,
      prices: settings.prices,
      concurrency: settings.concurrency,
      modelConcurrency: settings.modelConcurrency,
      repetition: settings.repetition,
      reporters,
      // Isolated from the run, but loud: the user learns their output is incomplete, and the exit code says so.
      onReporterError: ({ hook, error }) => {
        reporterFailed = true;
        const why = messageOf(error);
        io.stderr.write(`umpire: a reporter failed in ${hook} (the run goes on; exit code ${EXIT.internal}): ${why}\n`);
      },
      signal: io.signal,
      previousAttempts,
      retries: values.retries,
      maxFailures: settings.maxFailures,
      trace: values.trace,
    });
  const result = await execute(trials);
  let status = result.status;
  const { baselineId } = ctx;
  const decide = baselineId && status === "finished" && !result.stoppedEarly;
  const decided = decide
    ? await addRepeatsUntilDecided({
        store,
        runId,
        baselineId,
        planned: trials,
        prices: settings.prices,
        execute,
        maxTrials: values["max-trials"],
        maxCostUsd: values["max-cost"],
      })
    : undefined;
  if (decided?.stoppedBy === "interrupted") status = "interrupted";
  const pools = poolReports(runtime.targets.all());
  return { status, stoppedEarly: result.stoppedEarly, concurrency: result.concurrency, pools, decided, reporterFailed };
}
