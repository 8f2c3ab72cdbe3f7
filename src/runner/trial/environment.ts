/**
 * A trial's environment: its own browser context, its target prepared for it (the fixture's
 * session, or the app's per-trial reset) and its workspace folder.
 *
 * The context only reaches the origins the task allows (the fixture's control API, on its own
 * port, is never one of them), and the observation keeps the exact screenshot bytes the model is
 * sent, because coordinates are scaled against those bytes. On targets whose pages do not report
 * their own layout, each observation also resolves the marks and posts them to the layout board.
 */
import { TrialTrace, type TraceSpec } from "./trial-trace.js";
import { createHash } from "node:crypto";
import { mkdir } from "node:fs/promises";
import type { Browser, BrowserContext, Page, Request } from "playwright";
import type { Task } from "../../task/schema.js";
import { substituteTrialVars } from "../../task/trial-vars.js";
import { originsForTask, trialVarsOf, type Target, type TrialBrowserSeed } from "../../targets/contract.js";
import { pageGeometryScript } from "../../browser/page-geometry.js";
import { resolveMarks, type ResolvedLayout, type ResolvedMark } from "../../targets/marks.js";
import type { LayoutBoard } from "../../targets/layout-board.js";
import { DialogPainter, lastPaintedFrame } from "../page/dialog-picture.js";
import {
  DIALOG_OPENED,
  DialogWatch,
  type DialogLayout,
  type DialogPolicy,
  type DialogRecord,
} from "../page/dialogs.js";
import { ViewportCapture } from "../page/fast-capture.js";
import { typeText } from "../page/fast-typing.js";
import { ARRIVAL_WAIT_MS, LEAVING_GLOBAL, NavigationWatch, navigationWatchScript } from "../page/navigation-watch.js";
import { PageCdpSession } from "../page/page-cdp.js";
import {
  ANIMATION_WAIT_MS,
  FIRST_SETTLE_MS,
  pageSettleScript,
  sameMarks,
  type AnimationWait,
  type SettleOutcome,
  type SettleWindow,
} from "../page/page-settle.js";
import { splitTaskMasks } from "./repetition/masks.js";
import { StarvationWatch, type LoadProbe } from "./starvation.js";
import { newSeededContext, untouchedContext } from "./trial-context.js";
import { readInstruction } from "../page/page-instruction.js";
import type { TrialDeadline } from "./deadline.js";

/** What the agent is shown each turn, plus what the runner keeps about it. */
export interface Observation {
  /** The exact PNG bytes sent to the model. */
  png: Buffer;
  sha256: string;
  /** Pixel size of `png` (device pixels: CSS size x deviceScaleFactor). */
  width: number;
  height: number;
  url?: string;
  title?: string;
  text?: string;
  capturedAt: string;
  captureMs: number;
  /** Moving regions the page declared (CSS px, viewport-relative), for the repetition masks. */
  volatile: Box[];
  /** The boxes of the task's selector masks as the page stood at the capture (CSS px, viewport-relative). */
  selectorMasks: Box[];
  /** What the observation waited for before the capture (page-settle.ts); absent for a dialog's picture. */
  settle?: SettleOutcome;
}

export interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface TrialEnvironmentOptions {
  browser: Browser;
  task: Task;
  trialId: string;
  /** The agent's workspace (notes/ lives here); created if missing. */
  workspaceDir: string;
  target: Target;
  /** The fixture site's URL, for tasks on other targets that also allow "fixture". */
  fixtureSiteUrl?: string;
  /** Where resolved marks are posted for the reference model (targets other than the fixture). */
  board?: LayoutBoard;
  /** Milliseconds to wait for navigation and loads. */
  navigationTimeoutMs?: number;
  /** The trial's repeat number (from 1): a target that seeds its episodes draws the seed from it. */
  repeat?: number;
  /** Told of every request the guard refused, as it happens (the trial log keeps them as evidence). */
  onBlockedRequest?: (blocked: BlockedRequest) => void;
  /**
   * Whether each observation first waits for the page's layout report (`__umpireLayoutFlush`).
   * Only a model that grounds on that report (the reference model) needs it to match the
   * screenshot; for any other model it is a page round trip plus a routed POST per step that
   * changes no pixel of what the model is sent. Default true (the safe side).
   */
  layoutFlush?: boolean;
  /** How the machine's load is read when a wait runs out (starvation.ts); tests give a controlled one. */
  loadProbe?: LoadProbe;
  /** Who answers native dialogs: the agent (drawn in the observation), or umpire at once. Default agent. */
  dialogs?: DialogPolicy;
  /** Told when a native dialog opens and when it is answered (the trial log). */
  onDialog?: (event: "opened" | "answered", record: DialogRecord) => void;
  /** Told when the page opens a new tab (a target=_blank link, window.open), which becomes the page shown. */
  onTab?: (tab: TabRecord) => void;
  /** `--trace`: record a Playwright trace of the context, written when it closes (trial-trace.ts). */
  trace?: TraceSpec;
  /** The trial's call deadline (deadline.ts): every browser call of an observation or input runs under it. */
  deadline?: TrialDeadline;
  /**
   * The global of the page's episode reader (a benchmark pack's episode capture, episode-capture.ts). When
   * set, the page read that ends an input's settle and the one that ends an observation also read the
   * episode's record, so the loop's "has the episode ended?" costs no page round trip of its own
   * (`takeEpisodeRead`).
   */
  episodeReader?: string;
}

