/**
 * Issue #38 §5, through the real CLI with real command agents in bubblewrap and a target whose app
 * umpire starts:
 * - Ctrl-C (SIGINT) during command-agent trials cancels them: exit 130, no trial left `running`,
 *   the run interrupted and resumable, this process's temp folder removed (Playwright's own SIGINT
 *   handler used to exit at once);
 * - a SIGKILLed umpire does not leave its target's server running (the group's reaper ends it), and
 *   the next run removes the temp folder (trial browser profile, sandbox socket) the killed one left;
 * - when the reaper is killed too, the next run ends the server by the record the killed run kept
 *   (app-records.ts), says so, and leaves no `playwright-artifacts-*` folder behind either.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/open.js";
import { runCli } from "../../support/cli.js";
import { startCli, waitFor } from "../../support/cli-child.js";
import { scratch } from "./support.js";

const s = scratch("agent-stop");
afterAll(() => s.cleanup());
const dir = join(s.dir, "project");
const temp = join(s.dir, "tmp");
mkdirSync(dir, { recursive: true });
mkdirSync(temp, { recursive: true });
const env = { TMPDIR: temp };

/** The app writes its pid where the test can find it, so the test can see whether it still runs. */
writeFileSync(
  join(dir, "app.mjs"),
  `import { createServer } from "node:http";
import { writeFileSync } from "node:fs";
writeFileSync(process.argv[2], String(process.pid));
createServer((q, r) => r.end("<!doctype html><title>app</title><p id=status>ok</p>")).listen(Number(process.env.PORT), "127.0.0.1");
`,
);
/** Says it runs, then waits (for the signal), unless the test has made it quick. */
writeFileSync(
  join(dir, "agent.mjs"),
  `import { existsSync, writeFileSync } from "node:fs";
console.log("AGENT RUNNING");
if (!existsSync(new URL("./quick", import.meta.url))) await new Promise((r) => setTimeout(r, 120_000));
writeFileSync(process.env.UMPIRE_RESULT_FILE, JSON.stringify({ answer: "done" }));
`,
);
const task = join(dir, "wait.yaml");
writeFileSync(
  task,
  stringify({
    id: "wait",
    title: "Wait",
    target: "app",
    instruction: "Wait until umpire stops you.",
    start: { path: "/" },
    tools: ["answer"],
    limits: { seconds: 300 },
    checks: [{ kind: "page", name: "the page says ok", open: "/", selector: "#status", text: "ok" }],
    reference: [{ tool: "answer", args: { content: "done" } }],
  }),
);
const pidFile = (name: string) => join(s.dir, `${name}.pid`);
const config = (name: string) => {
  const file = join(dir, `${name}.config.yaml`);
  writeFileSync(
    file,
    stringify({
      targets: {
        app: {
          baseUrl: "http://127.0.0.1:${PORT}",
          start: { command: [process.execPath, join(dir, "app.mjs"), pidFile(name)], readyUrl: "/" },
          // Trials may share the app at once (it keeps no state), so both run together.
          isolated: true,
        },
      },
      agents: { waiter: { kind: "command", command: [process.execPath, "agent.mjs"] } },
    }),
  );
  return file;
};

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits until every trial of the run has its agent running (it printed its line). */
async function agentsRunning(runId: string, count: number, cli: { stderr: () => string }): Promise<void> {
  await waitFor(
    () => {
      const root = join(s.out, runId);
      const running = readdirSync(root).filter((n) => {
        const log = join(root, n, "agent", "stdout.log");
        return existsSync(log) && readFileSync(log, "utf8").includes("AGENT RUNNING");
      });
      return running.length >= count ? true : undefined;
    },
    `${count} agents to run`,
    Number(process.env.AGENTS_WAIT ?? 180_000),
  ).catch((error) => {
    throw new Error(`${error.message}; umpire said: ${cli.stderr()}`);
  });
}

const run = (name: string, extra: string[] = []) => [
  "run",
  task,
  "--config",
  config(name),
  "--agent",
  "waiter",
  "--run-id",
  name,
  "--out",
  s.out,
  "--db",
  s.db,
  ...extra,
];

