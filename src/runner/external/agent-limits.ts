/**
 * How many processes and how much memory a command agent's sandbox may hold. Without a bound, one
 * agent's fork bomb or 2 GB allocation starves every other trial of the run (and the machine), so
 * the comparison next door fails for a reason that is not its own.
 *
 * Where a cgroup can be made (cgroup v1 `pids` and `memory` hierarchies, or a cgroup v2 folder of
 * umpire's own with both controllers), the sandbox runs in a fresh one per trial: the kernel counts
 * every process and every page of the sandbox, whatever its uid. Otherwise `prlimit` sets
 * RLIMIT_NPROC and RLIMIT_DATA on the sandbox's first process, which its children inherit: weaker
 * (RLIMIT_NPROC counts every process of the user umpire runs as, so umpire adds the ones it already
 * has, and it does not apply to root at all; RLIMIT_DATA bounds each process, not their sum), and
 * said so in the trial log (`unenforced`).
 */
import { existsSync, mkdirSync, readFileSync, readdirSync, rmdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";

export interface AgentLimits {
  /** Processes (and threads) the sandbox may hold at once. */
  pids: number;
  /** Memory the sandbox may hold, in bytes. */
  memoryBytes: number;
}

/** Enough for an agent in Node or Python with a shell and a few tools; far from what starves a machine. */
export const DEFAULT_AGENT_LIMITS: AgentLimits = { pids: 256, memoryBytes: 1024 * 1024 * 1024 };

export interface HeldLimits extends AgentLimits {
  /** How the limits are enforced: `cgroup-v1`, `cgroup-v2`, or `prlimit` (per process, weaker). */
  how: "cgroup-v1" | "cgroup-v2" | "prlimit";
  /** The cgroup folders the sandbox runs in (empty for prlimit). */
  cgroups: string[];
  /** A bound that does not hold here, and why (prlimit's process bound under root), or null. */
  unenforced: string | null;
  /** The program and argv that start `argv` under the limits. */
  wrap(program: string, argv: string[]): { program: string; argv: string[] };
  /** Removes the trial's cgroups (after its processes are gone). */
  release(): Promise<void>;
}

const CGROUP_ROOT = "/sys/fs/cgroup";

/** This process's cgroup path in each hierarchy, from /proc/self/cgroup (`N:controllers:/path`). */
function ownCgroups(): Map<string, string> {
  const found = new Map<string, string>();
  try {
    for (const line of readFileSync("/proc/self/cgroup", "utf8").split("\n")) {
      const m = /^\d+:([^:]*):(\/.*)$/.exec(line);
      if (!m) continue;
      if (m[1] === "") found.set("", m[2]!);
      for (const controller of m[1]!.split(",")) if (controller) found.set(controller, m[2]!);
    }
  } catch {
    // No /proc/self/cgroup: no cgroups here.
  }
  return found;
}

function write(file: string, value: string): void {
  writeFileSync(file, value);
}

/** A pids and a memory cgroup per trial in the v1 hierarchies, under umpire's own. */
function cgroupV1(name: string, limits: AgentLimits): string[] {
  const own = ownCgroups();
  const made: string[] = [];
  try {
    for (const controller of ["pids", "memory"]) {
      const path = own.get(controller);
      const mount = join(CGROUP_ROOT, controller);
      if (path === undefined || !existsSync(join(mount, "cgroup.procs"))) throw new Error(`no ${controller} hierarchy`);
      const dir = join(mount, path, name);
      mkdirSync(dir);
      made.push(dir);
      if (controller === "pids") write(join(dir, "pids.max"), String(limits.pids));
      else write(join(dir, "memory.limit_in_bytes"), String(limits.memoryBytes));
    }
    // Swap counts too where the kernel accounts it (else the bound would only move pages to swap).
    const memsw = join(made[1]!, "memory.memsw.limit_in_bytes");
    if (existsSync(memsw)) {
      try {
        write(memsw, String(limits.memoryBytes));
      } catch {
        // Swap accounting off: memory alone is bounded.
      }
    }
    return made;
  } catch (error) {
    removeAll(made);
    throw error;
  }
}

/** One cgroup per trial in a v2 hierarchy, where umpire's own cgroup delegates pids and memory. */
function cgroupV2(name: string, limits: AgentLimits): string[] {
  const path = ownCgroups().get("");
  const mount = existsSync(join(CGROUP_ROOT, "cgroup.controllers")) ? CGROUP_ROOT : join(CGROUP_ROOT, "unified");
  if (path === undefined || !existsSync(join(mount, "cgroup.controllers"))) throw new Error("no cgroup v2 hierarchy");
  const dir = join(mount, path, name);
  mkdirSync(dir);
  try {
    write(join(dir, "pids.max"), String(limits.pids));
    write(join(dir, "memory.max"), String(limits.memoryBytes));
    if (existsSync(join(dir, "memory.swap.max"))) write(join(dir, "memory.swap.max"), "0");
    return [dir];
  } catch (error) {
    removeAll([dir]);
    throw error;
  }
}

function removeAll(dirs: string[]): void {
  for (const dir of [...dirs].reverse()) {
    try {
      rmdirSync(dir);
    } catch {
      // Still has processes (a zombie being reaped) or already gone: `release` retries.
    }
  }
}

/** The processes the user umpire runs as already has (RLIMIT_NPROC counts them with the agent's). */
function ownProcessCount(): number {
  const uid = process.getuid?.() ?? 0;
  let count = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const status = readFileSync(`/proc/${entry}/status`, "utf8");
      const m = /^Uid:\s+(\d+)/m.exec(status);
      if (m && Number(m[1]) === uid) count += Number(/^Threads:\s+(\d+)/m.exec(status)?.[1] ?? 1);
    } catch {
      // Gone since the listing.
    }
  }
  return count;
}

