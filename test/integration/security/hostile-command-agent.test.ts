/**
 * Issue 24: a hostile command agent (test/fixtures/hostile-agent/agent.mjs, a real Node program)
 * run through the real CLI, two trials at once, in the sandbox: it forges the page, storage and a
 * note and then crashes (1), looks for the sibling trial's token (2), nests createBrowserContext
 * and Browser.close (3), downloads into a folder of its choosing (4), leaves a setsid loop behind
 * (5), looks for umpire's keys (6) and reaches the app's server directly; and, outside the
 * sandbox, kills the trial's Chromium (7). Each is refused, logged and failed.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { homedir } from "node:os";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { blockedOnTheWay } from "../../../src/runner/external/agent-limits.js";
import { REPO_ROOT, runCli } from "../../support/cli.js";
import { events, scratch, trialFolder } from "./support.js";

const s = scratch("hostile");
afterAll(() => s.cleanup());
const AGENT = join(REPO_ROOT, "test/fixtures/hostile-agent/agent.mjs");
const KEY = "sk-umpire-own-key-must-not-leak";
/** A file outside every trial that the hostile agent links umpire's logs to: it must stay as it is. */
const OUTSIDE = "outside the trial; umpire writes nothing here\n";

function config(mode: string, name = mode): { file: string; steal: string } {
  const dir = join(s.dir, name);
  const steal = join(dir, "stolen");
  mkdirSync(steal, { recursive: true });
  const file = join(dir, "umpire.config.yaml");
  const env = {
    HOSTILE_MODE: mode,
    STEAL_DIR: steal,
    PLAYWRIGHT_MODULE: join(REPO_ROOT, "node_modules/playwright/index.mjs"),
  };
  writeFileSync(file, stringify({ agents: { hostile: { kind: "command", command: [process.execPath, AGENT], env } } }));
  return { file, steal };
}

const guardEvents = (log: ReturnType<typeof events>, origin: string) =>
  log.filter((e) => e.type === "AgentEvent" && e.data.kind === "error_event" && e.data.origin === origin);
const answerOf = (log: ReturnType<typeof events>) =>
  JSON.parse(
    log.find((e) => e.type === "AgentEvent" && e.data.kind === "answer_event" && e.data.origin === "external_agent")!
      .data.answer,
  );

/**
 * Issue 38: the hostile agent and the TypeScript example agent (a gold agent that really does the
 * task) run at once. The hostile one also tries issue 38's routes (HOSTILE_PATHS): root in the
 * sandbox, host files through the browser, page WebSockets to a local port (page, isolated world,
 * worker), the sibling's fixture session by its trial id, umpire's logs swapped for links to a file
 * outside and its events file for a named pipe, the sandbox's egress asked for an undeclared port,
 * and a fork and an allocation past any bound.
 */
function issue38Config(name: string): {
  file: string;
  steal: string;
  storeDir: string;
  db: string;
  key: string;
  bait: Bait;
} {
  const { file, steal } = config("crash", name);
  const storeDir = join(s.dir, `store-${name}`);
  mkdirSync(storeDir, { recursive: true });
  const key = join(storeDir, "provider.key");
  writeFileSync(key, KEY, { mode: 0o600 });
  const bait = startBait();
  return { file, steal, storeDir, db: join(storeDir, "umpire.db"), key, bait };
}

interface Bait {
  port: Promise<number>;
  connections: string[];
  close(): void;
}

/** A local service the task does not name: every connection it gets is a route that was not closed. */
function startBait(): Bait {
  const connections: string[] = [];
  const server = createServer((socket) => {
    socket.once("data", (d) => connections.push(d.toString("latin1").split("\r\n")[0]!));
    socket.on("error", () => undefined);
    connections.push("connected");
  });
  const port = new Promise<number>((resolve) =>
    server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)),
  );
  return { port, connections, close: () => server.close() };
}

/**
 * The bounds as this machine holds them (a cgroup: root with writable v1 hierarchies here and in CI),
 * and as they hold without any cgroup (UMPIRE_AGENT_LIMITS=prlimit): prlimit, under root as a uid of
 * the sandbox's own. The run's folders are opened to other users for that one (mkdtemp makes them
 * 0700): the sandbox's uid must reach its agent folder; the store and the key stay out of its sight.
 */
