/**
 * CPU per trial, counted by the kernel: the real CLI (`umpire run`, as a user runs it) is started in
 * a control group of its own, and the group's CPU total (user + system, every thread of every
 * process it started) is read when the run ends. Nothing escapes it: Chromium's renderers are forked
 * by its zygote and reaped by it, so `/usr/bin/time` and a process-tree sampler miss them or guess.
 * The total includes the CLI's start, the embedded reference model and the browser's launch, spread
 * over the run's trials: what a user's machine pays per trial.
 *
 * Beside the total, the group's processes are sampled every 50 ms and each one's last CPU reading is
 * summed by kind (umpire's node, Chromium's browser, GPU, renderer and utility processes); what ended
 * between two samples is left "unattributed". Needs a writable cgroup (root, v1 `cpuacct` or v2);
 * elsewhere the section is skipped and says why.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLOCK_TICKS_PER_SECOND, readText, stat } from "./process-tree.js";

/** One cgroup layout umpire's bench can use: where to make the group, how to read its CPU total. */
interface CgroupKind {
  name: string;
  parent: string;
  /** CPU seconds of everything that ran in `dir`. */
  cpuSeconds(dir: string): number;
}

const CGROUP_KINDS: CgroupKind[] = [
  {
    name: "cgroup v1 cpuacct",
    parent: "/sys/fs/cgroup/cpuacct",
    cpuSeconds: (dir) => Number(readFileSync(join(dir, "cpuacct.usage"), "utf8")) / 1e9,
  },
  {
    name: "cgroup v2 cpu.stat",
    parent: "/sys/fs/cgroup",
    cpuSeconds: (dir) =>
      Number(/^usage_usec (\d+)/m.exec(readFileSync(join(dir, "cpu.stat"), "utf8"))?.[1] ?? NaN) / 1e6,
  },
];

/** A group of our own, or why there is none. */
export function makeCgroup(): { dir: string; kind: CgroupKind } | { reason: string } {
  for (const kind of CGROUP_KINDS) {
    const probe = kind.name.startsWith("cgroup v1") ? "cpuacct.usage" : "cgroup.controllers";
    if (!existsSync(join(kind.parent, probe))) continue;
    const dir = join(kind.parent, `umpire-bench-${process.pid}-${Date.now()}`);
    try {
      mkdirSync(dir);
      return { dir, kind };
    } catch (error) {
      return { reason: `cannot make a control group under ${kind.parent} (${(error as Error).message}); run as root` };
    }
  }
  return { reason: "no cgroup v1 cpuacct or v2 hierarchy under /sys/fs/cgroup" };
}

/** What a process is, from its command line: umpire's node, or which Chromium process. */
export function processKind(cmdline: string): string {
  const type = /--type=([\w-]+)/.exec(cmdline)?.[1];
  if (type === "utility") return /NetworkService/.test(cmdline) ? "network service" : "utility";
  if (type === "gpu-process") return "gpu";
  if (type === "zygote") return "zygote";
  if (type) return type;
  if (/chrom/i.test(cmdline)) return "browser";
  if (/\bnode\b|umpire/.test(cmdline)) return "umpire (node)";
  return "other";
}

