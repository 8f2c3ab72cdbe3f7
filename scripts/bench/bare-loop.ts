/**
 * The baseline for the per-step benchmark: a bare Playwright loop that replays the actions an
 * umpire trial took, on a fresh fixture session in the same browser, with nothing but what the
 * work itself needs: the input, a wait until the page has no request in flight (the same 25 ms
 * poll umpire's executor uses), and a PNG screenshot. No layout flush, no routing, no hashing,
 * no logs, no store, no model client.
 *
 * Without a model turn between two actions, a bare loop clicks again before a navigation that
 * the previous input started has even been reported, and the replay drifts off the trajectory.
 * So each action carries the page (path + query) umpire observed after it, and the bare loop
 * waits for that URL when the page is not there yet: the cheapest wait that keeps both loops
 * doing the same work (nothing at all on steps that stay on their page).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright";
import type { FixtureControlClient } from "../../fixtures-site/client.js";
import { normalizeKey } from "../../src/runner/trial/executor.js";
import type { Task } from "../../src/task/schema.js";
import type { ProposedAction } from "../../src/toolbox/tools.js";

/** One action as the model proposed it, with the frame its [0,1000] coordinates refer to. */
export interface ReplayAction {
  action: ProposedAction;
  frame: { width: number; height: number };
  /** Path and query umpire's next observation showed (from the fixture's layout report). */
  expectPath?: string;
}

export interface BareStep {
  tool: string;
  /** Input sent and the page settled. */
  actionMs: number;
  screenshotMs: number;
  totalMs: number;
}

export interface BareReplay {
  steps: BareStep[];
  /** Effect types the fixture recorded for the replay's session (a gold replay saves the note). */
  effects: string[];
  /** Steps after which the page was not at the path umpire saw (0 when the replay stayed on track). */
  offTrack: number;
}

const SETTLE_POLL_MS = 25;
const SETTLE_CAP_MS = 2_500;

/**
 * The context options that change what the page renders, as umpire sets them (viewport, scale,
 * motion, locale, time zone), so both loops draw the same pixels; none of umpire's guards.
 */
export function renderingOptions(task: Task) {
  return {
    viewport: { width: task.viewport.width, height: task.viewport.height },
    deviceScaleFactor: task.viewport.deviceScaleFactor,
    reducedMotion: "reduce" as const,
    locale: "en-GB",
    timezoneId: "UTC",
  };
}

/** Replays `actions` (answer excluded) and times each step: action, settle, screenshot. */
export async function replayBare(
  browser: Browser,
  fixtures: { siteUrl: string; client: FixtureControlClient },
  task: Task,
  actions: ReplayAction[],
): Promise<BareReplay> {
  const workspace = mkdtempSync(join(tmpdir(), "umpire-bench-bare-"));
  const session = await fixtures.client.createSession({ scenario: task.start.scenario, workspace });
  const context = await browser.newContext(renderingOptions(task));
  try {
    await context.addCookies([
      { name: session.cookie.name, value: session.cookie.value, domain: new URL(fixtures.siteUrl).hostname, path: "/" },
    ]);
    const page = await context.newPage();
    let inflight = 0;
    page.on("request", () => (inflight += 1));
    page.on("requestfinished", () => (inflight = Math.max(0, inflight - 1)));
    page.on("requestfailed", () => (inflight = Math.max(0, inflight - 1)));
    const settle = async () => {
      const until = Date.now() + SETTLE_CAP_MS;
      while (inflight > 0 && Date.now() < until) await new Promise((r) => setTimeout(r, SETTLE_POLL_MS));
    };
    await page.goto(new URL(task.start.path, fixtures.siteUrl).toString(), { waitUntil: "load" });
    await screenshot(page); // the first observation, not a step

    const steps: BareStep[] = [];
    let offTrack = 0;
    for (const { action, frame, expectPath } of actions) {
      if (action.tool === "answer") continue;
      const started = performance.now();
      await perform(page, action, frame, task.viewport.deviceScaleFactor);
      await settle();
      if (expectPath !== undefined && pathOf(page.url()) !== expectPath) {
        const arrived = await page
          .waitForURL((url) => url.pathname + url.search === expectPath, { waitUntil: "load", timeout: 5_000 })
          .then(
            () => true,
            () => false,
          );
        if (!arrived) offTrack += 1;
        await settle();
      }
      const acted = performance.now();
      await screenshot(page);
      const done = performance.now();
      steps.push({ tool: action.tool, actionMs: acted - started, screenshotMs: done - acted, totalMs: done - started });
    }
    return { steps, effects: await settledEffects(fixtures.client, session.id), offTrack };
  } finally {
    await context.close().catch(() => undefined);
    await fixtures.client.deleteSession(session.id).catch(() => undefined);
    rmSync(workspace, { recursive: true, force: true });
  }
}

