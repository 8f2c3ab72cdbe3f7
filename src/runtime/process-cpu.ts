/**
 * The CPU a run spends, counted by the kernel (issue 42 §3): umpire's own process and every process
 * it started, read from `/proc/<pid>/stat` when its trials start and again when they end (before the
 * browsers close). Per process, `utime + stime` is what it ran itself (all its threads) and
 * `cutime + cstime` what its children ran that ended and were waited for: a renderer the zygote
 * reaped, a browser Playwright closed, a command agent that exited. The sum over the tree is
 * therefore everything the tree ran, ended or not, with each process counted once (a live child is
 * not yet in its parent's `cutime`). What escapes it: a process that outlived its parent (reparented
 * to init), a remote browser (`--browser-endpoint`), a model served elsewhere. Linux only: without
 * `/proc` the reading says why, and the run stores "not measured", never 0.
 */
import { readdirSync, readFileSync } from "node:fs";
import { messageOf } from "../errors.js";

/** The kernel's clock ticks per second in `/proc/<pid>/stat` (USER_HZ: 100 on every Linux architecture umpire runs on). */
export const CLOCK_TICKS_PER_SECOND = 100;

/** The tree's CPU so far, or why it cannot be read here. */
export type TreeCpu = { seconds: number; processes: number } | { notMeasured: string };

interface ProcStat {
  ppid: number;
  /** utime + stime + cutime + cstime, in clock ticks. */
  ticks: number;
}

/** Fields of `/proc/<pid>/stat` after the command name (which may hold spaces and parentheses). */
export function parseStat(text: string): ProcStat | undefined {
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  // After ")": state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
  const numbers = [1, 11, 12, 13, 14].map((i) => Number(fields[i]));
  if (numbers.some((n) => !Number.isFinite(n))) return undefined;
  const [ppid, ...times] = numbers as [number, number, number, number, number];
  return { ppid, ticks: times.reduce((a, b) => a + b, 0) };
}

function readStat(procDir: string, pid: string): ProcStat | undefined {
  try {
    return parseStat(readFileSync(`${procDir}/${pid}/stat`, "utf8"));
  } catch {
    return undefined; // ended between the listing and the read
  }
}

/** CPU seconds of `root` and all its descendants, from one scan of `procDir`. */
export function readTreeCpu(root: number = process.pid, procDir = "/proc"): TreeCpu {
  const own = readStat(procDir, String(root));
  if (!own) return { notMeasured: `${procDir}/${root}/stat cannot be read (CPU is read from /proc: Linux only)` };
  const children = new Map<number, number[]>();
  const stats = new Map<number, ProcStat>([[root, own]]);
  let pids: string[];
  try {
    pids = readdirSync(procDir).filter((name) => /^\d+$/.test(name));
  } catch (error) {
    return { notMeasured: `${procDir} cannot be listed (${messageOf(error)})` };
  }
  for (const pid of pids) {
    if (Number(pid) === root) continue;
    const stat = readStat(procDir, pid);
    if (!stat) continue;
    stats.set(Number(pid), stat);
    children.set(stat.ppid, [...(children.get(stat.ppid) ?? []), Number(pid)]);
  }
  let ticks = 0;
  let processes = 0;
  const queue = [root];
  for (let pid = queue.shift(); pid !== undefined; pid = queue.shift()) {
    ticks += stats.get(pid)?.ticks ?? 0;
    processes += 1;
    queue.push(...(children.get(pid) ?? []));
  }
  return { seconds: ticks / CLOCK_TICKS_PER_SECOND, processes };
}

/** What a run's trials cost in CPU between two readings; `notMeasured` when either reading failed. */
export interface CpuSpan {
  seconds: number | null;
  /** Trials that ended in the span (their retried attempts' CPU is in `seconds` too). */
  trials: number;
  wallSeconds: number;
  /** Processes in the tree at the end (umpire, browsers, renderers, command agents, app servers). */
  processes: number | null;
  notMeasured: string | null;
}

/** Starts measuring: `end(trials)` reads again and gives the span. */
export function startCpuSpan(read: () => TreeCpu = () => readTreeCpu()): { end(trials: number): CpuSpan } {
  const before = read();
  const started = performance.now();
  return {
    end(trials) {
      const after = read();
      const wallSeconds = (performance.now() - started) / 1000;
      if ("notMeasured" in before || "notMeasured" in after) {
        const why = "notMeasured" in before ? before.notMeasured : (after as { notMeasured: string }).notMeasured;
        return { seconds: null, trials, wallSeconds, processes: null, notMeasured: why };
      }
      // A tree reading only grows; a drop means a process left the tree with its count (reparented).
      const seconds = Math.max(0, after.seconds - before.seconds);
      return { seconds, trials, wallSeconds, processes: after.processes, notMeasured: null };
    },
  };
}
