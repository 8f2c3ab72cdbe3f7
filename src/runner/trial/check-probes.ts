/**
 * What the checks of a trial look at in the browser once its agent stopped: the page probe and the
 * storage probe (src/checks/types.ts).
 *
 * For umpire's own loop the page checks judge the trial's page as the loop left it. For a command
 * agent they judge a fresh load in a context the agent never had (untrusted-checks.ts): its code
 * could have rewritten the DOM, moved the URL with `history.pushState`, or written localStorage,
 * sessionStorage and cookies by script, and all of that lives in the trial's context. The fresh
 * context holds only what the target seeds for this trial, so what it shows is what the app serves.
 */
import type { BrowserContext, Page } from "playwright";
import { EPISODE_READER } from "../../checks/episode-check.js";
import type { EpisodeRecord, PageProbe, StorageProbe } from "../../checks/types.js";
import type { TrialEnvironment } from "./environment.js";

export interface PageProbeHandle {
  probe: PageProbe;
  /** Closes what the probe opened (the untouched context, when one was made). */
  close(): Promise<void>;
}

const UNTOUCHED =
  "a browser context the agent never had (the target's seeds for this trial; none of the agent's cookies or storage)";

async function load(context: BrowserContext, url: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(url, { waitUntil: "load" });
  return page;
}

/**
 * The page probe of a trial. `untouched`: judge in a new context seeded like the trial's (made on
 * first use); else in the trial's own context. `baseUrl` is where an `open:` path resolves.
 */
export function pageProbeOf(
  env: TrialEnvironment,
  target: { name: string; baseUrl: string },
  untouched: boolean,
): PageProbeHandle {
  let fresh: Promise<BrowserContext> | undefined;
  const judgedIn = () => (untouched ? (fresh ??= env.untouchedContext()) : Promise.resolve(env.context));
  const probe: PageProbe = {
    // A page off the task's origins is handed over as it is: the check names it and does not judge it.
    current: async () => {
      const url = env.page.url();
      return untouched && env.isAllowedUrl(url) ? load(await judgedIn(), url) : env.page;
    },
    isTaskPage: (url: string) => env.isAllowedUrl(url),
    // The episode lives in the trial's own document, whoever drove it; its capture, not a fresh load, is what makes it unforgeable.
    episode: () => readEpisode(env.page),
    open: async (pathOrUrl: string) => {
      const url = new URL(pathOrUrl, `${target.baseUrl}/`).toString();
      // A page check may open any URL on an allowed origin of the trial's target, never another.
      if (!env.isAllowedUrl(url)) throw new Error(`${url} is not on an allowed origin of target ${target.name}`);
      return load(await judgedIn(), url);
    },
    ...(untouched ? { judgedIn: UNTOUCHED } : {}),
  };
  return {
    probe,
    close: async () => {
      if (fresh) await (await fresh.catch(() => undefined))?.close().catch(() => undefined);
    },
  };
}

/**
 * For the loop: words saying the environment ended its episode (the capture's record is done: the page's
 * own code set WOB_DONE_GLOBAL; a forged write is refused and ends nothing), or null while it runs. The
 * record comes with the page read that ended the last settle or observation when there was one since the
 * last input (environment.ts `takeEpisodeRead`), else from a read of its own.
 */
export function episodeDoneOf(env: Pick<TrialEnvironment, "page" | "takeEpisodeRead">): () => Promise<string | null> {
  return async () => {
    const taken = env.takeEpisodeRead();
    const record = taken ? taken.record : await readEpisode(env.page);
    if (!record?.done) return null;
    const reason = record.reason ? `, ${record.reason}` : "";
    return `the environment ended the episode (raw reward ${record.rawReward}${reason})`;
  };
}

/** The episode capture's record in `page` (null without a capture), read through umpire's own page access. */
async function readEpisode(page: Page): Promise<EpisodeRecord | null> {
  return page.evaluate((reader) => {
    const read = (window as unknown as Record<string, unknown>)[reader];
    return typeof read === "function" ? (read() as EpisodeRecord) : null;
  }, EPISODE_READER);
}

/** The storage probe: the trial's own context, where the agent's pages kept their state. */
export function storageProbeOf(context: BrowserContext): StorageProbe {
  return {
    state: async () => {
      const state = await context.storageState();
      const origins = state.origins.map((o) => ({ origin: o.origin, localStorage: o.localStorage }));
      return { cookies: state.cookies, origins };
    },
    sessionStorage: async (origin: string) => {
      const page = context.pages().find((p) => safeOrigin(p.url()) === origin);
      if (!page) return null;
      return page.evaluate(() => Object.fromEntries(Object.entries(sessionStorage))).catch(() => null);
    },
  };
}

export function safeOrigin(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "";
  }
}