/** The part of an episode record the loop stops on, read with the page read that ended a settle or an observation. */
export interface EpisodeRead {
  done: boolean;
  rawReward: number | null;
  reason: string | null;
}

/** A tab the agent's page opened. */
export interface TabRecord {
  url: string;
  openerUrl: string;
  openedAt: string;
}

/** A request the agent's page tried that never left the browser. */
export interface BlockedRequest {
  url: string;
  method: string;
  /** Playwright's resource type: document, script, fetch, image, ... */
  resourceType: string;
  /** A top-level or frame navigation rather than a subresource. */
  navigation: boolean;
  /** The page that made it. */
  frameUrl: string;
}

const PAGE_TEXT_LIMIT = 4_000;
/** How many times an observation retakes its picture when the page or its marks moved during the capture. */
const PAIR_ATTEMPTS = 2;
/** How long the start page may take to load (`load`), at most: a later navigation gets 15 s. */
const START_PAGE_TIMEOUT_MS = 60_000;
/** A page read that waited for nothing (no settle script in the page). */
const STILL: AnimationWait = { animations: 0, unfinished: 0, ignored: 0, layout: "not checked", waitedMs: 0 };

/** The one page evaluation before a capture (readPage). */
interface PageRead {
  leaving: boolean;
  volatile: Box[];
  selectorMasks: Box[];
  settle?: AnimationWait;
}
/** How Playwright says that a page evaluation's document was replaced while it ran. */
const SWAPPED_DOCUMENT = /context was destroyed|navigation/i;

/** The allowed origins of a task on the fixture site ("fixture" and "target" both mean the site). */
export function allowedOrigins(task: Task, siteUrl: string): Set<string> {
  const fixtureOrigin = new URL(siteUrl).origin;
  return new Set(
    task.permissions.allowedOrigins.map((o) => (o === "fixture" || o === "target" ? fixtureOrigin : new URL(o).origin)),
  );
}

/** The start page: a path on the target, or an absolute URL (which must be on an allowed origin); trial variables filled in. */
export function startUrl(task: Task, target: Target, trial: { trialId: string; workspaceDir: string }): string {
  return new URL(substituteTrialVars(task.start.path, trialVarsOf(target, trial)), `${target.baseUrl}/`).toString();
}

/** True for an http(s) URL whose origin is in `origins` (a `blob:` URL's inner origin does not count). */
export function isOnOrigins(url: string, origins: ReadonlySet<string>): boolean {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return false;
  return origins.has(parsed.origin);
}

export class TrialEnvironment {
  readonly origins: Set<string>;
  /** Requests the agent's page tried that were refused, for the trial log. */
  readonly blockedRequests: string[] = [];
  /** Observations that waited for a document the input asked for, and those whose wait ran out. */
  readonly documentWaits = { waited: 0, timedOut: 0 };
  /** The waits that ran out while the machine was starved (starvation.ts). */
  readonly starvation: StarvationWatch;
  /** How long the target's reset took before this trial (ms). */
  resetMs: number | undefined;
  /** The instruction read from the start page (`instructionFrom`); undefined when the task states its own. */
  instruction: string | undefined;
  /** What the target decided for this trial (e.g. its episode seed), stored with the trial. */
  facts: Record<string, unknown> | undefined;
  /** The marks as last resolved (targets other than the fixture). */
  lastLayout: ResolvedLayout | undefined;
  /** The page's requests in flight, but its top document's (a navigation is the navigation watch's to wait for). */
  private readonly pending = new Set<Request>();
  /** The task's repetition masks given by selector, resolved with every observation. */
  private readonly maskSelectors: string[];
  /** Whether the top document loaded since a point (navigation-watch.ts). */
  private navigation: NavigationWatch;
  /** umpire's own CDP session on the page, for the fast capture and the fast typing. */
  private cdp: PageCdpSession;
  /** Chromium's fast PNG path (fast-capture.ts), same pixels as page.screenshot. */
  private capture: ViewportCapture;
  /** The page shown to the agent: the first one, or the tab it opened last (while open). */
  private active: Page;
  /** Native dialogs of the trial's pages (dialogs.ts). */
  readonly dialogs: DialogWatch;
  /** Where an open dialog's buttons were drawn in the last observation (CSS px). */
  dialogLayout: DialogLayout | undefined;
  /** Tabs the agent's pages opened. */
  readonly tabs: TabRecord[] = [];
  private readonly painter: DialogPainter;
  /** The last picture of the page, the backdrop of a dialog when no painted frame can be had. */
  private lastPng: Buffer | undefined;
  /** The Playwright trace being recorded (`--trace`), written by close(). */
  trace: TrialTrace | undefined;
  /** Whether the layout moved across the last frame the settle wait saw (page-settle.ts): the observation then waits for it to stand still. */
  private moving = false;
  /** Whether the first observation (the start page's) was taken. */
  private observed = false;
  /**
   * The episode as the last page read of a settle or an observation found it (`episodeReader`), until the
   * loop takes it; `{ record: null }` when the page has no reader. Cleared when an input starts.
   */
  private episodeRead: { record: EpisodeRead | null } | undefined;

