/**
 * Issue 38: a command agent's sandbox is bounded in processes and memory, by a cgroup where one can
 * be made, else prlimit. Real processes, no sandbox needed: the wrapper alone must bound what it starts.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmdirSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { holdAgentLimits } from "../../../src/runner/external/agent-limits.js";
import { identityArgs, sandboxArgv } from "../../../src/runner/external/agent-sandbox.js";

const FORK = `const { spawn } = require("node:child_process"); let n = 0; const kids = [];
for (let i = 0; i < 200; i++) { try { const c = spawn("sleep", ["10"]); c.on("error", () => {}); if (!c.pid) break; kids.push(c); n++; } catch { break; } }
console.log(n); for (const c of kids) c.kill("SIGKILL");`;

const ALLOC = `const held = []; let mb = 0; try { while (mb < 1024) { held.push(Buffer.alloc(32 << 20, 1)); mb += 32; } console.log("done", mb); } catch { console.log("failed at", mb); }`;

describe("a command agent's bounds", () => {
  it("bounds the processes a wrapped command may start, and removes its cgroups afterwards", async () => {
    const limits = holdAgentLimits(`unit-${process.pid}`, { pids: 40, memoryBytes: 512 * 1024 * 1024 });
    try {
      const run = limits.wrap(process.execPath, ["-e", FORK]);
      const r = spawnSync(run.program, run.argv, { encoding: "utf8", timeout: 60_000 });
      expect(r.status, r.stderr).toBe(0);
      // prlimit counts every process of this user, so only the cgroup bound is exact.
      if (limits.how !== "prlimit") expect(Number(r.stdout.trim())).toBeLessThan(40);
      else expect(Number(r.stdout.trim())).toBeLessThan(200);
      expect(limits.unenforced).toBeNull();
    } finally {
      await limits.release();
    }
    for (const dir of limits.cgroups) expect(existsSync(dir)).toBe(false);
  }, 90_000);

  it("without a cgroup (UMPIRE_AGENT_LIMITS=prlimit), under root: prlimit as a uid of the sandbox's own bounds processes and memory", async () => {
    const limits = holdAgentLimits(
      `unit-uid-${process.pid}`,
      { pids: 40, memoryBytes: 256 * 1024 * 1024 },
      { cgroups: false, reach: [process.execPath] },
    );
    try {
      expect(limits.how).toBe("prlimit");
      if (process.getuid?.() !== 0) {
        expect(limits.uid).toBeNull();
        return;
      }
      expect(limits.unenforced).toBeNull();
      expect(limits.uid).toBeGreaterThanOrEqual(0x70000000);
      const run = limits.wrap(process.execPath, ["-e", `${FORK}; console.log(process.getuid())`]);
      const r = spawnSync(run.program, run.argv, { encoding: "utf8", timeout: 60_000 });
      expect(r.status, r.stderr).toBe(0);
      const [forked, uid] = r.stdout.trim().split("\n").map(Number);
      expect(forked).toBeLessThan(40);
      expect(uid).toBe(limits.uid);
      const mem = limits.wrap(process.execPath, ["--max-old-space-size=4096", "-e", ALLOC]);
      expect(spawnSync(mem.program, mem.argv, { encoding: "utf8", timeout: 60_000 }).stdout).not.toContain("done 1024");
    } finally {
      await limits.release();
    }
  }, 90_000);

  it("under root, a command folder other users cannot reach leaves the process bound unenforced, and says why", () => {
    if (process.getuid?.() !== 0) return;
    const closed = mkdtempSync(join(tmpdir(), "umpire-closed-"));
    try {
      const limits = holdAgentLimits(`unit-closed-${process.pid}`, undefined, { cgroups: false, reach: [closed] });
      expect(limits.uid).toBeNull();
      expect(limits.unenforced).toMatch(/^pids: RLIMIT_NPROC does not apply .* is not readable by other users/);
    } finally {
      rmSync(closed, { recursive: true, force: true });
    }
  });

  it("removes an empty trial cgroup a killed run left (older than ten minutes), not a fresh one", async () => {
    const probe = holdAgentLimits(`unit-probe-${process.pid}`);
    await probe.release();
    if (probe.how === "prlimit") return; // no cgroup here to leave behind
    const parent = dirname(probe.cgroups[0]!);
    const stale = join(parent, `umpire-unit-stale-${process.pid}`);
    const fresh = join(parent, `umpire-unit-fresh-${process.pid}`);
    mkdirSync(stale);
    mkdirSync(fresh);
    const old = new Date(Date.now() - 3_600_000);
    utimesSync(stale, old, old);
    const limits = holdAgentLimits(`unit-next-${process.pid}`);
    await limits.release();
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
    rmdirSync(fresh);
  });

  it("bounds memory: an allocation past the bound does not complete", async () => {
    const limits = holdAgentLimits(`unit-mem-${process.pid}`, { pids: 40, memoryBytes: 256 * 1024 * 1024 });
    try {
      const run = limits.wrap(process.execPath, ["--max-old-space-size=4096", "-e", ALLOC]);
      const r = spawnSync(run.program, run.argv, { encoding: "utf8", timeout: 60_000 });
      expect(r.stdout).not.toContain("done 1024");
    } finally {
      await limits.release();
    }
  }, 90_000);

  it("the sandbox's argv drops every capability and maps the agent to uid 65534 in its own user namespace", () => {
    expect(identityArgs("userns")).toEqual(["--unshare-user", "--uid", "65534", "--gid", "65534", "--cap-drop", "ALL"]);
    expect(identityArgs("capdrop")).toEqual(["--cap-drop", "ALL"]);
    const argv = sandboxArgv({
      command: ["node", "a.mjs"],
      cwd: "/work",
      agentDir: "/out/t/agent",
      hide: [],
      env: {},
      egressSocket: "/tmp/e.sock",
      forwards: [],
      proxyPort: 0,
    });
    expect(argv.join(" ")).toContain("--unshare-user --uid 65534 --gid 65534 --cap-drop ALL");
  });
});
