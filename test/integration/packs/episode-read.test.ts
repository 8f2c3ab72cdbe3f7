/**
 * The loop's "has the episode ended?" on the MiniWoB++ test pack (examples/miniwob-mini/html), in real Chromium:
 * it rides the page read that ends an input's settle and the one that ends an observation (issue 42 §3, the
 * step's cost), and is never answered by a read older than the last input. Page evaluations are counted by
 * wrapping the real `page.evaluate` (it still runs).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../../src/browser/chromium.js";
import { EPISODE_READER } from "../../../src/checks/episode-check.js";
import { loadMiniwobPack, startMiniwobTarget } from "../../../src/packs/miniwob.js";
import { episodeDoneOf } from "../../../src/runner/trial/check-probes.js";
import { TrialEnvironment } from "../../../src/runner/trial/environment.js";
import { Executor } from "../../../src/runner/trial/executor.js";
import type { Target } from "../../../src/targets/contract.js";
import type { ProposedAction } from "../../../src/toolbox/tools.js";
import { REPO_ROOT } from "../../support/cli.js";

const pack = loadMiniwobPack({ dir: join(REPO_ROOT, "examples/miniwob-mini/html"), tasks: ["click-test"] });
const task = pack.tasks[0]!;
let browser: Browser;
let target: Target;
let dir: string;
const signal = new AbortController().signal;

beforeAll(async () => {
  browser = await launchChromium();
  target = await startMiniwobTarget(pack);
  dir = mkdtempSync(join(tmpdir(), "umpire-episode-read-"));
});
afterAll(async () => {
  await browser?.close();
  await target?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Counts every page.evaluate call while leaving it to run for real. */
function countEvaluations(page: Page): string[] {
  const calls: string[] = [];
  const real = page.evaluate.bind(page) as (...a: unknown[]) => Promise<unknown>;
  (page as unknown as { evaluate: (...a: unknown[]) => Promise<unknown> }).evaluate = (...args: unknown[]) => {
    calls.push(String(args[0]));
    return real(...args);
  };
  return calls;
}

describe("the episode's end, read with the page reads the step makes anyway", () => {
  it("costs no evaluation after an observation or a settled click, and reads the page itself after any other input", async () => {
    const env = await TrialEnvironment.open({
      browser,
      task,
      trialId: "episode-read-1",
      workspaceDir: join(dir, "w1"),
      target,
      layoutFlush: false,
      episodeReader: EPISODE_READER,
    });
    const frame = () => ({
      width: task.viewport.width * task.viewport.deviceScaleFactor,
      height: task.viewport.height * task.viewport.deviceScaleFactor,
    });
    const executor = new Executor({ env, task, frame, workspaceDir: join(dir, "w1"), recordEffect: async () => {} });
    const ended = episodeDoneOf(env);
    try {
      const calls = countEvaluations(env.page);
      await env.observe();
      let before = calls.length;
      expect(await ended()).toBeNull();
      expect(calls.length).toBe(before);
      // Taken once: asked again with nothing read since, it reads the page itself.
      expect(await ended()).toBeNull();
      expect(calls.length).toBe(before + 1);

      // An input that ends in no settle (a wait): the observation's read is older than it, so the page is read.
      await env.observe();
      const wait: ProposedAction = { id: "w", tool: "wait", args: { seconds: 0.1 } } as ProposedAction;
      expect((await executor.execute(wait, signal)).status).toBe("success");
      before = calls.length;
      expect(await ended()).toBeNull();
      expect(calls.length).toBe(before + 1);

      // The click that ends the episode: its settle's last frame read says so, no read of its own.
      const box = (await env.page.locator("#area button").first().boundingBox())!;
      const at = (v: number, size: number) => Math.round((v / size) * 1000);
      const click = {
        id: "c",
        tool: "click",
        args: {
          element: "the button",
          x: at(box.x + box.width / 2, task.viewport.width),
          y: at(box.y + box.height / 2, task.viewport.height),
        },
      } as ProposedAction;
      expect((await executor.execute(click, signal)).status).toBe("success");
      before = calls.length;
      expect(await ended()).toContain("the environment ended the episode (raw reward 1");
      expect(calls.length).toBe(before);
    } finally {
      await env.close();
    }
  }, 120_000);

  it("without an episode reader, the settle and the observation read no episode and the probe reads the page", async () => {
    const env = await TrialEnvironment.open({
      browser,
      task,
      trialId: "episode-read-2",
      workspaceDir: join(dir, "w2"),
      target,
      layoutFlush: false,
    });
    try {
      const calls = countEvaluations(env.page);
      await env.observe();
      expect(env.takeEpisodeRead()).toBeUndefined();
      const before = calls.length;
      expect(await episodeDoneOf(env)()).toBeNull();
      expect(calls.length).toBe(before + 1);
    } finally {
      await env.close();
    }
  }, 120_000);
});