  private constructor(
    readonly options: TrialEnvironmentOptions,
    readonly context: BrowserContext,
    page: Page,
    /** The start page, trial variables filled in. */
    readonly startUrl: string,
    /** What the target put into the context for this trial (its `context:` seeds). */
    private readonly seed: TrialBrowserSeed,
  ) {
    this.origins = originsForTask(options.task, options.target, options.fixtureSiteUrl);
    this.maskSelectors = splitTaskMasks(options.task.repetition.masks).selectors;
    this.dialogs = new DialogWatch(options.dialogs ?? "agent", (event, record) => options.onDialog?.(event, record));
    this.painter = new DialogPainter(options.browser, options.task.viewport);
    this.active = page;
    this.navigation = new NavigationWatch(page);
    this.starvation = new StarvationWatch(options.loadProbe);
    this.cdp = new PageCdpSession(page);
    this.capture = new ViewportCapture(page, options.task.viewport.deviceScaleFactor, this.cdp);
    this.dialogs.attach(page);
    this.watchCrash(page);
  }

  /** `work` under the trial's deadline (deadline.ts), named for the trial log when it hangs. */
  call<T>(what: string, work: Promise<T>): Promise<T> {
    return this.options.deadline ? this.options.deadline.call(what, work) : work;
  }

  /** A page whose renderer died answers nothing again: the calls waiting on it fail now, not at the deadline. */
  private watchCrash(page: Page): void {
    page.on("crash", () => this.options.deadline?.fail(`the page's renderer crashed (${page.url()})`));
  }

  get page(): Page {
    return this.active;
  }

  /** Shows `page` to the agent from now on: its own navigation watch, CDP session and capture. */
  private show(page: Page): void {
    if (page === this.active) return;
    this.cdp.drop();
    this.active = page;
    this.navigation = new NavigationWatch(page);
    this.cdp = new PageCdpSession(page);
    this.capture = new ViewportCapture(page, this.options.task.viewport.deviceScaleFactor, this.cdp);
  }

  /**
   * A new tab (target=_blank, window.open) is what a browser shows next, so it becomes the page the
   * agent sees and acts on; when it closes, the tab that opened it is shown again.
   */
  private watchTabs(): void {
    this.context.on("page", (page) => {
      const openerUrl = this.active.url();
      this.dialogs.attach(page);
      this.watchCrash(page);
      this.trackRequests(page);
      const tab: TabRecord = { url: page.url(), openerUrl, openedAt: new Date().toISOString() };
      this.tabs.push(tab);
      const previous = this.active;
      this.show(page);
      page.once("close", () => {
        if (this.active === page && !previous.isClosed()) this.show(previous);
      });
      void page
        .waitForLoadState("domcontentloaded", { timeout: 10_000 })
        .catch(() => undefined)
        .then(() => {
          tab.url = page.url();
          this.options.onTab?.(tab);
        });
    });
  }

  /**
   * Whether observations wait for the page's layout report from now on (`layoutFlush`): a task whose
   * instruction comes from the page gets its agent session once the page has given it, and only then is
   * it known whether that agent reads the report.
   */
  setLayoutFlush(on: boolean): void {
    this.options.layoutFlush = on;
  }

  /** Types into whatever has focus: the key events of `page.keyboard.type`, without its wait per key (fast-typing.ts). */
  async type(text: string): Promise<void> {
    await typeText(this.page, this.cdp, text);
  }

