/**
 * Reporters: optional hooks called through a multiplexer that isolates a failing reporter, so
 * a broken progress bar never stops a run. Isolated is not silent: every error goes to `onError`
 * (the run prints it and exits 4, since umpire did not do its whole job). Output goes through an
 * injected stream.
 */
import type { PlannedTrial } from "./plan.js";
import type { PlayedTurn } from "./loop.js";
import type { StopReason, Verdict } from "../vocabulary.js";

export interface TrialEnd {
  trial: PlannedTrial;
  verdict: Verdict;
  stopReason: StopReason;
  stopLine: string;
  turns: number;
  actions: number;
  wallMs: number;
  retried: boolean;
}

export interface Reporter {
  onRunBegin?(info: { runId: string; trials: PlannedTrial[] }): void;
  onTrialBegin?(trial: PlannedTrial): void;
  onStep?(trial: PlannedTrial, turn: PlayedTurn): void;
  onTrialEnd?(end: TrialEnd): void;
  onRunEnd?(info: { runId: string; status: "finished" | "interrupted"; ends: TrialEnd[] }): void;
}

/** A reporter hook that threw: which hook, and the error. */
export interface ReporterFailure {
  hook: keyof Reporter;
  error: unknown;
}

/**
 * One reporter made of many. A hook that throws does not stop the others or the run; it is handed
 * to `onError`, which is required so that no caller can swallow a broken reporter by default.
 */
export function multiplexReporters(reporters: Reporter[], onError: (failure: ReporterFailure) => void): Required<Reporter> {
  const call = <K extends keyof Reporter>(hook: K, ...args: Parameters<NonNullable<Reporter[K]>>) => {
    for (const reporter of reporters) {
      try {
        (reporter[hook] as ((...a: unknown[]) => void) | undefined)?.apply(reporter, args);
      } catch (error) {
        onError({ hook, error });
      }
    }
  };
  return {
    onRunBegin: (info) => call("onRunBegin", info),
    onTrialBegin: (trial) => call("onTrialBegin", trial),
    onStep: (trial, turn) => call("onStep", trial, turn),
    onTrialEnd: (end) => call("onTrialEnd", end),
    onRunEnd: (info) => call("onRunEnd", info),
  };
}

import { oneLine } from "../safety/terminal.js";

const VERDICT_MARK: Record<Verdict, string> = { passed: "PASS", failed: "FAIL", error: "ERROR", cancelled: "CANCELLED" };

/**
 * Progress as trials finish: one line per trial when the stream is not a terminal, a
 * one-line bar redrawn in place when it is.
 */
export function createProgressReporter(stream: NodeJS.WritableStream & { isTTY?: boolean; columns?: number }): Reporter {
  let total = 0;
  let done = 0;
  let failed = 0;
  const started = Date.now();
  const line = (end: TrialEnd) =>
    // The stop line carries model and page text: one line, controls shown, so nothing can fake a line of ours.
    `${VERDICT_MARK[end.verdict].padEnd(5)} ${oneLine(end.trial.task.id)} [${oneLine(end.trial.agent.label)} #${end.trial.repeat}] ${end.stopReason}: ${oneLine(end.stopLine)} (${end.turns} turns, ${(end.wallMs / 1000).toFixed(1)} s${end.retried ? ", retried" : ""})`;
  return {
    onRunBegin(info) {
      total = info.trials.length;
      stream.write(`umpire: run ${info.runId}: ${total} ${total === 1 ? "trial" : "trials"}\n`);
    },
    onTrialEnd(end) {
      done += 1;
      if (end.verdict !== "passed") failed += 1;
      if (stream.isTTY) {
        const width = Math.max(20, Math.min(40, (stream.columns ?? 80) - 50));
        const filled = Math.round((done / Math.max(total, 1)) * width);
        const elapsed = ((Date.now() - started) / 1000).toFixed(0);
        if (end.verdict !== "passed") stream.write(`\r\x1b[K${line(end)}\n`);
        stream.write(`\r\x1b[K[${"#".repeat(filled)}${"-".repeat(width - filled)}] ${done}/${total} done, ${failed} not passed, ${elapsed} s`);
        if (done === total) stream.write("\n");
      } else {
        stream.write(`[${done}/${total}] ${line(end)}\n`);
      }
    },
  };
}