/** An empty trial cgroup this old was left by an umpire that was killed before it could remove it. */
const STALE_CGROUP_MS = 10 * 60_000;

/** Removes the empty `umpire-*` cgroups a killed run left beside where this one makes its own. */
function removeStaleCgroups(parents: string[]): void {
  for (const parent of parents) {
    let names: string[];
    try {
      names = readdirSync(parent).filter((n) => n.startsWith("umpire-"));
    } catch {
      continue;
    }
    for (const name of names) {
      const dir = join(parent, name);
      try {
        if (Date.now() - statSync(dir).mtimeMs < STALE_CGROUP_MS) continue;
        if (readFileSync(join(dir, "cgroup.procs"), "utf8").trim() !== "") continue;
        rmdirSync(dir);
      } catch {
        // In use, or gone: not ours to judge.
      }
    }
  }
}

/**
 * Makes the trial's limits: a cgroup where one can be made, prlimit otherwise. `name` is unique per
 * trial attempt (a folder name: letters, digits, `-`, `_`, `.`).
 */
export function holdAgentLimits(name: string, limits: AgentLimits = DEFAULT_AGENT_LIMITS): HeldLimits {
  const safe = `umpire-${name.replace(/[^A-Za-z0-9._-]/g, "_")}`.slice(0, 200);
  for (const [how, make] of [
    ["cgroup-v1", cgroupV1],
    ["cgroup-v2", cgroupV2],
  ] as const) {
    let cgroups: string[];
    try {
      cgroups = make(safe, limits);
    } catch {
      continue;
    }
    removeStaleCgroups(cgroups.map((dir) => dirname(dir)));
    const procs = cgroups.map((dir) => join(dir, "cgroup.procs"));
    return {
      ...limits,
      how,
      cgroups,
      unenforced: null,
      // The shell joins the cgroups first and then becomes the sandbox: nothing runs outside them.
      wrap: (program, argv) => ({
        program: "/bin/sh",
        argv: [
          "-c",
          `for f in ${procs.map((_, i) => `"$${i + 1}"`).join(" ")}; do echo $$ > "$f" || exit 125; done; shift ${procs.length}; exec "$@"`,
          "umpire-limits",
          ...procs,
          program,
          ...argv,
        ],
      }),
      async release() {
        for (let attempt = 0; attempt < 20 && cgroups.some((dir) => existsSync(dir)); attempt++) {
          removeAll(cgroups);
          if (cgroups.some((dir) => existsSync(dir))) await new Promise((r) => setTimeout(r, 100));
        }
      },
    };
  }
  const nproc = ownProcessCount() + limits.pids;
  // The kernel never applies RLIMIT_NPROC to uid 0's processes, capabilities or not, and under root the
  // sandbox's uid maps to 0 outside its namespace: said in the trial log rather than claimed.
  const root = process.getuid?.() === 0;
  return {
    ...limits,
    how: "prlimit",
    cgroups: [],
    unenforced: root
      ? "pids: RLIMIT_NPROC does not apply to root's processes (the sandbox's uid is root outside its namespace); only a cgroup bounds them"
      : null,
    wrap: (program, argv) => ({
      program: "prlimit",
      argv: [`--nproc=${nproc}`, `--data=${limits.memoryBytes}`, "--", program, ...argv],
    }),
    release: async () => undefined,
  };
}