  /** Prepares the target for the trial (session or reset), the context and the page, and opens the start page. */
  static async open(options: TrialEnvironmentOptions): Promise<TrialEnvironment> {
    const { browser, task, trialId, workspaceDir, target } = options;
    await mkdir(workspaceDir, { recursive: true });
    const start = startUrl(task, target, { trialId, workspaceDir });
    const allowed = originsForTask(task, target, options.fixtureSiteUrl);
    if (!allowed.has(new URL(start).origin)) {
      throw new Error(
        `the start page ${start} is not on an allowed origin of the task (${[...allowed].join(", ") || "none"})`,
      );
    }
    const seed = await target.prepareTrial({ trialId, workspaceDir, task, repeat: options.repeat ?? 1 });
    const context = await newSeededContext(browser, task, seed);
    // Until the environment is handed over, nobody else can close the context: close it here
    // when the start page (or anything before it) fails, or it stays open in the shared browser.
    try {
      // Once per document, before the page's own scripts: the in-page geometry (marks, covered controls)
      // and the mark of a document the agent's input is leaving (the observation then waits for the next).
      // And the settle wait each observation makes before its capture (page-settle.ts).
      await context.addInitScript({ content: pageGeometryScript() + navigationWatchScript() + pageSettleScript() });
      // The target's own, after umpire's and still before the page's scripts (an episode capture, a seed).
      for (const content of seed.initScripts ?? []) await context.addInitScript({ content });
      // Before the first page, so the trace shows the start page loading.
      const trace = options.trace ? new TrialTrace(options.trace) : undefined;
      await trace?.start(context);
      const page = await context.newPage();
      const env = new TrialEnvironment(options, context, page, start, seed);
      env.resetMs = seed.resetMs;
      env.facts = seed.facts;
      env.trace = trace;
      await env.guard();
      env.watchTabs();
      page.setDefaultTimeout(options.navigationTimeoutMs ?? 15_000);
      // The start page gets longer than a later navigation: on a starved machine a real app's first load
      // (TiddlyWiki under the gold bench's load) passed 15 s, an error no agent caused. Still bounded by
      // the opening's own deadline.
      const startTimeout = Math.min(options.deadline?.remainingMs() ?? START_PAGE_TIMEOUT_MS, START_PAGE_TIMEOUT_MS);
      await page.goto(start, { waitUntil: "load", timeout: options.navigationTimeoutMs ?? startTimeout });
      if (task.instructionFrom) env.instruction = await readInstruction(page, task.instructionFrom);
      return env;
    } catch (error) {
      await context.close().catch(() => undefined);
      throw error;
    }
  }

  /** Every request outside the allowed origins is aborted before it leaves the browser. */
  private async guard(): Promise<void> {
    await this.context.route("**/*", async (route) => {
      const request = route.request();
      const url = request.url();
      if (this.isAllowedUrl(url)) return route.continue();
      this.blockedRequests.push(url);
      let frameUrl = "";
      try {
        frameUrl = request.frame().url();
      } catch {
        // Service-worker requests have no frame; the URL alone is the evidence.
      }
      this.options.onBlockedRequest?.({
        url,
        method: request.method(),
        resourceType: request.resourceType(),
        navigation: request.isNavigationRequest(),
        frameUrl,
      });
      return route.abort("blockedbyclient");
    });
    // A page's WebSockets never reach `route`: guarded and logged here alike, so a socket to a port
    // the task does not name (another trial's endpoints, any local service) is refused, not opened.
    // Playwright patches the page's WebSocket for this; the trial browser of a command agent also
    // has a proxy below it (trial-browser.ts) that a script in another world or a worker cannot pass.
    await this.context.routeWebSocket(
      (url) => !this.isAllowedUrl(webSocketAsHttp(url.href)),
      (socket) => {
        const url = socket.url();
        this.blockedRequests.push(url);
        this.options.onBlockedRequest?.({
          url,
          method: "GET",
          resourceType: "websocket",
          navigation: false,
          frameUrl: "",
        });
        socket.close({ code: 1008, reason: "umpire: not an origin of the task" });
      },
    );
    this.trackRequests(this.page);
  }

  private trackRequests(page: Page): void {
    page.on("request", (request) => {
      // A new top document is awaited by the observation (navigation-watch.ts), with its own limit and
      // record; counted here too, a slow page would read as an input the application left unanswered.
      if (request.isNavigationRequest() && isTopFrameOf(page, request)) return;
      this.pending.add(request);
    });
    const done = (request: Request) => this.pending.delete(request);
    page.on("requestfinished", done);
    page.on("requestfailed", done);
  }