/**
 * A uid of the sandbox's own must reach the agent's files; this test's agent loads Playwright from the
 * checkout, which a clone in a `mktemp -d` folder (0700, as `fresh-clone-check` makes) keeps from other
 * users. There the prlimit row proves the other half of the rule: the bound is reported `unenforced`, with
 * the folder that stops it, never claimed.
 */
const CHECKOUT_BLOCKED = blockedOnTheWay(join(REPO_ROOT, "node_modules/playwright/index.mjs"));

const BOUNDS: { mode: string; limitsEnv: Record<string, string>; enforcedBy: string[] }[] = [
  { mode: "cgroup", limitsEnv: {}, enforcedBy: ["cgroup-v1", "cgroup-v2"] },
  { mode: "prlimit", limitsEnv: { UMPIRE_AGENT_LIMITS: "prlimit" }, enforcedBy: ["prlimit"] },
];

describe("a hostile command agent through the real CLI", () => {
  it.each(BOUNDS)(
    "in the sandbox, beside a gold agent ($mode): every route refused and logged, no pass, nothing outside its trial, the sibling passes, the bounds hold",
    async ({ mode, limitsEnv, enforcedBy }) => {
      const ownUid = mode !== "cgroup" && CHECKOUT_BLOCKED === null;
      if (ownUid) chmodSync(s.dir, 0o755);
      const { file, steal, storeDir, db, key, bait } = issue38Config(mode);
      const config = parse(readFileSync(file, "utf8"));
      const outside = join(s.dir, `outside-${mode}.txt`);
      writeFileSync(outside, OUTSIDE);
      config.agents.hostile.env.HOSTILE_PATHS = JSON.stringify({
        outside,
        db,
        key,
        storeDir,
        home: homedir(),
        baitPort: await bait.port,
      });
      config.agents.gold = {
        kind: "command",
        command: [process.execPath, "--import", "tsx", "ts-agent/agent.ts"],
        cwd: join(REPO_ROOT, "examples/external-agents"),
      };
      writeFileSync(file, stringify(config));
      const began = Date.now();
      const run = await runCli(
        [
          "run",
          "tasks/scorecard-note-bb042.yaml",
          "--config",
          file,
          "--agent",
          "hostile",
          "--agent",
          "gold",
          "--concurrency",
          "2",
          "--retries",
          "0",
          "--run-id",
          mode,
          "--out",
          s.out,
          "--db",
          db,
          "--json",
        ],
        { killAfterMs: 400_000, env: { HAI_API_KEY: KEY, ...limitsEnv } },
      );
      const seconds = (Date.now() - began) / 1000;
      bait.close();
      expect(run.code, run.stderr).toBe(1);
      const trials = JSON.parse(run.stdout).trials as Record<string, any>[];
      expect(trials).toHaveLength(2);
      const [hostile, gold] = ["hostile", "gold"].map(
        (name) => trials.find((t) => String(t.agentLabel ?? t.agent).includes(name))!,
      );
      // The sibling: unharmed and passing, its match not deleted, its note its own.
      expect([gold.verdict, gold.stopReason]).toEqual(["passed", "answered"]);
      const folder = trialFolder(s.out, mode, hostile.id ?? hostile.trialId);
      const log = events(folder);
      // At once: each trial's agent started before the other's trial log ended.
      const span = (l: ReturnType<typeof events>) => {
        const times = l.map((e) => Date.parse((e as { timestamp?: string }).timestamp ?? "")).filter(Number.isFinite);
        return [Math.min(...times), Math.max(...times)] as const;
      };
      const [hostileFrom, hostileTo] = span(log);
      const [goldFrom, goldTo] = span(events(trialFolder(s.out, mode, gold.id ?? gold.trialId)));
      expect(hostileFrom).toBeLessThan(goldTo);
      expect(goldFrom).toBeLessThan(hostileTo);
      const seen = answerOf(log);
      const started = log.find((e) => e.type === "AgentStartedEvent")!.data;
      expect(started.sandbox).toBe("bwrap");
      // 1. It forged the page in its own tab and a note in a workspace that is not the trial's: failed, and crashed.
      expect(hostile.stopReason).toBe("agent_crashed");
      expect(hostile.verdict).toBe("failed");
      expect(existsSync(join(folder, "workspace/notes/BB-042.md"))).toBe(false);
      // 2. No sibling trial folder is visible; the token file is 0600 in a 0700 folder.
      expect(seen.siblings).toEqual([]);
      expect(statSync(join(folder, "agent")).mode & 0o777).toBe(0o700);
      expect(statSync(join(folder, "agent/trial.json")).mode & 0o777).toBe(0o600);
      // 3. Nested sessions and a new context are refused, each a cdp_guard event.
      expect(seen.nested).toMatch(/umpire refused Target\.(attachToTarget|sendMessageToTarget)/);
      expect(seen.wrapped).toMatch(/umpire refused Target\.sendMessageToTarget/);
      expect(seen.context).toMatch(/umpire refused Target\.createBrowserContext/);
      const cdp = guardEvents(log, "cdp_guard").map((e) => e.data.error as string);
      expect(cdp.some((e) => e.includes("Target.sendMessageToTarget"))).toBe(true);
      expect(cdp.some((e) => e.includes("Target.createBrowserContext"))).toBe(true);
      // 4. The download landed in the trial's workspace/downloads, not where it asked; the rewrite is logged.
      expect(readdirSync(steal)).toEqual([]);
      expect(readdirSync(join(folder, "workspace/downloads"))).toContain("stolen.txt");
      expect(cdp.some((e) => e.includes("Page.setDownloadBehavior") && e.includes("workspace/downloads"))).toBe(true);
      // 6. None of umpire's keys.
      expect(seen.keys).toEqual([]);
      expect(readFileSync(join(folder, "events.jsonl"), "utf8")).not.toContain(KEY);
      // Its own process could not reach the app's server (its network has nothing but the tunnels umpire opens).
      expect(String(seen.direct)).toMatch(/^refused: .*ECONNREFUSED/);

      // Issue 38, 3: no capability and not root inside; the masks and read-only binds stay.
      expect(seen.identity).toEqual({ uid: 65534, caps: "0000000000000000" });
      for (const probe of [seen.umount, seen.remount, seen.remountRoot]) expect(probe).toMatch(/^refused: /);
      expect(seen.escapeWrite).toMatch(/^refused: .*(EROFS|EACCES)/);
      expect(existsSync(join(s.dir, mode, "escaped.txt"))).toBe(false);
      // No read of the store, the key or the home folder from the agent's own process.
      expect(seen.readStore).toMatch(/^refused: /);
      expect(seen.readKey).toMatch(/^refused: /);
      expect(seen.listHome).toEqual([]);
      // The bounds, in the trial log, and what they held: fewer than 400 processes, less than 2 GB.
      const limits = log.find((e) => e.type === "AgentEvent" && e.data.flow === "sandbox_limits")!.data;
      expect(limits).toMatchObject({ pids: 256, memory_bytes: 1024 ** 3 });
      // Enforced, never merely noted: a cgroup on this machine and in CI (root, cgroup v1), prlimit without one
      // (under root as a uid of the sandbox's own, since the kernel exempts root from RLIMIT_NPROC).
      expect(enforcedBy, JSON.stringify(limits)).toContain(limits.enforced_by);
      if (mode !== "cgroup" && !ownUid) {
        // The checkout is out of other users' reach (see CHECKOUT_BLOCKED): said, with the folder, not claimed.
        expect(limits.unenforced).toMatch(/not reachable by other users \(.* has no x permission for others\)/);
      } else {
        expect(limits.unenforced, limits.unenforced).toBeUndefined();
        if (limits.enforced_by === "prlimit" && process.getuid?.() === 0) expect(limits.uid).toBeGreaterThan(0);
        expect(seen.fork.code, JSON.stringify(seen.fork)).toBe(0);
        expect(Number(seen.fork.last)).toBeGreaterThan(0);
        expect(Number(seen.fork.last)).toBeLessThan(256);
        const memoryReached = seen.memory.last.startsWith("failed at")
          ? Number(seen.memory.last.slice(10))
          : Number(seen.memory.last || 0);
        expect(memoryReached, JSON.stringify(seen.memory)).toBeLessThan(2048);
        expect(
          seen.memory.signal === "SIGKILL" || seen.memory.last.startsWith("failed at") || seen.memory.code !== 0,
        ).toBe(true);
      }

      // Issue 38, 2: host files through the browser are refused and logged.
      for (const name of ["uploadStore", "uploadKey", "uploadHome", "uploadSibling"])
        expect(seen[name], name).toMatch(/umpire refused DOM\.setFileInputFiles: .* outside the trial's workspace/);
      expect(seen.drag).toMatch(/umpire refused Input\.dispatchDragEvent/);
      expect(seen.filePage).toMatch(/umpire refused Page\.navigate: .*not a web page/);
      expect(seen.viewSource).toMatch(/umpire refused Target\.createTarget: .*not a web page/);
      for (const method of ["DOM.setFileInputFiles", "Input.dispatchDragEvent", "Page.navigate", "Target.createTarget"])
        expect(
          cdp.some((e) => e.includes(`refused the agent's ${method}`)),
          method,
        ).toBe(true);
      // Page WebSockets to a local port the task does not name: none opened, from any world; each logged.
      expect([seen.socketMain, seen.socketIsolated, seen.socketWorker]).toEqual(["refused", "refused", "refused"]);
      expect(bait.connections).toEqual([]);
      const blocked = guardEvents(log, "browser_guard").map((e) => e.data.blocked_request);
      const baitPort = await bait.port;
      expect(blocked.some((b) => b.url === `ws://127.0.0.1:${baitPort}/steal` && b.resourceType === "websocket")).toBe(
        true,
      );
      expect(blocked.some((b) => b.url === `127.0.0.1:${baitPort}` && b.method === "CONNECT")).toBe(true);
      // The session cookie is out of the page's reach, and the sibling's trial id opens nothing.
      // Issue 38 §1: umpire's logs swapped for links to a file outside: nothing written there; the events
      // file swapped for a named pipe: refused with the reason, logged once, and the run did not freeze.
      expect(seen.linkLogs).toBe("linked");
      expect(seen.pipeEvents).toMatch(/^ran/);
      expect(readFileSync(outside, "utf8")).toBe(OUTSIDE);
      const output = log.filter((e) => e.type === "AgentEvent" && e.data.origin === "external_agent_output");
      expect(JSON.stringify(output)).toContain("it is a named pipe, not a regular file");
      // The sandbox's own way out refuses a destination the config does not name, and logs it.
      expect(seen.egressBait).toMatch(/^no: umpire's sandbox does not let the agent reach 127\.0\.0\.1:/);
      const sandboxGuard = guardEvents(log, "sandbox_guard").map((e) => e.data.error as string);
      expect(sandboxGuard.some((e) => e.includes(`127.0.0.1:${baitPort}`))).toBe(true);
      expect(seen.cookieVisible).not.toContain("umpire_session");
      expect(seen.siblingDelete).toBe(401);

      // 5. The setsid loop died with the trial: its heartbeat file no longer grows.
      const beat = join(folder, "agent/heartbeat.log");
      const size = existsSync(beat) ? statSync(beat).size : 0;
      await new Promise((r) => setTimeout(r, 2_000));
      expect(existsSync(beat) ? statSync(beat).size : 0).toBe(size);
      // The run ends within its limits: the task's 180 s, plus the start and the checks.
      expect(seconds).toBeLessThan(300);
    },
    420_000,
  );

  it("outside the sandbox (--no-sandbox, said on stderr): killing the trial's Chromium ends the trial environment_error, not a hang", async () => {
    const { file } = config("kill-browser");
    const run = await runCli(
      [
        "run",
        "tasks/scorecard-note-bb042.yaml",
        "--config",
        file,
        "--agent",
        "hostile",
        "--no-sandbox",
        "--retries",
        "0",
        "--run-id",
        "killer",
        "--out",
        s.out,
        "--db",
        s.db,
        "--json",
      ],
      {
        killAfterMs: 400_000,
      },
    );
    expect(run.stderr).toContain("--no-sandbox: command agents run outside the sandbox");
    const trial = JSON.parse(run.stdout).trials[0];
    expect(trial.stopReason).toBe("environment_error");
    expect(trial.verdict).toBe("error");
    const log = events(trialFolder(s.out, "killer", trial.id ?? trial.trialId));
    expect(log.find((e) => e.type === "AgentStartedEvent")!.data.sandbox).toBe("none");
    expect(JSON.stringify(log)).toContain("the trial's browser exited (killed by SIGKILL) before the trial ended");
  }, 420_000);
});
