/**
 * Defects of issue #12 §5 in the runner, each against a real Chromium and the real fixture site
 * (the scripted agent session is the agent under test's stand-in; the browser is never faked):
 * - TrialEnvironment.open closes its browser context when the start page fails to load;
 * - a failing capture after an invalid model output ends the loop as environment_error and keeps
 *   the turns and token counts it had (it used to throw them away for an empty outcome).
 */
import { fixtureTarget } from "../../../src/targets/fixture-target.js";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Browser } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFixtureSite, type FixtureSite } from "../../../fixtures-site/fixture-site.js";
import { launchChromium } from "../../../src/browser/chromium.js";
import { TrialEnvironment } from "../../../src/runner/trial/environment.js";
import { Executor } from "../../../src/runner/trial/executor.js";
import { runLoop, type AgentSessionLike, type AgentTurn } from "../../../src/runner/trial/loop.js";
import { createTrialLog } from "../../../src/runner/trial/trial-log.js";
import { loadTasksOrThrow } from "../../../src/task/loader.js";
import type { Task } from "../../../src/task/schema.js";

const ROOT = resolve(__dirname, "../../..");
let browser: Browser;
let site: FixtureSite;
let dir: string;
let task: Task;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "umpire-defects-"));
  [browser, site] = await Promise.all([launchChromium(), startFixtureSite()]);
  task = loadTasksOrThrow(["scorecard-note-bb042"], { cwd: ROOT })[0]!;
}, 60_000);
afterAll(async () => {
  await browser?.close();
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("TrialEnvironment.open", () => {
  it("closes the browser context it made when the start page does not load", async () => {
    expect(browser.contexts()).toHaveLength(0);
    // The session is real (control API); the site URL names a port nothing listens on.
    const dead = { siteUrl: "http://127.0.0.1:1", client: site.client };
    await expect(
      TrialEnvironment.open({
        browser,
        task,
        trialId: "leak-1",
        workspaceDir: join(dir, "leak-1"),
        target: fixtureTarget(dead),
        navigationTimeoutMs: 5_000,
      }),
    ).rejects.toThrow(/ERR_CONNECTION_REFUSED|net::/);
    expect(browser.contexts()).toHaveLength(0);
  });
});

describe("the capture after an invalid output", () => {
  it("a failing screenshot stops the trial as environment_error and keeps its turn and usage counts", async () => {
    const env = await TrialEnvironment.open({
      browser,
      task,
      trialId: "capture-1",
      workspaceDir: join(dir, "capture-1"),
      target: fixtureTarget(site),
    });
    try {
      const invalid: AgentTurn = {
        outcome: "invalid",
        actions: [],
        invalid: [{ id: "c1", kind: "out_of_range", message: "x and y must be numbers in [0, 1000]" }],
        content: "{}",
        usage: { inputTokens: 1200, outputTokens: 40, reasoningTokens: 10, cachedTokens: 0 },
        timing: { modelMs: 5, retries: 0 },
        finishReason: "stop",
      };
      const session: AgentSessionLike = {
        // The page goes away while the model "thinks": the next capture cannot succeed.
        async nextTurn() {
          await env.page.close();
          return invalid;
        },
        addResults() {},
        addUserText() {},
      };
      const workspaceDir = join(dir, "capture-1", "workspace");
      const outcome = await runLoop({
        task,
        observe: () => env.observe(),
        session,
        executor: new Executor({
          env,
          task,
          frame: () => ({ width: 1280, height: 800 }),
          workspaceDir,
          recordEffect: async () => undefined,
        }),
        log: createTrialLog(join(dir, "capture-1")),
        userSignal: new AbortController().signal,
        maxInvalidOutputs: 3,
        responseReserve: 2048,
        modelSlot: (fn) => fn(),
        onTurn: () => undefined,
      });
      expect(outcome.stopReason).toBe("environment_error");
      expect(outcome.stopDetail).toMatch(/could not observe the page/);
      expect(outcome.turns).toBe(1);
      expect(outcome.usage).toMatchObject({ inputTokens: 1200, outputTokens: 40, reported: true });
    } finally {
      await env.close();
    }
  });
});