  private get inflight(): number {
    return this.pending.size;
  }

  /**
   * Whether the agent may go to `url`: http(s) on one of the task's origins, nothing else.
   * `data:`, `blob:` and `about:` pages are refused like any foreign origin: a model could
   * otherwise open `data:text/html,<h1 data-mark=match-title>BB-042</h1>` and fake page checks.
   * (Subresources such as `data:` images never reach the route guard, so pages still load them.)
   */
  isAllowedUrl(url: string): boolean {
    return isOnOrigins(url, this.origins);
  }

  /** Requests still in flight on the agent's page (a pending Save, a lazy load). */
  get pendingRequests(): number {
    return this.inflight;
  }

  /**
   * Waits until the page has no request in flight, up to `timeoutMs`.
   * Returns false when it was still busy: the caller must not assume the effect did or did not happen.
   */
  async settle(timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    const until = Date.now() + timeoutMs;
    const ended = this.starvation.begin("settle", timeoutMs);
    this.episodeRead = undefined;
    // The input's handlers may have started a request the browser has not reported to us yet (the
    // report crosses the CDP connection after the input's own answer): one frame of the page first,
    // or a busy machine reads "nothing in flight" and the picture shows the page before the Save.
    if (!this.dialogs.open) await this.nextFrame();
    const waited = this.inflight > 0;
    while (this.inflight > 0 && Date.now() < until && !signal?.aborted && !this.dialogs.open) {
      await new Promise((r) => setTimeout(r, 25));
    }
    ended(this.inflight > 0 && !signal?.aborted);
    // A response the page was waiting for is handled by its script a task or two after it finished
    // (`await res.json()`, then the DOM): let one frame pass, so the picture and the marks show that.
    // Settled is decided before that frame: a request the frame itself starts (a layout report) is not the input's.
    const settled = this.inflight === 0;
    // The episode read with the first frame is older than the wait: only a frame after it may stand for the page now.
    if (waited) this.episodeRead = undefined;
    if (waited && settled && !this.dialogs.open) await this.nextFrame();
    return settled;
  }

  /**
   * One rendered frame of the page shown (a document that goes away or a dialog that opens ends it),
   * noting whether the layout moved across it: the next observation then waits for it to stand still.
   */
  private async nextFrame(): Promise<void> {
    const frame = this.page.evaluate(async (reader) => {
      const settle = (window as unknown as SettleWindow).__umpireSettle;
      const moved = settle
        ? await settle.frameMoved()
        : await new Promise<boolean>((resolve) => requestAnimationFrame(() => setTimeout(() => resolve(false), 0)));
      // The episode as this frame left it (the loop's "has the episode ended?" after the input): no read of its own.
      // (The same lines as the post-capture read's: a function serialised into the page can call no helper of ours.)
      const readEpisode = reader ? (window as unknown as Record<string, unknown>)[reader] : undefined;
      const record = typeof readEpisode === "function" ? (readEpisode() as EpisodeRead) : null;
      const episode = record
        ? { done: record.done === true, rawReward: record.rawReward, reason: record.reason }
        : null;
      return { moved, episode: reader ? episode : undefined };
    }, this.options.episodeReader);
    const late = new Promise<undefined>((r) => setTimeout(() => r(undefined), 250));
    const read = await this.dialogs.race(Promise.race([frame, late])).catch(() => undefined);
    const answered = read !== undefined && read !== DIALOG_OPENED;
    this.moving = answered && read.moved === true;
    this.episodeRead = answered && read.episode !== undefined ? { record: read.episode } : undefined;
  }

  /**
   * The episode's record as the page read that ended the last settle or observation found it, once: undefined
   * when nothing read it since the last input (the loop then reads the page itself), or without `episodeReader`.
   */
  takeEpisodeRead(): { record: EpisodeRead | null } | undefined {
    const read = this.episodeRead;
    this.episodeRead = undefined;
    return read;
  }

  /** An input is about to change the page: an episode read before it says nothing about after it. */
  forgetEpisodeRead(): void {
    this.episodeRead = undefined;
  }

  /**
   * Takes the observation: the page the last input led to (navigation-watch.ts), its layout report
   * flushed (when a mark source needs it), exact screenshot bytes, and the text the task asks for.
   */
  async observe(): Promise<Observation> {
    const started = performance.now();
    const capturedAt = new Date().toISOString();
    this.episodeRead = undefined;
    if (!this.dialogs.open) {
      // A dialog can open while the page is read or captured; the page then answers nothing until it closes.
      const observed = await this.dialogs.race(this.observePage(started, capturedAt));
      if (observed !== DIALOG_OPENED) {
        this.dialogLayout = undefined;
        this.lastPng = observed.png;
        return observed;
      }
    }
    return this.observeDialog(started, capturedAt);
  }

