/**
 * How busy the whole machine was while a benchmark ran: CPU time of every process (from
 * /proc/stat) and the load average. On a shared machine, other work inflates every wall-clock
 * figure; printing it beside the figures lets a reader judge them.
 */
import { readFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";

export interface MachineSnapshot {
  at: number;
  /** Busy and total jiffies summed over all CPUs; null where /proc/stat is missing. */
  busy: number | null;
  total: number | null;
}

export function snapshotMachine(): MachineSnapshot {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n")[0]!;
    const values = line.trim().split(/\s+/).slice(1).map(Number);
    const idle = (values[3] ?? 0) + (values[4] ?? 0); // idle + iowait
    const total = values.slice(0, 8).reduce((a, b) => a + b, 0); // guest time is already in user
    return { at: performance.now(), busy: total - idle, total };
  } catch {
    return { at: performance.now(), busy: null, total: null };
  }
}

export interface MachineUsage {
  /** Cores kept busy on average, by every process on the machine. */
  coresBusy: number | null;
  cores: number;
  loadAverage1m: number;
}

/** Average busy cores between `since` and now. */
export function machineUsageSince(since: MachineSnapshot): MachineUsage {
  const now = snapshotMachine();
  const cores = availableParallelism();
  const coresBusy =
    now.busy !== null && since.busy !== null && now.total !== null && since.total !== null && now.total > since.total
      ? Math.round(((now.busy - since.busy) / (now.total - since.total)) * cores * 100) / 100
      : null;
  return { coresBusy, cores, loadAverage1m: Math.round(loadavg()[0]! * 100) / 100 };
}
