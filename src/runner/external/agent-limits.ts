/**
 * How many processes and how much memory a command agent's sandbox may hold. Without a bound, one
 * agent's fork bomb or 2 GB allocation starves every other trial of the run (and the machine), so
 * the comparison next door fails for a reason that is not its own.
 *
 * Where a cgroup can be made (cgroup v1 `pids` and `memory` hierarchies, or a cgroup v2 folder of
 * umpire's own with both controllers), the sandbox runs in a fresh one per trial: the kernel counts
 * every process and every page of the sandbox, whatever its uid. Otherwise `prlimit` sets
 * RLIMIT_NPROC and RLIMIT_DATA on the sandbox's first process, which its children inherit: weaker
 * (RLIMIT_DATA bounds each process, not their sum; RLIMIT_NPROC counts every process of a uid).
 * The kernel never applies RLIMIT_NPROC to root, and under root the sandbox's uid is root outside
 * its namespace; so under root the sandbox is started as a uid of its own (`setpriv` before
 * bubblewrap), one per trial that nothing else on the machine uses, and the count is the trial's
 * alone. Where even that cannot be had (the agent's files are not readable by other users, or
 * bubblewrap cannot make its namespaces as an unprivileged user), the trial log says the process
 * bound does not hold (`unenforced`) rather than claim it.
 */
import { spawnSync } from "node:child_process";
import { randomInt } from "node:crypto";
import {
  existsSync,
  lchownSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmdirSync,
  statSync,
  writeFileSync,
} from "node:fs";
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
  /**
   * The uid (and gid) the sandbox runs as outside its namespace, when umpire (root, no cgroup) gives
   * it one of its own so that RLIMIT_NPROC counts; null when it runs as umpire's user. The caller
   * hands it the trial's agent folder and socket (`giveToSandboxUid`).
   */
  uid: number | null;
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

export interface LimitOptions {
  /** Try cgroups first (default). `UMPIRE_AGENT_LIMITS=prlimit` turns them off, to test the fallback. */
  cgroups?: boolean;
  /** Paths the sandbox's uid must reach under the own-uid fallback (its command's folder, node, the init script). */
  reach?: readonly string[];
  /** The bubblewrap the sandbox runs (probed once as an unprivileged uid under the own-uid fallback). */
  bwrap?: string;
}

/**
 * Makes the trial's limits: a cgroup where one can be made, prlimit otherwise (as a uid of the
 * sandbox's own under root). `name` is unique per trial attempt (a folder name: letters, digits, `-`, `_`, `.`).
 */
export function holdAgentLimits(
  name: string,
  limits: AgentLimits = DEFAULT_AGENT_LIMITS,
  options: LimitOptions = {},
): HeldLimits {
  const safe = `umpire-${name.replace(/[^A-Za-z0-9._-]/g, "_")}`.slice(0, 200);
  const makers =
    options.cgroups === false
      ? []
      : ([
          ["cgroup-v1", cgroupV1],
          ["cgroup-v2", cgroupV2],
        ] as const);
  for (const [how, make] of makers) {
    let cgroups: string[];
    try {
      cgroups = make(safe, limits);
    } catch {
      continue;
    }
    removeStaleCgroups(cgroups.map((dir) => dirname(dir)));
    return inCgroups(how, cgroups, limits);
  }
  return process.getuid?.() === 0
    ? underOwnUid(limits, options)
    : underPrlimit(limits, ownProcessCount() + limits.pids);
}

