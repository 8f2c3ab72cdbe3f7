/**
 * The reference model against the real fixture site in real Chromium: a scripted loop (this
 * file's small executor, not the runner) sends each screenshot, executes the one action the
 * model returns, and checks that every click lands on the element the task's step targets.
 * The browser runs at device scale 2, so screenshots are 2560x1600 for a 1280x800 viewport.
 */
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Browser, Page } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../../src/browser/chromium.js";
import { startFixtureSite, type FixtureSite } from "../../../fixtures-site/fixture-site.js";
import { SESSION_COOKIE } from "../../../fixtures-site/site/server.js";
import { readImageInfo } from "../../../src/sim/image.js";
import { sampleRequest, type SampleMode, type SampleStep } from "../../../src/sim/sample-request.js";
import { startReferenceModel, type ReferenceModel } from "../../../src/sim/server.js";
import { loadTasksOrThrow } from "../../../src/task/loader.js";
import type { Task } from "../../../src/task/schema.js";
import { create, sdk } from "./helpers.js";

const ROOT = resolve(import.meta.dirname, "../../..");
let site: FixtureSite;
let browser: Browser;
let model: ReferenceModel;
let task: Task;
let workspace: string;

beforeAll(async () => {
  [task] = loadTasksOrThrow(["tasks/cookie-reject-note-bb042.yaml"], { cwd: ROOT });
  [site, browser] = await Promise.all([startFixtureSite(), launchChromium()]);
  model = await startReferenceModel({ tasks: [task], fixtures: site.client, strict: true });
  workspace = await mkdtemp(join(tmpdir(), "umpire-sim-"));
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
  await model?.close();
  if (workspace) await rm(workspace, { recursive: true, force: true });
});

async function openTrial(trialId: string, mode: SampleMode): Promise<Page> {
  const { cookie } = await site.client.createSession({
    id: trialId,
    scenario: task.start.scenario,
    workspace: join(workspace, mode),
  });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 2 });
  await context.addCookies([{ name: cookie.name, value: cookie.value, url: site.siteUrl }]);
  expect(cookie.name).toBe(SESSION_COOKIE);
  const page = await context.newPage();
  await page.goto(site.siteUrl + task.start.path);
  return page;
}

/**
 * Runs `fn` once the page has settled. A click may start a navigation a moment after it returns;
 * an evaluation caught by it is run again on the new document.
 */
async function settled<T>(page: Page, fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    await page.waitForLoadState("load");
    try {
      return await fn();
    } catch (error) {
      if (attempt >= 5 || !/Execution context was destroyed|navigat/i.test(String(error))) throw error;
      await page.waitForTimeout(100);
    }
  }
}

async function observe(page: Page): Promise<Buffer> {
  await settled(page, () =>
    page.evaluate(() =>
      (window as unknown as { __umpireLayoutFlush?: () => Promise<unknown> }).__umpireLayoutFlush?.(),
    ),
  );
  return page.screenshot({ type: "png" });
}

/** The data-mark of the element at a CSS point (or of its nearest marked ancestor). */
function markAt(page: Page, x: number, y: number): Promise<string | null> {
  return settled(page, () =>
    page.evaluate(
      ([px, py]) =>
        (document.elementFromPoint(px, py)?.closest("[data-mark]") as HTMLElement | null)?.dataset.mark ?? null,
      [x, y],
    ),
  );
}

/** Plays the task to its answer; returns the clicks (target vs hit) and the answer. */
async function playGold(mode: SampleMode, trialId: string) {
  const page = await openTrial(trialId, mode);
  const client = sdk(model.baseUrl);
  const history: SampleStep[] = [];
  const clicks: { target: string | undefined; hit: string | null }[] = [];
  try {
    for (let turn = 0; turn < task.reference.length + 2; turn++) {
      const screenshot = await observe(page);
      expect(readImageInfo(screenshot)).toMatchObject({ width: 2560, height: 1600 });
      const body = sampleRequest({
        mode,
        instruction: task.instruction,
        screenshot,
        history,
        user: trialId,
        tools: task.tools,
      });
      const message = (await create(client, body)).choices[0].message;
      const call = mode === "tools" ? message.tool_calls![0] : null;
      const { tool_name: tool, ...args } =
        mode === "tools" && call?.type === "function"
          ? { tool_name: call.function.name, ...JSON.parse(call.function.arguments) }
          : JSON.parse(message.content!).tool_call;
      if (tool === "answer") return { clicks, answer: args.content as string, page };
      if (tool === "click") {
        // [0,1000] of the 2560x1600 image back to CSS pixels of the 1280x800 viewport
        const x = (args.x / 1000) * 1280;
        const y = (args.y / 1000) * 800;
        clicks.push({ target: task.reference[history.length].target, hit: await markAt(page, x, y) });
        await page.mouse.click(x, y);
      } else if (tool === "write") {
        await page.keyboard.type(args.content);
        if (args.press_enter) await page.keyboard.press("Enter");
      } else {
        throw new Error(`unexpected tool ${tool}`);
      }
      history.push({ tool, args, note: message.content ?? null });
      await page.waitForTimeout(200);
    }
    throw new Error("the reference model never answered");
  } finally {
    await page.context().close();
  }
}

describe("gold trajectory on the real fixture site", () => {
  for (const mode of ["structured", "tools"] as const) {
    it(`${mode} mode: every click lands on its target and the note is saved`, async () => {
      const trialId = `sim-gold-${mode}`;
      const { clicks, answer } = await playGold(mode, trialId);
      expect(clicks.length).toBe(task.reference.filter((s) => s.tool === "click").length);
      for (const click of clicks) expect(click.hit).toBe(click.target);
      expect(answer).toContain("Jaipur Kites won by 6 wickets");
      const note = await readFile(join(workspace, mode, "notes", "BB-042.md"), "utf8");
      expect(note).toContain("scores: Pune Pioneers 168/6, Jaipur Kites 169/4");
      const records = model.log.forUser(trialId);
      expect(records.every((r) => r.lint.length === 0 && r.status === 200)).toBe(true);
      expect(records.map((r) => r.trajectory)).toEqual(records.map(() => "reference"));
    });
  }
});
