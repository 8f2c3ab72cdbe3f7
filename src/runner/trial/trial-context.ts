/**
 * A browser context as a trial of a task gets it: the task's viewport and settings, and the
 * target's `context:` seeds (the trial's identity as cookies, extra headers, localStorage and
 * sessionStorage; `prepareTrial` made them concrete). The trial's own context is one; the context
 * a command agent's page checks judge in is another, made the same way after the agent stopped,
 * so it holds what the target gives this trial and nothing the agent's script wrote.
 */
import type { Browser, BrowserContext } from "playwright";
import type { Task } from "../../task/schema.js";
import type { TrialBrowserSeed } from "../../targets/contract.js";

/**
 * Seeds sessionStorage where absent as each document of the origin starts (it lives per tab, so no
 * earlier moment exists).
 */
function seedSessionStorage(seeds: { origin: string; items: Record<string, string> }[]): void {
  const mine = seeds.find((s) => s.origin === location.origin);
  if (!mine) return;
  try {
    for (const [key, value] of Object.entries(mine.items)) {
      if (sessionStorage.getItem(key) === null) sessionStorage.setItem(key, value);
    }
  } catch {
    // Storage refused (an opaque origin): nothing to seed.
  }
}

/** A new context with the task's settings and the trial's seeds; closed again when seeding fails. */
export async function newSeededContext(browser: Browser, task: Task, seed: TrialBrowserSeed): Promise<BrowserContext> {
  const localStorage = seed.localStorage ?? [];
  const storageState = {
    cookies: [],
    origins: localStorage.map((o) => ({
      origin: o.origin,
      localStorage: Object.entries(o.items).map(([name, value]) => ({ name, value })),
    })),
  };
  const context = await browser.newContext({
    ...(seed.headers && Object.keys(seed.headers).length ? { extraHTTPHeaders: seed.headers } : {}),
    ...(localStorage.length ? { storageState } : {}),
    viewport: { width: task.viewport.width, height: task.viewport.height },
    deviceScaleFactor: task.viewport.deviceScaleFactor,
    reducedMotion: "reduce",
    serviceWorkers: "block",
    acceptDownloads: false,
    locale: "en-GB",
    timezoneId: "UTC",
  });
  try {
    if (seed.cookies.length > 0) await context.addCookies(seed.cookies);
    if (seed.sessionStorage?.length) await context.addInitScript(seedSessionStorage, seed.sessionStorage);
    return context;
  } catch (error) {
    await context.close().catch(() => undefined);
    throw error;
  }
}

/**
 * The context a command agent's page checks judge in: seeded like the trial's, guarded to the
 * task's origins (a request elsewhere is aborted, as in the trial), and never shown to the agent.
 */
export async function untouchedContext(
  browser: Browser,
  task: Task,
  seed: TrialBrowserSeed,
  isAllowedUrl: (url: string) => boolean,
): Promise<BrowserContext> {
  const context = await newSeededContext(browser, task, seed);
  try {
    await context.route("**/*", (route) =>
      isAllowedUrl(route.request().url()) ? route.continue() : route.abort("blockedbyclient"),
    );
    return context;
  } catch (error) {
    await context.close().catch(() => undefined);
    throw error;
  }
}