/** Samples every process in `dir` until stopped; the last reading per process, summed by kind. */
function sampleByKind(dir: string): { stop(): Record<string, number> } {
  const last = new Map<string, { kind: string; seconds: number }>();
  const sample = () => {
    for (const pid of (readText(join(dir, "cgroup.procs")) ?? "").split("\n").filter(Boolean)) {
      const fields = stat(Number(pid));
      if (!fields) continue;
      const seconds = (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
      const known = last.get(pid);
      // A renderer forked by the zygote shows the zygote's command line until it renames itself.
      const kind =
        known && known.kind !== "zygote"
          ? known.kind
          : processKind((readText(`/proc/${pid}/cmdline`) ?? "").replaceAll("\0", " "));
      last.set(pid, { kind, seconds });
    }
  };
  const timer = setInterval(sample, 50);
  return {
    stop() {
      clearInterval(timer);
      sample();
      const byKind: Record<string, number> = {};
      for (const { kind, seconds } of last.values()) byKind[kind] = (byKind[kind] ?? 0) + seconds;
      return byKind;
    },
  };
}

export interface CpuSide {
  label: string;
  /** The `umpire run` arguments (without --db/--out). */
  args: string[];
  trials: number;
  passed: number;
  wallS: number;
  /** The group's CPU total: exact. */
  cpuS: number;
  cpuPerTrialS: number;
  /** Sampled CPU per trial by process kind, plus `unattributed` (processes that ended between samples). */
  perTrialByKind: Record<string, number>;
  /** CPU seconds per wall second: how much of the machine the run kept busy. */
  coresUsed: number;
  /**
   * Every run of the set, in order: the kernel's count of the same run varies by up to a fifth on a
   * quiet machine, so the fields above are the median run's and this says how far the others lay.
   */
  runs: { cpuPerTrialS: number; passed: number; trials: number }[];
}

export interface CpuBench {
  method: string;
  sides: CpuSide[];
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

/** Runs `umpire run <args> --json` in its own group and reads what it cost. */
async function measureRun(
  root: string,
  cgroup: { dir: string; kind: CgroupKind },
  side: { label: string; args: string[] },
) {
  const scratch = mkdtempSync(join(tmpdir(), "umpire-bench-cpu-"));
  try {
    const args = [...side.args, "--db", join(scratch, "umpire.db"), "--out", join(scratch, "runs"), "--json"];
    const started = performance.now();
    // The shell joins the group, then becomes the CLI: every process the run starts is born inside it.
    const child = spawn(
      "sh",
      ["-c", `echo $$ > "$0/cgroup.procs" && exec "$@"`, cgroup.dir, process.execPath, "bin/umpire.js", ...args],
      {
        cwd: root,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const sampler = sampleByKind(cgroup.dir);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
    const wallS = (performance.now() - started) / 1000;
    const byKind = sampler.stop();
    // Chromium's last children may still be exiting: the total only grows until the group is empty.
    for (let i = 0; i < 40 && (readText(join(cgroup.dir, "cgroup.procs")) ?? "").trim() !== ""; i++)
      await new Promise((r) => setTimeout(r, 50));
    const cpuS = cgroup.kind.cpuSeconds(cgroup.dir);
    const verdicts = (() => {
      try {
        return (JSON.parse(stdout) as { trials: { verdict: string }[] }).trials.map((t) => t.verdict);
      } catch {
        throw new Error(`umpire run ${side.args.join(" ")} exited ${code} without its JSON: ${stderr.slice(-400)}`);
      }
    })();
    const trials = verdicts.length;
    const sampled = Object.values(byKind).reduce((a, b) => a + b, 0);
    const perTrialByKind = Object.fromEntries(
      [...Object.entries(byKind), ["unattributed", Math.max(0, cpuS - sampled)] as const]
        .sort((a, b) => b[1] - a[1])
        .map(([kind, seconds]) => [kind, round(seconds / trials)]),
    );
    return {
      label: side.label,
      args: side.args,
      trials,
      passed: verdicts.filter((v) => v === "passed").length,
      wallS: round(wallS, 1),
      cpuS: round(cpuS, 1),
      cpuPerTrialS: round(cpuS / trials),
      perTrialByKind,
      coresUsed: round(cpuS / wallS),
    } satisfies Omit<CpuSide, "runs">;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The sets measured: the whole fixture suite as `umpire run` runs it, and the latency bench's tasks at 2 s a turn. */
export function cpuSides(quick: boolean): { label: string; args: string[] }[] {
  const latencyTasks = ["answer-only-bb042", "compare-bb007-bb031", "scorecard-note-bb042", "trap-date-bb042"];
  if (quick)
    return [
      {
        label: "two fixture tasks, structured",
        args: ["run", "answer-only-bb042", "scorecard-note-bb042", "--mode", "structured", "--concurrency", "1"],
      },
    ];
  return [
    { label: "the fixture suite, both modes, no model latency", args: ["run", "--concurrency", "1"] },
    {
      label: "the latency bench's 4 tasks x 2, structured, 2 s a turn",
      args: [
        "run",
        ...latencyTasks,
        "--model",
        "reference:latency",
        "--mode",
        "structured",
        "--repeat",
        "2",
        "--concurrency",
        "1",
      ],
    },
  ];
}

/** Measures each set in a group of its own; `cgroupUnavailable()` first says whether this machine can. */
export async function benchCpuPerTrial(root: string, quick: boolean): Promise<CpuBench> {
  const sides: CpuSide[] = [];
  let method = "";
  for (const side of cpuSides(quick)) {
    const runs: Omit<CpuSide, "runs">[] = [];
    for (let i = 0; i < (quick ? CPU_RUNS.quick : CPU_RUNS.full); i++) {
      const cgroup = makeCgroup();
      if ("reason" in cgroup) throw new Error(cgroup.reason);
      method = `${cgroup.kind.name}: the CPU total of a group holding the CLI and everything it started`;
      try {
        runs.push(await measureRun(root, cgroup, side));
      } finally {
        try {
          rmdirSync(cgroup.dir);
        } catch {
          // a process still leaving keeps the group busy; it is empty and harmless once it has gone
        }
      }
    }
    sides.push(medianRun(runs));
  }
  return { method, sides };
}

/** Runs of each set: one run's count is not a figure (the same run varies by up to a fifth). */
export const CPU_RUNS = { full: 3, quick: 1 };

/** The median run of a set (by CPU per trial), with every run's figure beside it. */
export function medianRun(runs: Omit<CpuSide, "runs">[]): CpuSide {
  if (runs.length === 0) throw new Error("no run to take the median of");
  const sorted = [...runs].sort((a, b) => a.cpuPerTrialS - b.cpuPerTrialS);
  return {
    ...sorted[Math.floor((sorted.length - 1) / 2)]!,
    runs: runs.map(({ cpuPerTrialS, passed, trials }) => ({ cpuPerTrialS, passed, trials })),
  };
}

/** Why this machine cannot count CPU by control group, or undefined when it can. */
export function cgroupUnavailable(): string | undefined {
  const cgroup = makeCgroup();
  if ("reason" in cgroup) return cgroup.reason;
  rmdirSync(cgroup.dir);
  return undefined;
}
