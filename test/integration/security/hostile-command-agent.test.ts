/**
 * Issue 24: a hostile command agent (test/fixtures/hostile-agent/agent.mjs, a real Node program)
 * run through the real CLI, two trials at once, in the sandbox: it forges the page, storage and a
 * note and then crashes (1), looks for the sibling trial's token (2), nests createBrowserContext
 * and Browser.close (3), downloads into a folder of its choosing (4), leaves a setsid loop behind
 * (5), looks for umpire's keys (6) and reaches the app's server directly; and, outside the
 * sandbox, kills the trial's Chromium (7). Each is refused, logged and failed.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../../support/cli.js";
import { events, scratch, trialFolder } from "./support.js";

const s = scratch("hostile");
afterAll(() => s.cleanup());
const AGENT = join(REPO_ROOT, "test/fixtures/hostile-agent/agent.mjs");
const KEY = "sk-umpire-own-key-must-not-leak";

function config(mode: string): { file: string; steal: string } {
  const dir = join(s.dir, mode);
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

describe("a hostile command agent through the real CLI", () => {
  it("in the sandbox: forges, snoops, nests, downloads, lingers and looks for keys; all refused, logged and failed", async () => {
    const { file, steal } = config("crash");
    const run = await runCli(
      [
        "run",
        "tasks/scorecard-note-bb042.yaml",
        "--config",
        file,
        "--agent",
        "hostile",
        "--repeat",
        "2",
        "--concurrency",
        "2",
        "--run-id",
        "hostile",
        "--out",
        s.out,
        "--db",
        s.db,
        "--json",
      ],
      { killAfterMs: 400_000, env: { HAI_API_KEY: KEY } },
    );
    expect(run.code, run.stderr).toBe(1);
    const trials = JSON.parse(run.stdout).trials as Record<string, any>[];
    expect(trials).toHaveLength(2);
    for (const trial of trials) {
      const folder = trialFolder(s.out, "hostile", trial.id ?? trial.trialId);
      const log = events(folder);
      const seen = answerOf(log);
      expect(log.find((e) => e.type === "AgentStartedEvent")!.data.sandbox).toBe("bwrap");
      // 1. It forged the page in its own tab and a note in a workspace that is not the trial's: failed, and crashed.
      expect(trial.stopReason).toBe("agent_crashed");
      expect(trial.verdict).toBe("failed");
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
    }
    // 5. The setsid loop died with the trial: its heartbeat file no longer grows.
    const beats = trials.map((t) => join(trialFolder(s.out, "hostile", t.id ?? t.trialId), "agent/heartbeat.log"));
    const sizes = beats.map((b) => (existsSync(b) ? statSync(b).size : 0));
    await new Promise((r) => setTimeout(r, 2_000));
    expect(beats.map((b) => (existsSync(b) ? statSync(b).size : 0))).toEqual(sizes);
  }, 420_000);

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
