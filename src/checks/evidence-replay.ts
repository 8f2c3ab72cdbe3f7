/**
 * A check context that answers from a trial's stored evidence (trial-evidence.ts) instead of the
 * live app: pages are the stored DOM loaded into a real Chromium page (at the stored URL, scripts
 * off, nothing else fetched), storage and the effects log are the stored ones, http and command
 * checks get the stored response or output. Whatever the evidence does not hold (a page, request
 * or command the trial never read, a capped text) is a miss: the check needs a live app, and
 * `misses` names why.
 */
import type { Browser, BrowserContext, Page } from "playwright";
import { commandKey, requestKey, type PageEvidence, type TrialEvidence } from "./trial-evidence.js";
import { createHash } from "node:crypto";
import { CheckUnjudgeableError, type CheckContext, type CheckIo, type PageProbe, type StorageProbe } from "./types.js";

/** Thrown when a check asks for what the evidence does not hold. */
export class LiveAppNeededError extends CheckUnjudgeableError {
  constructor(message: string) {
    super(message);
    this.name = "LiveAppNeededError";
  }
}

export interface EvidenceReplay {
  ctx: CheckContext;
  /** Why checks could not be judged from the evidence, in the order met. */
  misses: string[];
  close(): Promise<void>;
}

export interface ReplayOptions {
  /** A browser for page checks (the stored DOM is laid out in a real page); null when none is needed. */
  browser: Browser | null;
  workspaceDir: string;
  trialId: string;
  taskFile?: string;
  env?: Readonly<Record<string, string | undefined>>;
}

const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return "";
  }
}

export function replayEvidence(evidence: TrialEvidence, options: ReplayOptions): EvidenceReplay {
  const misses: string[] = [];
  const miss = (why: string): never => {
    misses.push(why);
    throw new LiveAppNeededError(why);
  };
  let context: Promise<BrowserContext> | null = null;
  let current: Promise<Page> | null = null;
  const browserContext = () => {
    const browser = options.browser ?? miss("a page check needs a browser");
    context ??= browser.newContext({
      javaScriptEnabled: false,
      viewport: { width: evidence.viewport.width, height: evidence.viewport.height },
      deviceScaleFactor: evidence.viewport.deviceScaleFactor,
    });
    return context;
  };
  const load = async (stored: PageEvidence): Promise<Page> => {
    if (stored.truncated) miss(`the stored page ${stored.url} was cut at its size cap`);
    const page = await (await browserContext()).newPage();
    // The stored document at its own URL; nothing else leaves the page (images and fonts are not kept).
    await page.route("**/*", (route) =>
      route.request().url() === stored.url && route.request().isNavigationRequest()
        ? route.fulfill({ status: 200, contentType: "text/html; charset=utf-8", body: stored.html })
        : route.abort(),
    );
    await page.goto(stored.url, { waitUntil: "load" });
    return page;
  };
  const storedPage = (key: string) =>
    evidence.pages[key] ?? miss(`no stored page for ${key === "current" ? "the trial's page" : key}`);
  const page: PageProbe = {
    current: () => (current ??= load(storedPage("current"))),
    open: async (path) => load(storedPage(`open ${path}`)),
    episode: async () =>
      evidence.episode !== undefined ? evidence.episode : miss("no stored episode record (no episode check read it)"),
    isTaskPage: (url) => Object.values(evidence.pages).some((p) => p.url === url && p.taskPage),
  };
  const storage: StorageProbe = {
    state: async () => evidence.storage.state ?? miss("no stored browser storage"),
    sessionStorage: async (origin) =>
      Object.hasOwn(evidence.storage.sessionStorage, origin)
        ? evidence.storage.sessionStorage[origin]!
        : miss(`no stored sessionStorage of ${origin}`),
  };
  const io: CheckIo = {
    async fetch(url, init) {
      const hash =
        typeof init.body === "string" ? createHash("sha256").update(init.body).digest("hex").slice(0, 16) : null;
      const key = requestKey(init.method, url, hash);
      const stored = evidence.http[key] ?? miss(`no stored response for ${init.method} ${url}`);
      if (stored.truncated) miss(`the stored response of ${init.method} ${url} was cut at its size cap`);
      return new Response(NULL_BODY_STATUS.has(stored.status) ? null : stored.body, {
        status: stored.status,
        headers: stored.headers,
      });
    },
    async runCommand(command, opts) {
      const stored =
        evidence.commands[commandKey(command, opts.cwd)] ??
        miss(`no stored output of the command ${JSON.stringify(command)}`);
      if (stored.truncated) miss(`the stored output of ${JSON.stringify(command)} was cut at its size cap`);
      const { truncated: _truncated, ...outcome } = stored;
      return outcome;
    },
  };
  const baseOrigin = originOf(evidence.target.baseUrl);
  const seenOrigins = new Set([baseOrigin, ...Object.keys(evidence.http).map((k) => originOf(k.split(" ")[1] ?? ""))]);
  const ctx: CheckContext = {
    workspaceDir: options.workspaceDir,
    effects: [],
    answer: evidence.answer,
    trialId: options.trialId,
    ...(options.taskFile ? { taskFile: options.taskFile } : {}),
    ...(options.env ? { env: options.env } : {}),
    target: {
      name: evidence.target.name,
      baseUrl: evidence.target.baseUrl,
      isAllowedUrl: (url) => seenOrigins.has(originOf(url)),
    },
    page,
    storage,
    io,
  };
  // The effects log is read only when a check asks for it: a trial that never read it misses it.
  Object.defineProperty(ctx, "effects", {
    get: () => evidence.effects ?? miss("the trial did not read the effects log"),
  });
  return {
    ctx,
    misses,
    async close() {
      if (context) await (await context).close().catch(() => undefined);
    },
  };
}