  /**
   * The observation while a native dialog is open: the page's last painted frame with the dialog
   * drawn over it (dialog-picture.ts), its buttons published as the marks `dialog.ok`,
   * `dialog.cancel` and `dialog.input` for the reference model.
   */
  private async observeDialog(started: number, capturedAt: string): Promise<Observation> {
    const open = this.dialogs.open!;
    const vp = this.options.task.viewport;
    const size = {
      width: Math.round(vp.width * vp.deviceScaleFactor),
      height: Math.round(vp.height * vp.deviceScaleFactor),
    };
    const painted = this.cdp.get().then((session) => lastPaintedFrame(session, size));
    const backdrop = (await this.call("the page's last painted frame (Page.startScreencast)", painted)) ?? this.lastPng;
    const { png, layout } = await this.call(
      "drawing the dialog (the scratch page)",
      this.painter.paint(backdrop, open, this.page.url()),
    );
    this.dialogLayout = layout;
    this.publishDialogMarks(layout);
    const observation = pictureOf(png, capturedAt, { volatile: [], selectorMasks: [] });
    if (this.options.task.observation !== "screenshot") {
      observation.url = this.page.url();
      observation.title = "";
    }
    if (this.options.task.observation === "screenshot+text") observation.text = `${open.record.message}`;
    observation.captureMs = performance.now() - started;
    return observation;
  }

  /** The drawn dialog's buttons as marks on the layout board (the page behind takes no input). */
  private publishDialogMarks(layout: DialogLayout): void {
    const vp = this.options.task.viewport;
    const mark = (name: string, box: { x: number; y: number; width: number; height: number }): ResolvedMark => ({
      name,
      ...box,
      visible: true,
      covered: false,
      source: "selector",
    });
    const marks = [
      mark("dialog.ok", layout.ok),
      ...(layout.cancel ? [mark("dialog.cancel", layout.cancel)] : []),
      ...(layout.input ? [mark("dialog.input", layout.input)] : []),
    ];
    let path = "";
    try {
      path = new URL(this.page.url()).pathname;
    } catch {
      // an about: page has no path
    }
    const viewport = { width: vp.width, height: vp.height };
    const board: ResolvedLayout = {
      url: this.page.url(),
      path,
      title: "",
      viewport,
      scroll: { x: 0, y: 0 },
      devicePixelRatio: vp.deviceScaleFactor,
      marks,
      seq: Date.now(),
    };
    this.options.board?.publish(this.options.trialId, board);
  }

  /** The observation of the page itself (no dialog open). */
  private async observePage(started: number, capturedAt: string): Promise<Observation> {
    const flush = this.options.layoutFlush !== false;
    // The start page was opened with `load`: what it fetches after that (its list) is awaited here, as an input's is.
    const requests = this.observed ? undefined : await this.startPageRequests();
    this.observed = true;
    const mark = this.navigation.mark();
    let state = await this.readPage(flush, requests !== undefined || this.moving);
    if (state.leaving) {
      // The input asked for another document: show that one, not the one it left.
      this.documentWaits.waited += 1;
      const ended = this.starvation.begin("navigation", ARRIVAL_WAIT_MS);
      const arrived = await this.navigation.arrival(mark, ARRIVAL_WAIT_MS);
      ended(!arrived);
      if (!arrived) this.documentWaits.timedOut += 1;
      state = await this.readPage(flush, true);
    }
    await this.call("resolving the marks on the page (page.evaluate)", this.publishMarks());
    if (this.dialogLayout && !this.options.target.markSpec(this.options.task))
      this.options.board?.forget(this.options.trialId);
    const shotStarted = performance.now();
    const first = await this.call("capturing the screenshot (Page.captureScreenshot)", this.screenshot());
    this.starvation.capture(performance.now() - shotStarted);
    const held = await this.holdPicture(flush, state, first);
    const { png, retaken } = held;
    state = held.state;
    const mode = this.options.task.observation;
    const observation = pictureOf(png, capturedAt, state);
    if (state.settle || requests || retaken)
      observation.settle = {
        ...(state.settle ?? STILL),
        ...(requests ? { requests } : {}),
        ...(retaken ? { retaken } : {}),
      };
    if (mode !== "screenshot") {
      observation.url = this.page.url();
      observation.title = await this.call(
        "reading the page's title",
        this.page.title().catch(() => ""),
      );
    }
    if (mode === "screenshot+text") {
      const text = await this.call(
        "reading the page's text (page.evaluate)",
        this.page.evaluate(() => document.body?.innerText ?? "").catch(() => ""),
      );
      observation.text =
        text.length > PAGE_TEXT_LIMIT
          ? `${text.slice(0, PAGE_TEXT_LIMIT)}\n[page text cut at ${PAGE_TEXT_LIMIT} characters]`
          : text;
    }
    observation.captureMs = performance.now() - started;
    return observation;
  }

