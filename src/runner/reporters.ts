/**
 * Reporters: optional hooks called through a multiplexer that isolates a failing reporter, so
 * a broken progress bar never stops a run. The views themselves (live view, log lines, dots) are
 * the CLI's: src/cli/progress.ts.
 */
import type { PlannedTrial } from "./plan.js";
import type { TurnRecord } from "./loop.js";
import type { StopReason } from "./stop-reason.js";
import type { Verdict } from "./trial.js";

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
  onStep?(trial: PlannedTrial, turn: TurnRecord): void;
  onTrialEnd?(end: TrialEnd): void;
  onRunEnd?(info: { runId: string; status: "finished" | "interrupted"; ends: TrialEnd[] }): void;
}

export function multiplexReporters(reporters: Reporter[], onError: (error: unknown) => void = () => {}): Required<Reporter> {
  const call = <K extends keyof Reporter>(hook: K, ...args: Parameters<NonNullable<Reporter[K]>>) => {
    for (const reporter of reporters) {
      try {
        (reporter[hook] as ((...a: unknown[]) => void) | undefined)?.apply(reporter, args);
      } catch (error) {
        onError(error);
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