function inCgroups(how: "cgroup-v1" | "cgroup-v2", cgroups: string[], limits: AgentLimits): HeldLimits {
  const procs = cgroups.map((dir) => join(dir, "cgroup.procs"));
  return {
    ...limits,
    how,
    cgroups,
    uid: null,
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

/** prlimit on the sandbox's first process (inherited by its children); `nproc` counts every process of its uid. */
function underPrlimit(limits: AgentLimits, nproc: number, uid: number | null = null, unenforced: string | null = null) {
  const held: HeldLimits = {
    ...limits,
    how: "prlimit",
    cgroups: [],
    uid,
    unenforced,
    wrap: (program, argv) => {
      // setpriv drops every capability and takes the trial's uid; the exec that follows clears the saved root uid.
      const asUid =
        uid === null
          ? []
          : [
              "setpriv",
              `--reuid=${uid}`,
              `--regid=${uid}`,
              "--clear-groups",
              "--inh-caps=-all",
              "--bounding-set=-all",
              "--",
            ];
      return {
        program: "prlimit",
        argv: [`--nproc=${nproc}`, `--data=${limits.memoryBytes}`, "--", ...asUid, program, ...argv],
      };
    },
    release: async () => {
      if (uid !== null) uidsInUse.delete(uid);
    },
  };
  return held;
}

/** The uids this process has handed to sandboxes that still run. */
const uidsInUse = new Set<number>();
/** Sandbox uids are drawn from here: far above any account a system makes (65534 is nobody, 2^31 - 1 is the top). */
const UID_FLOOR = 0x70000000;
const UID_SPAN = 0x0f000000;

/** Under root without a cgroup: prlimit as a uid no other process has, so RLIMIT_NPROC counts the trial alone. */
function underOwnUid(limits: AgentLimits, options: LimitOptions): HeldLimits {
  const rootNote =
    "pids: RLIMIT_NPROC does not apply to root's processes (the sandbox's uid is root outside its namespace); only a cgroup or a uid of its own bounds them";
  const blocked = unreachable(options.reach ?? []);
  if (blocked) return underPrlimit(limits, limits.pids, null, `${rootNote}, and ${blocked}`);
  if (!commandExists("setpriv"))
    return underPrlimit(limits, limits.pids, null, `${rootNote}, and setpriv (util-linux) is not installed`);
  const uid = freeUid();
  const userns = unprivilegedBwrap(options.bwrap ?? "/usr/bin/bwrap", uid);
  if (userns) return underPrlimit(limits, limits.pids, null, `${rootNote}, and ${userns}`);
  uidsInUse.add(uid);
  return underPrlimit(limits, limits.pids, uid);
}

/** Why a uid that is not umpire's cannot reach one of `paths` (a folder on the way without `x` for others), or null. */
function unreachable(paths: readonly string[]): string | null {
  for (const path of paths) {
    const blocked = blockedOnTheWay(path);
    if (blocked) return blocked;
    try {
      if ((statSync(path).mode & 0o004) === 0) return `${path} is not readable by other users`;
    } catch {
      return `${path} does not exist`;
    }
  }
  return null;
}

/** Why another user cannot get to `path` (a folder above it they may not enter), or null. */
export function blockedOnTheWay(path: string): string | null {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    try {
      if ((statSync(dir).mode & 0o001) === 0)
        return `${path} is not reachable by other users (${dir} has no x permission for others)`;
    } catch {
      return `${path} is not reachable (${dir} cannot be read)`;
    }
    if (dirname(dir) === dir) return null;
  }
}

function commandExists(name: string): boolean {
  return spawnSync(name, ["--version"], { stdio: "ignore", timeout: 10_000 }).status === 0;
}

/** A uid no process on the machine has now and no sandbox of this process holds. */
function freeUid(): number {
  const taken = uidsOfProcesses();
  for (;;) {
    const uid = UID_FLOOR + randomInt(UID_SPAN);
    if (!taken.has(uid) && !uidsInUse.has(uid)) return uid;
  }
}

function uidsOfProcesses(): Set<number> {
  const uids = new Set<number>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const m = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${entry}/status`, "utf8"));
      if (m) uids.add(Number(m[1]));
    } catch {
      // Gone since the listing.
    }
  }
  return uids;
}

const bwrapAsUser = new Map<string, string | null>();
/** Whether bubblewrap makes its namespaces when started as an unprivileged uid (probed once); why not, or null. */
function unprivilegedBwrap(bwrap: string, uid: number): string | null {
  if (!bwrapAsUser.has(bwrap)) {
    const r = spawnSync(
      "setpriv",
      [
        `--reuid=${uid}`,
        `--regid=${uid}`,
        "--clear-groups",
        "--",
        bwrap,
        "--ro-bind",
        "/",
        "/",
        "--unshare-user",
      ].concat(["--uid", "65534", "--gid", "65534", "--cap-drop", "ALL", "--unshare-pid", "--unshare-net", "true"]),
      { encoding: "utf8", timeout: 20_000 },
    );
    bwrapAsUser.set(
      bwrap,
      r.status === 0
        ? null
        : `bubblewrap cannot make its namespaces as an unprivileged user: ${(r.stderr || r.error?.message || `exit ${r.status}`).trim().slice(0, 200)}`,
    );
  }
  return bwrapAsUser.get(bwrap) ?? null;
}

/**
 * Under the own-uid fallback: the agent's folder, the files of the contract it reads and writes, and
 * its socket folder become the sandbox uid's (before the agent starts, so no name is its yet).
 */
export function giveToSandboxUid(uid: number, paths: readonly string[]): void {
  for (const path of paths) lchownSync(path, uid, uid);
}

/** After the trial: the agent's folder and what is in it are umpire's user's again (never through a link). */
export function takeBackFromSandboxUid(dir: string): void {
  const uid = process.getuid?.() ?? 0;
  const gid = process.getgid?.() ?? 0;
  for (const path of [dir, ...safeList(dir).map((name) => join(dir, name))]) {
    try {
      lchownSync(path, uid, gid);
    } catch {
      // Gone meanwhile.
    }
  }
}

function safeList(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}