  /**
   * One page evaluation before the capture: the layout report flushed (the fixture page reports
   * its layout asynchronously; wait for the latest report, if the page has the hook and `flush`),
   * whether the document is being left for another, the moving regions it declares and the boxes
   * of the task's selector masks (read with the picture, not a model turn later). An evaluation
   * whose document went away under it (Playwright: "Execution context was destroyed, most likely
   * because of a navigation") counts as leaving.
   */
  private async readPage(flush: boolean, stable: boolean): Promise<PageRead> {
    const read = this.page
      .evaluate(
        async ({ flush, leavingGlobal, selectors, capMs, stable }) => {
          const w = window as unknown as Record<string, unknown> &
            SettleWindow & {
              __umpireLayoutFlush?: () => Promise<unknown>;
              navigation?: { transition: unknown };
            };
          // An intercepted (same-document) navigation still running has a transition: nothing is being left.
          const leaving = w[leavingGlobal] === true && !w.navigation?.transition;
          // Animations finished (and the layout still, when it was seen moving) before anything is measured.
          const settle = !leaving && w.__umpireSettle ? await w.__umpireSettle.wait(capMs, stable) : undefined;
          if (flush && w.__umpireLayoutFlush)
            await Promise.race([w.__umpireLayoutFlush(), new Promise((r) => setTimeout(r, 2_000))]);
          const box = (el: Element) => {
            const r = el.getBoundingClientRect();
            return { x: r.x, y: r.y, width: r.width, height: r.height };
          };
          const volatile = Array.from(document.querySelectorAll("[data-volatile]")).map(box);
          const selectorMasks = selectors.flatMap((selector) => {
            try {
              return Array.from(document.querySelectorAll(selector)).map(box);
            } catch {
              return []; // a selector this page's engine refuses masks nothing here
            }
          });
          return { leaving, volatile, selectorMasks, settle };
        },
        { flush, leavingGlobal: LEAVING_GLOBAL, selectors: this.maskSelectors, capMs: ANIMATION_WAIT_MS, stable },
      )
      .catch((error: unknown) => ({
        leaving: !this.page.isClosed() && SWAPPED_DOCUMENT.test(String(error)),
        volatile: [],
        selectorMasks: [],
      }));
    return this.call("reading the page before the capture (page.evaluate)", read);
  }

