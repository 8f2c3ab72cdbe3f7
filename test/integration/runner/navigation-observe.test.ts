/**
 * The observation after an input that leaves the page shows the page it led to, on the path of
 * every model but the reference (no layout report to wait for) and on the reference model's:
 * a real app (started as a user starts it) with a plain link, a link answered 600 ms late, a
 * form submitted with Enter, a link answered 204 (no document follows), a form the page's script
 * handles, a link to an origin the task does not allow (refused) and a single-page-app link its
 * router intercepts (no document follows). Clicks and typing go through the real
 * executor, in real Chromium; the observation's picture must be the page the input led to, as it
 * stands once loaded (compared pixel for pixel), not the page it left.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PNG } from "pngjs";
import type { Browser } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../../src/browser/chromium.js";
import { TrialEnvironment } from "../../../src/runner/trial/environment.js";
import { Executor } from "../../../src/runner/trial/executor.js";
import { startWebTarget } from "../../../src/targets/web-target.js";
import type { Target } from "../../../src/targets/contract.js";
import { loadTasksOrThrow } from "../../../src/task/loader.js";
import type { Task } from "../../../src/task/schema.js";
import { TargetDecl } from "../../../src/task/target-decl.js";
import { ROOT } from "./harness.js";

const APP = join(import.meta.dirname, "app", "navigation-app.mjs");
let browser: Browser;
let target: Target;
let dir: string;
let task: Task;
let n = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "umpire-navigation-"));
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
  task.observation = "screenshot+text";
  task.permissions.allowedOrigins = ["target"];
  task.viewport = { width: 800, height: 600, deviceScaleFactor: 1 };
});
afterAll(async () => {
  await browser?.close();
  await target?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function open(layoutFlush: boolean) {
  const id = `navigation-${++n}`;
  const workspaceDir = join(dir, id);
  const env = await TrialEnvironment.open({ browser, task, trialId: id, workspaceDir, target, layoutFlush });
  const executor = new Executor({
    env,
    task,
    frame: () => ({ width: 800, height: 600 }),
    workspaceDir,
    recordEffect: async () => undefined,
  });
  return { env, executor };
}

const signal = new AbortController().signal;

/** The observation's picture is the page as it stands once loaded (the pages have no clock or caret). */
async function showsLoadedPage(env: TrialEnvironment, png: Buffer): Promise<boolean> {
  await env.page.waitForLoadState("load");
  const now = PNG.sync.read(await env.page.screenshot({ type: "png", caret: "initial" }));
  return Buffer.compare(PNG.sync.read(png).data, now.data) === 0;
}
/** A click at the middle of the link with this id, in the model's [0,1000] coordinates. */
async function clickOn(env: TrialEnvironment, executor: Executor, selector: string) {
  const box = (await env.page.locator(selector).boundingBox())!;
  const x = Math.round(((box.x + box.width / 2) / 800) * 1000);
  const y = Math.round(((box.y + box.height / 2) / 600) * 1000);
  const result = await executor.execute({ id: `c${++n}`, tool: "click", args: { element: selector, x, y } }, signal);
  expect(result.status, result.message).toBe("success");
}

for (const layoutFlush of [false, true]) {
  describe(`the observation after an input (${layoutFlush ? "the reference model's path" : "every other model's path"})`, () => {
    it("shows the document a link, a late link and a submitted form led to", async () => {
      const { env, executor } = await open(layoutFlush);
      try {
        for (let round = 0; round < 3; round++) {
          await env.page.goto(`${target.baseUrl}/`);
          await clickOn(env, executor, "#plain");
          const plain = await env.observe();
          expect(plain.url).toBe(`${target.baseUrl}/arrived?via=link`);
          expect(plain.text).toContain("Arrived by link");
          expect(await showsLoadedPage(env, plain.png)).toBe(true);

          await env.page.goto(`${target.baseUrl}/`);
          await clickOn(env, executor, "#slow");
          const slow = await env.observe();
          expect(slow.title).toBe("Arrived slowly");
          expect(await showsLoadedPage(env, slow.png)).toBe(true);

          await env.page.goto(`${target.baseUrl}/`);
          await clickOn(env, executor, "#q");
          expect(
            (
              await executor.execute(
                { id: `w${++n}`, tool: "write", args: { content: "form", press_enter: true } },
                signal,
              )
            ).status,
          ).toBe("success");
          const form = await env.observe();
          expect(form.url).toBe(`${target.baseUrl}/arrived?via=form`);
          expect(form.text).toContain("Arrived by form");
          expect(await showsLoadedPage(env, form.png)).toBe(true);
        }
        // Every late link was waited for (the plain ones may already have arrived); no wait ran out.
        expect(env.documentWaits.waited).toBeGreaterThanOrEqual(3);
        expect(env.documentWaits.timedOut).toBe(0);
      } finally {
        await env.close();
      }
    });

    it("does not wait when no document follows: a 204 answer, a form the page handles, a refused origin, a link the page's router intercepts", async () => {
      const { env, executor } = await open(layoutFlush);
      try {
        await clickOn(env, executor, "#empty");
        const stayed = await env.observe();
        expect(stayed.url).toBe(`${target.baseUrl}/`);
        expect(stayed.title).toBe("Home");
        expect(await showsLoadedPage(env, stayed.png)).toBe(true);
        // The document stayed: neither this observation nor the next one waits for another.
        await env.observe();
        expect(env.documentWaits.timedOut).toBe(0);

        // Forms the page's script handles (cancelled in a listener on the form, on the document, and
        // on the window added after umpire's own): the document stays, and no observation waits.
        for (const [input, word] of [
          ["#ajaxq", "plum"],
          ["#docq", "pear"],
          ["#winq", "fig"],
        ] as const) {
          const waitsBefore = { ...env.documentWaits };
          await clickOn(env, executor, input);
          expect(
            (
              await executor.execute(
                { id: `w${++n}`, tool: "write", args: { content: word, press_enter: true } },
                signal,
              )
            ).status,
          ).toBe("success");
          const kept = await env.observe();
          expect(kept.title).toBe("Home");
          expect(kept.text).toContain(`Kept ${word}`);
          expect(env.documentWaits, `${input}: an observation waited for a document that was never coming`).toEqual(
            waitsBefore,
          );
        }

        // Refused by the guard: Chromium shows its own error page, and nothing waits in vain.
        await clickOn(env, executor, "#outside");
        const refused = await env.observe();
        expect(env.blockedRequests).toContain("http://outside.invalid/");
        expect(refused.url).toMatch(/^chrome-error:/);
        expect(env.documentWaits.timedOut).toBe(0);
        await env.page.goto(`${target.baseUrl}/`);

        await clickOn(env, executor, "#spa");
        const routed = await env.observe();
        expect(routed.url).toBe(`${target.baseUrl}/app/second`);
        expect(env.documentWaits.timedOut).toBe(0);
        // Still the same document: the router's heading changes in it.
        await env.page.waitForFunction(() => document.getElementById("title")?.textContent === "App /app/second");
      } finally {
        await env.close();
      }
    });
  });
}
