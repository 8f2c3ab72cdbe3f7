/**
 * A run's CPU as reports say it (issue 42 §3): CPU per episode, the mean of the run's total over its
 * trials. Trials that run at once share the machine, so the mean is each trial's share of what the run
 * spent (umpire, its browsers and renderers, command agents, app servers), not one episode's own
 * measurement. Not measured is said as such, never as 0.
 */
import type { RunCpu, RunRecord } from "../store/records.js";
import { formatMs } from "./format.js";

/** The run's CPU seconds per trial (the mean), or null when not measured. */
export function cpuPerTrialSeconds(cpu: RunCpu | undefined): number | null {
  if (!cpu || cpu.seconds === null || cpu.trials <= 0) return null;
  return cpu.seconds / cpu.trials;
}

/** One line: "CPU per episode 1.9 s (mean: ...)", or why it is not known. */
export function cpuLine(run: RunRecord): string {
  const cpu = run.cpu;
  if (!cpu) return "CPU per episode: not measured (no trial ran, or an umpire before issue 42 ran it)";
  const mean = cpuPerTrialSeconds(cpu);
  if (mean === null) return `CPU per episode: not measured (${cpu.notMeasured ?? "no reading"})`;
  const partly = cpu.notMeasured ? `; a resumed session was not measured: ${cpu.notMeasured}` : "";
  return (
    `CPU per episode ${formatMs(mean * 1000)} (a mean: ${formatMs((cpu.seconds ?? 0) * 1000)} CPU over ${cpu.trials} ` +
    `trial${cpu.trials === 1 ? "" : "s"} in ${formatMs(cpu.wallSeconds * 1000)}, umpire and the ` +
    `${cpu.processes ?? "?"} processes in its tree at the end${partly})`
  );
}

/** The run's CPU in `--json`: always present; `seconds` and `perTrialMeanSeconds` null when not measured. */
export interface RunCpuJson {
  seconds: number | null;
  perTrialMeanSeconds: number | null;
  trials: number;
  wallSeconds: number | null;
  processes: number | null;
  notMeasured: string | null;
}

export function cpuJson(run: RunRecord): RunCpuJson {
  const cpu = run.cpu;
  if (!cpu)
    return {
      seconds: null,
      perTrialMeanSeconds: null,
      trials: 0,
      wallSeconds: null,
      processes: null,
      notMeasured: "not recorded for this run",
    };
  const round = (n: number | null) => (n === null ? null : Math.round(n * 1000) / 1000);
  return {
    seconds: round(cpu.seconds),
    perTrialMeanSeconds: round(cpuPerTrialSeconds(cpu)),
    trials: cpu.trials,
    wallSeconds: round(cpu.wallSeconds),
    processes: cpu.processes,
    notMeasured: cpu.notMeasured,
  };
}
