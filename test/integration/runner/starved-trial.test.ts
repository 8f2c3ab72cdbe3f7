/**
 * The starvation decision on a real trial environment, with a controlled load signal: a settle
 * wait that ran out (a request still in flight, in real Chromium against a real app) while the load
 * signal says the machine was starved turns a trial that would fail into `error`, with the wait named
 * in its stop detail and its log; the same wait with a machine that had room leaves it `failed`.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../../src/browser/chromium.js";
import { TrialEnvironment } from "../../../src/runner/trial/environment.js";
import { emptyLoopOutcome } from "../../../src/runner/trial/loop.js";
import type { LoadProbe } from "../../../src/runner/trial/starvation.js";
import { createTrialLog } from "../../../src/runner/trial/trial-log.js";
import { concludeTrial } from "../../../src/runner/trial/trial.js";
import { startWebTarget } from "../../../src/targets/web-target.js";
import type { Target } from "../../../src/targets/contract.js";
import { loadTasksOrThrow } from "../../../src/task/loader.js";
import { FileCheck, type Task } from "../../../src/task/schema.js";
import { TargetDecl } from "../../../src/task/target-decl.js";
import { ROOT } from "./harness.js";

const APP = join(import.meta.dirname, "app", "navigation-app.mjs");
let browser: Browser;
let target: Target;
let dir: string;
let task: Task;
let n = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "umpire-starved-trial-"));
  browser = await launchChromium();
  target = await startWebTarget({
    name: "navigation-app",
    decl: TargetDecl.parse({ baseUrl: "http://127.0.0.1:${PORT}", start: { command: ["node", APP], readyUrl: "/" } }),
    configDir: dir,
    logDir: dir,
    env: process.env,
  });
  task = structuredClone(loadTasksOrThrow([], { cwd: ROOT }).find((t) => t.id === "scorecard-note-bb042")!);
  task.target = "navigation-app";
  task.start.path = "/";
  task.permissions.allowedOrigins = ["target"];
  task.permissions.forbiddenEffects = [];
  // A check the trial fails: no note was written.
  task.checks = [FileCheck.parse({ kind: "file", name: "the note exists", path: "notes/BB-042.md" })];
});
afterAll(async () => {
  await browser?.close();
  await target?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A trial whose page had a request in flight when a (short) settle wait ran out, under this load signal. */
async function trialWithSettleRunOut(cpuBusy: number) {
  const id = `starved-${++n}`;
  const folder = join(dir, id);
  const probe: LoadProbe = () => () => ({ cpuBusy, lagMs: 0 });
  const env = await TrialEnvironment.open({
    browser,
    task,
    trialId: id,
    workspaceDir: join(folder, "workspace"),
    target,
    loadProbe: probe,
  });
  // The app answers /slow after 600 ms: a 1 ms settle always runs out with it in flight.
  // Listening before the fetch: a request reported before the listener would never be seen.
  const sent = env.page.waitForRequest((r) => r.url().endsWith("/slow"));
  await env.page.evaluate(() => void fetch("/slow").catch(() => undefined));
  await sent;
  expect(await env.settle(1)).toBe(false);
  const log = createTrialLog(folder);
  const deps = { target, signal: new AbortController().signal };
  const outcome = await concludeTrial({ id, task, agentLabel: "test", repeat: 1 }, folder, deps, {
    log,
    trialEnv: env,
    loop: emptyLoopOutcome("answered", ""),
    error: null,
    started: performance.now(),
    repetition: {},
    blocked: { finish: () => undefined },
    driver: undefined,
    deadline: undefined,
  });
  return { outcome, events: readFileSync(join(folder, "events.jsonl"), "utf8") };
}

describe("a trial whose deciding wait ran out", () => {
  it("ends error, naming the wait, when the machine was starved over it", async () => {
    const { outcome, events } = await trialWithSettleRunOut(0.99);
    expect(outcome.verdict).toBe("error");
    expect(outcome.error).toMatch(/^machine starved: the settle wait ran out \(limit 1 ms, .*CPU 99% busy/);
    expect(outcome.stopLine).toMatch(/not judged: machine starved: the settle wait ran out/);
    expect(events).toContain('"origin":"machine"');
    expect(events).toContain('"starved":1');
  });

  it("stays failed when the machine had room: the application was slow, not the machine", async () => {
    const { outcome, events } = await trialWithSettleRunOut(0.2);
    expect(outcome.verdict).toBe("failed");
    expect(outcome.error).toBeNull();
    expect(events).toContain('"ranOut":1');
    expect(events).not.toContain("machine starved");
  });
});