  /**
   * The exact PNG of the viewport. Chromium refuses a capture while a navigation swaps the
   * document ("Unable to capture screenshot"); that is a moment, not a broken environment, so wait
   * for the new page and try again a few times before giving up.
   */
  private async screenshot(): Promise<Buffer> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.capture.capture();
      } catch (error) {
        if (attempt >= 4 || this.page.isClosed()) throw error;
        await this.page.waitForLoadState("load", { timeout: 5_000 }).catch(() => undefined);
        await new Promise((r) => setTimeout(r, 100 * attempt));
      }
    }
  }

  /** Waits for the page's latest layout report (if the page has the hook); the observation's own first step. */
  async flushLayout(): Promise<void> {
    await this.readPage(true, false);
  }

  /** The first observation's wait for the start page's requests in flight (bounded, like an input's settle). */
  private async startPageRequests(): Promise<{ waitedMs: number; settled: boolean }> {
    const started = performance.now();
    const settled = await this.settle(FIRST_SETTLE_MS);
    return { waitedMs: Math.round(performance.now() - started), settled };
  }

  /**
   * The picture is of a page at rest, and the marks the model grounds on are of the same moment. After
   * the capture the page is asked whether it moved since its settle wait (an animation that a late
   * response started, a control at another place) and, with declared marks, the marks are read again.
   * When either moved, the page is let settle again (animations finished, one still frame) and the
   * marks and the picture are taken again, at most PAIR_ATTEMPTS times; a page that never stands still
   * within the wait keeps the picture it has. Returns the picture, the page read that goes with it and
   * how many times it was retaken.
   */
  private async holdPicture(
    flush: boolean,
    state: PageRead,
    png: Buffer,
  ): Promise<{ png: Buffer; state: PageRead; retaken: number }> {
    const spec = this.options.target.markSpec(this.options.task);
    for (let retaken = 0; retaken < PAIR_ATTEMPTS; retaken++) {
      const { moved, episode } = await this.call(
        "asking the page whether it moved during the capture",
        this.movedSinceWait(),
      );
      let marksMoved = false;
      if (flush && spec && this.lastLayout) {
        const now = await this.call(
          "reading the marks after the capture (page.evaluate)",
          resolveMarks(this.page, spec),
        );
        marksMoved = !sameMarks(this.lastLayout, now);
      }
      if (!moved && !marksMoved) {
        // The last page read of the observation: what it found of the episode is the loop's before the request.
        this.episodeRead = episode !== undefined ? { record: episode } : undefined;
        return { png, state, retaken };
      }
      state = await this.readPage(flush, true);
      await this.call("resolving the marks on the page (page.evaluate)", this.publishMarks());
      png = await this.call("capturing the screenshot again (Page.captureScreenshot)", this.screenshot());
      if (state.settle?.layout === "moving") return { png, state, retaken: retaken + 1 };
    }
    return { png, state, retaken: PAIR_ATTEMPTS };
  }

  /**
   * Whether the page moved since the settle wait of its last read (false without the settle script, or when a
   * dialog opened); with `episodeReader`, the episode's record read in the same evaluation (undefined without).
   */
  private async movedSinceWait(): Promise<{ moved: boolean; episode?: EpisodeRead | null }> {
    const asked = this.page.evaluate(
      ({ capMs, reader }) => {
        const settle = (window as unknown as SettleWindow).__umpireSettle;
        const moved = settle ? settle.movedSinceWait(capMs) : false;
        // The episode as the picture shows it (the loop's "has the episode ended?" before the request).
        const readEpisode = reader ? (window as unknown as Record<string, unknown>)[reader] : undefined;
        const record = typeof readEpisode === "function" ? (readEpisode() as EpisodeRead) : null;
        const episode = record
          ? { done: record.done === true, rawReward: record.rawReward, reason: record.reason }
          : null;
        return { moved, episode: reader ? episode : undefined };
      },
      { capMs: ANIMATION_WAIT_MS, reader: this.options.episodeReader },
    );
    const read = await this.dialogs.race(asked).catch(() => undefined);
    if (read === undefined || read === DIALOG_OPENED) return { moved: false };
    return { moved: read.moved === true, ...(read.episode !== undefined ? { episode: read.episode } : {}) };
  }

  /** Resolves the target's marks on the page as the screenshot will show it, for the reference model. */
  async publishMarks(): Promise<void> {
    const spec = this.options.target.markSpec(this.options.task);
    if (!spec) return;
    this.lastLayout = await resolveMarks(this.page, spec);
    this.options.board?.publish(this.options.trialId, this.lastLayout);
  }

  /**
   * A new context of the trial's browser, seeded as the trial's was (the target's cookies, headers
   * and storage seeds for this trial) and guarded to the task's origins, without anything the
   * trial's pages wrote since: where a command agent's page checks judge. The caller closes it.
   */
  untouchedContext(): Promise<BrowserContext> {
    return untouchedContext(this.options.browser, this.options.task, this.seed, (url) => this.isAllowedUrl(url));
  }

  async close(): Promise<void> {
    // A dialog still open is closed with the context; say so in its record.
    if (this.dialogs.open) await this.dialogs.answer(false, "umpire", "the trial ended with it open");
    await this.painter.close();
    await this.trace?.stop(this.context);
    await this.context.close().catch(() => undefined);
  }
}

/** An observation of these PNG bytes (their hash and size), with the page's moving regions and masks; its capture time is added last. */
function pictureOf(
  png: Buffer,
  capturedAt: string,
  boxes: Pick<Observation, "volatile" | "selectorMasks">,
): Observation {
  const { width, height } = pngSize(png);
  const sha256 = createHash("sha256").update(png).digest("hex");
  return {
    png,
    sha256,
    width,
    height,
    capturedAt,
    captureMs: 0,
    volatile: boxes.volatile,
    selectorMasks: boxes.selectorMasks,
  };
}

/** Width and height from a PNG's IHDR chunk. */
export function pngSize(png: Buffer): { width: number; height: number } {
  if (png.length < 24 || png.readUInt32BE(12) !== 0x49484452) throw new Error("not a PNG image");
  return { width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}

/** Whether a request is the page's top frame's (a service worker's request has no frame). */
function isTopFrameOf(page: Page, request: Request): boolean {
  try {
    return request.frame() === page.mainFrame();
  } catch {
    return false;
  }
}

/** A WebSocket URL judged as the page origin it talks to: ws: as http:, wss: as https:. */
export function webSocketAsHttp(url: string): string {
  return url.replace(/^ws(s?):/i, "http$1:");
}
