/**
 * Reporters: optional hooks called through a multiplexer that isolates a failing reporter, so
 * a broken progress bar never stops a run. Isolated is not silent: every error goes to `onError`
 * (the run prints it and exits 4, since umpire did not do its whole job). The views themselves
 * (live view, log lines, dots) are the CLI's: src/cli/progress.ts.
 */
import type { PlannedTrial } from "./trial-plan.js";
import type { PlayedTurn } from "../trial/loop.js";
import type { StopReason, Verdict } from "../../vocabulary.js";

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

/** A run's live hooks, which reporters implement (the CLI's `Reporter` adds `onStoredRun`). */
export interface RunHooks {
  onRunBegin?(info: { runId: string; trials: PlannedTrial[] }): void;
  onTrialBegin?(trial: PlannedTrial): void;
  onStep?(trial: PlannedTrial, turn: PlayedTurn): void;
  onTrialEnd?(end: TrialEnd): void;
  onRunEnd?(info: { runId: string; status: "finished" | "interrupted"; ends: TrialEnd[] }): void;
}

/** A reporter hook that threw: which hook, and the error. */
export interface ReporterFailure {
  hook: keyof RunHooks;
  error: unknown;
}

/**
 * One reporter made of many. A hook that throws does not stop the others or the run; it is handed
 * to `onError`, which is required so that no caller can swallow a broken reporter by default.
 */
export function multiplexReporters(
  reporters: RunHooks[],
  onError: (failure: ReporterFailure) => void,
): Required<RunHooks> {
  const call = <K extends keyof RunHooks>(hook: K, ...args: Parameters<NonNullable<RunHooks[K]>>) => {
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