/**
 * The effects recorded for the session, once the last request has landed: the bare loop's
 * settle can return before Chromium reports a request that a click has just started.
 */
async function settledEffects(client: FixtureControlClient, sessionId: string): Promise<string[]> {
  const until = Date.now() + 2_000;
  for (;;) {
    const effects = (await client.effects(sessionId)).map((e) => e.type);
    if (effects.includes("note_saved") || Date.now() > until) return effects;
    await new Promise((r) => setTimeout(r, 50));
  }
}

function pathOf(url: string): string {
  const parsed = new URL(url);
  return parsed.pathname + parsed.search;
}

/** The same [0,1000] -> CSS pixel mapping the executor uses (Holo's formula on the image sent). */
function toCss(x: number, y: number, frame: { width: number; height: number }, dpr: number): { x: number; y: number } {
  const px = Math.min(Math.round((x / 1000) * frame.width), frame.width - 1);
  const py = Math.min(Math.round((y / 1000) * frame.height), frame.height - 1);
  return { x: px / dpr, y: py / dpr };
}

export async function perform(
  page: Page,
  action: ProposedAction,
  frame: { width: number; height: number },
  dpr: number,
): Promise<void> {
  const args = action.args as Record<string, any>;
  switch (action.tool) {
    case "click":
    case "double_click": {
      const point = toCss(args.x, args.y, frame, dpr);
      await page.mouse.click(point.x, point.y, { clickCount: action.tool === "double_click" ? 2 : 1 });
      return;
    }
    case "write":
      await page.keyboard.type(String(args.content));
      if (args.press_enter) await page.keyboard.press("Enter");
      return;
    case "press":
      await page.keyboard.press((args.keys as string[]).map((k) => normalizeKey(k) ?? k).join("+"));
      return;
    case "scroll": {
      const at = args.x !== undefined ? toCss(args.x, args.y, frame, dpr) : toCss(500, 500, frame, dpr);
      const delta = Number(args.amount) * 100;
      const [dx, dy] = (
        { up: [0, -delta], down: [0, delta], left: [-delta, 0], right: [delta, 0] } as Record<string, [number, number]>
      )[String(args.direction)]!;
      await page.mouse.move(at.x, at.y);
      await page.mouse.wheel(dx, dy);
      await page.waitForTimeout(150);
      return;
    }
    default:
      throw new Error(
        `the bare replay does not perform "${action.tool}"; pick a benchmark task made of clicks, typing, keys and scrolls`,
      );
  }
}

/** A PNG of the viewport; like umpire, tries again when Chromium refuses mid-navigation. */
export async function screenshot(page: Page): Promise<Buffer> {
  for (let attempt = 1; ; attempt++) {
    try {
      // caret "initial" as umpire: "hide" would inject a style on every capture.
      return await page.screenshot({ type: "png", caret: "initial", timeout: 15_000 });
    } catch (error) {
      if (attempt >= 4) throw error;
      await page.waitForLoadState("load", { timeout: 5_000 }).catch(() => undefined);
      await new Promise((r) => setTimeout(r, 100 * attempt));
    }
  }
}