describe("stopping umpire during command-agent trials", () => {
  it("Ctrl-C cancels them: exit 130, none left running, the run resumable, no temp folder left", async () => {
    const cli = startCli(run("ctrl-c", ["--repeat", "2", "--concurrency", "2"]), { env, killAfterMs: 300_000 });
    await agentsRunning("ctrl-c", 2, cli);
    const pid = cli.child.pid!;
    cli.child.kill("SIGINT");
    const result = await cli.done;
    expect(result.code, result.stderr).toBe(130);
    const store = openStore(s.db, { readonly: true });
    try {
      // Stored as cancelled (not `running`, not an error to retry): --resume runs them again.
      expect(store.trials("ctrl-c").map((t) => [t.status, t.stopReason, t.verdict])).toEqual([
        ["done", "cancelled", "cancelled"],
        ["done", "cancelled", "cancelled"],
      ]);
    } finally {
      store.close();
    }
    expect(existsSync(join(temp, `umpire-browser-${hostname()}-${pid}`))).toBe(false);
    expect(alive(Number(readFileSync(pidFile("ctrl-c"), "utf8")))).toBe(false);
  }, 360_000);

  it("SIGKILL: the target's server ends with umpire, and the next run removes the temp folder it left", async () => {
    const cli = startCli(run("killed"), { env, killAfterMs: 300_000 });
    await agentsRunning("killed", 1, cli);
    const app = Number(readFileSync(pidFile("killed"), "utf8"));
    expect(alive(app)).toBe(true);
    const pid = cli.child.pid!;
    cli.child.kill("SIGKILL");
    await cli.done;
    // The reaper polls every 0.5 s and gives SIGTERM 2 s before SIGKILL.
    await waitFor(() => (alive(app) ? undefined : true), "the target's server to end", 15_000);
    const leftover = join(temp, `umpire-browser-${hostname()}-${pid}`);
    expect(readdirSync(leftover).some((n) => n.startsWith("umpire-trial-browser-"))).toBe(true);

    writeFileSync(join(dir, "quick"), "");
    const next = await runCli(run("after-kill"), { env, killAfterMs: 300_000 });
    expect(next.code, next.stderr).toBe(0);
    expect(existsSync(leftover)).toBe(false);
  }, 420_000);

  it("SIGKILL of umpire and its reaper: the next run ends the server the killed run left, says so, and removes its temp folder", async () => {
    rmSync(join(dir, "quick"), { force: true });
    const cli = startCli(run("killed-all"), { env, killAfterMs: 300_000 });
    await agentsRunning("killed-all", 1, cli);
    const app = Number(readFileSync(pidFile("killed-all"), "utf8"));
    const pid = cli.child.pid!;
    // What an OOM kill or a cleanup of the whole session does: the reaper goes first, then umpire.
    const reapers = reapersOf(pid);
    expect(reapers.length).toBeGreaterThan(0);
    for (const reaper of reapers) process.kill(reaper, "SIGKILL");
    cli.child.kill("SIGKILL");
    await cli.done;
    await new Promise((r) => setTimeout(r, 4_000));
    expect(alive(app)).toBe(true);
    const leftover = join(temp, `umpire-browser-${hostname()}-${pid}`);
    expect(existsSync(leftover)).toBe(true);

    writeFileSync(join(dir, "quick"), "");
    const next = await runCli(run("after-kill-all"), { env, killAfterMs: 300_000 });
    expect(next.code, next.stderr).toBe(0);
    expect(alive(app)).toBe(false);
    expect(next.stderr).toMatch(
      new RegExp(
        `umpire: ended target app's app \\(process group ${app}, 1 processes\\), left running by umpire ${pid}, which was killed`,
      ),
    );
    expect(next.stderr).toContain(`removed ${leftover}, the temp folder of an umpire that was killed`);
    expect(existsSync(leftover)).toBe(false);
    // Playwright's own folders live in umpire's temp folder now, so none is left in the temp folder itself.
    expect(readdirSync(temp).filter((n) => n.startsWith("playwright-"))).toEqual([]);
    expect(readdirSync(join(temp, `umpire-apps-${process.getuid?.() ?? 0}`))).toEqual([]);
  }, 420_000);
});

/** The reapers umpire `pid` started (`/bin/sh -c ... umpire-reaper <pid> <group>`). */
function reapersOf(pid: number): number[] {
  return readdirSync("/proc")
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const argv = readFileSync(`/proc/${p}/cmdline`, "utf8").split("\0");
        return argv.includes("umpire-reaper") && argv[argv.indexOf("umpire-reaper") + 1] === String(pid);
      } catch {
        return false;
      }
    })
    .map(Number);
}
