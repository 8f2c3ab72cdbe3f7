/**
 * Memory and CPU of this process and everything it started (Chromium and its renderers), read
 * from /proc. Playwright's `Browser` does not expose its process, but a launched Chromium is a
 * child of this Node process, so "this process and its descendants" is exactly
 * "umpire + its browser". Linux only; elsewhere `supported()` is false.
 *
 * The sampler must stay cheap, or it measures itself: the tree is walked through each process's
 * `task/<tid>/children` list (not a scan of all of /proc), RSS comes from `statm`, and the
 * costly PSS (`smaps_rollup` makes the kernel walk every page table) is read once a second only.
 */
import { readdirSync, readFileSync } from "node:fs";

export const CLOCK_TICKS_PER_SECOND = 100;
const PAGE_KB = 4;

export function readText(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined; // the process ended between listing and reading
  }
}

export function supported(): boolean {
  return readText(`/proc/${process.pid}/statm`) !== undefined;
}

function childrenOf(pid: number): number[] {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tids.flatMap((tid) =>
    (readText(`/proc/${pid}/task/${tid}/children`) ?? "").split(" ").filter(Boolean).map(Number),
  );
}

/** `root` and all its descendants. */
export function processTree(root: number = process.pid): number[] {
  const tree: number[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    tree.push(pid);
    queue.push(...childrenOf(pid));
  }
  return tree;
}

function rssKb(pid: number): number {
  const statm = readText(`/proc/${pid}/statm`);
  return statm ? Number(statm.split(" ")[1]) * PAGE_KB : 0;
}

function pssKb(pid: number): number {
  const match = readText(`/proc/${pid}/smaps_rollup`)?.match(/^Pss:\s+(\d+) kB/m);
  return match ? Number(match[1]) : 0;
}

export interface TreeReading {
  /** Sum of resident memory (shared pages counted once per process, so an upper bound). */
  rssMb: number;
  /** Sum of PSS (shared pages split between the processes sharing them: the fair total). */
  pssMb: number;
  processes: number;
}

/** Current RSS and PSS of the tree. */
export function readTreeMemory(root: number = process.pid): TreeReading {
  const pids = processTree(root);
  return {
    rssMb: pids.reduce((a, p) => a + rssKb(p), 0) / 1024,
    pssMb: pids.reduce((a, p) => a + pssKb(p), 0) / 1024,
    processes: pids.length,
  };
}

export function stat(pid: number): string[] | undefined {
  const text = readText(`/proc/${pid}/stat`);
  // The command name may contain spaces and parentheses; fields resume after the last ')'.
  // After the name: state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14).
  return text?.slice(text.lastIndexOf(")") + 2).split(" ");
}

export interface TreeCpu {
  /** This Node process: the harness plus the fixture site and reference model it serves in-process. */
  nodeSeconds: number;
  /** Every descendant (Chromium and its renderers), including those that ended and were reaped. */
  browserSeconds: number;
}

/**
 * CPU seconds used so far by the tree. A child that ended moves its time to its parent's
 * cutime/cstime when reaped, and the parent is in the tree, so nothing is lost between readings.
 */
export function readTreeCpu(root: number = process.pid): TreeCpu {
  let node = 0;
  let browser = 0;
  for (const pid of processTree(root)) {
    const f = stat(pid);
    if (!f) continue;
    const own = Number(f[11]) + Number(f[12]);
    const reaped = Number(f[13]) + Number(f[14]);
    if (pid === root) {
      node += own;
      browser += reaped;
    } else {
      browser += own + reaped;
    }
  }
  return { nodeSeconds: node / CLOCK_TICKS_PER_SECOND, browserSeconds: browser / CLOCK_TICKS_PER_SECOND };
}

/** What a process of the tree is: this Node process, or which kind of Chromium process. */
function kindOf(pid: number, root: number): string {
  if (pid === root) return "node";
  // Chromium retitles its children: their argv becomes one space-separated string.
  const cmdline = readText(`/proc/${pid}/cmdline`)?.split(/[\0 ]/) ?? [];
  const type = cmdline.find((a) => a.startsWith("--type="))?.slice("--type=".length);
  if (!type) return cmdline[0]?.includes("chrom") ? "browser" : "other";
  if (type === "utility") {
    const sub = cmdline
      .find((a) => a.startsWith("--utility-sub-type="))
      ?.split(".")
      .pop();
    return sub ? `utility:${sub}` : "utility";
  }
  return type;
}

export interface TreeSample {
  samples: number;
  peakRssMb: number;
  /** Peak of the once-a-second PSS readings. */
  peakPssMb: number;
  maxProcesses: number;
  /**
   * CPU seconds by kind of process (node, browser, renderer, gpu-process, utility:...), from each
   * process's own time between its first and last sighting: a process that ends loses at most
   * one sampling interval.
   */
  cpuSecondsByKind: Record<string, number>;
  /** Wall time the sampler itself spent reading /proc (on this process's CPU). */
  samplerMs: number;
  /** CPU seconds the sampler itself used (process.cpuUsage around each reading); already taken out of `cpuSecondsByKind.node`. */
  samplerCpuSeconds: number;
}

export interface TreeSampler {
  stop(): TreeSample;
}

/** Samples the tree every `intervalMs` until stopped: memory peaks and CPU by kind of process. */
export function sampleTree(intervalMs = 200, root: number = process.pid): TreeSampler {
  let samples = 0;
  let peakRssMb = 0;
  let peakPssMb = 0;
  let maxProcesses = 0;
  let samplerMs = 0;
  let samplerCpuMicros = 0;
  let lastPssAt = 0;
  const seen = new Map<number, { kind: string; first: number; last: number }>();
  let initial = true;
  const take = () => {
    const started = performance.now();
    const cpuBefore = process.cpuUsage();
    const pids = processTree(root);
    samples += 1;
    maxProcesses = Math.max(maxProcesses, pids.length);
    peakRssMb = Math.max(peakRssMb, pids.reduce((a, p) => a + rssKb(p), 0) / 1024);
    if (started - lastPssAt >= 1_000) {
      lastPssAt = started;
      peakPssMb = Math.max(peakPssMb, pids.reduce((a, p) => a + pssKb(p), 0) / 1024);
    }
    for (const pid of pids) {
      const f = stat(pid);
      if (!f) continue;
      const ticks = Number(f[11]) + Number(f[12]);
      const entry = seen.get(pid);
      // A process already running at the start counts from there; a new one from zero.
      if (!entry) seen.set(pid, { kind: kindOf(pid, root), first: initial ? ticks : 0, last: ticks });
      else entry.last = ticks;
    }
    initial = false;
    samplerMs += performance.now() - started;
    const used = process.cpuUsage(cpuBefore);
    samplerCpuMicros += used.user + used.system;
  };
  take();
  const timer = setInterval(take, intervalMs);
  return {
    stop() {
      clearInterval(timer);
      take();
      const cpuSecondsByKind: Record<string, number> = {};
      for (const { kind, first, last } of seen.values())
        cpuSecondsByKind[kind] = (cpuSecondsByKind[kind] ?? 0) + (last - first) / CLOCK_TICKS_PER_SECOND;
      // The sampler runs in this process: its reading of /proc is the bench's cost, not umpire's.
      const samplerCpuSeconds = samplerCpuMicros / 1e6;
      if (cpuSecondsByKind.node !== undefined)
        cpuSecondsByKind.node = Math.max(0, cpuSecondsByKind.node - samplerCpuSeconds);
      return { samples, peakRssMb, peakPssMb, maxProcesses, cpuSecondsByKind, samplerMs, samplerCpuSeconds };
    },
  };
}
