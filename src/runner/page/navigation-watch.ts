/**
 * Whether the agent's last input left the page: a click on a link or a submitted form asks
 * Chromium for another document, and the request for it is reported a few milliseconds after
 * the input itself has returned. An observation taken in between shows the page the input left,
 * and a CDP capture sent just before the new document commits was seen never to answer.
 *
 * The page says so itself, with no timing guess: an init script listens to the Navigation API's
 * `navigate` event, which Chromium fires synchronously while it handles the input (before the
 * input is acknowledged), and to `submit` (a form's navigation is planned a task later, so its
 * navigate event can come after the observation's read; whether a listener cancelled the submission
 * is read with the mark, once every listener has run), and marks a document that is being left. The observation
 * reads that mark in the page evaluation it makes anyway and, when it is set, waits for the
 * next document's load event (or the navigation's end: refused by the origin guard, a 204, a
 * crash), at most ARRIVAL_WAIT_MS, as long as the executor's settle wait. A navigation that ends
 * with the document still there (a 204, a refusal) clears the mark, so no later observation waits.
 */
import type { Page, Request } from "playwright";

/** The window property the init script sets on a document that is being left. */
export const LEAVING_GLOBAL = "__umpireLeaving";

/** How long an observation waits for the document an input asked for (the executor's settle cap). */
export const ARRIVAL_WAIT_MS = 2_500;

/**
 * The init script: runs in every document (every frame; only the top one is read). A navigation
 * that the page's own script intercepts (a single-page app's router on the Navigation API) or
 * cancels stays in the document: it ends with navigatesuccess or navigateerror, and while it runs
 * `navigation.transition` is set; a download is not a new document either.
 */
export function navigationWatchScript(): string {
  const flag = JSON.stringify(LEAVING_GLOBAL);
  return `(() => {
  if (!window.navigation || Object.prototype.hasOwnProperty.call(window, ${flag})) return;
  // The mark: a navigation seen leaving, or a submission not cancelled. A submission's fate is read
  // when the mark is read, not while its event runs: a listener that runs after this one (one the
  // page added to the window) may still cancel it, and then no document is coming.
  let leaving = false;
  let submission = null;
  Object.defineProperty(window, ${flag}, {
    configurable: true,
    get: () => leaving || (submission !== null && !submission.defaultPrevented),
    set: (value) => { leaving = value === true; submission = null; },
  });
  window.navigation.addEventListener("navigate", (event) => {
    if (!event.destination.sameDocument && !event.downloadRequest) leaving = true;
  });
  // A form's navigation is only planned while its submit event runs (the navigate event comes a
  // task later): a submission into this window marks the document unless some listener cancels it.
  window.addEventListener("submit", (event) => {
    const form = event.target;
    const submitter = event.submitter;
    const target = (submitter && submitter.getAttribute("formtarget")) || (form && form.getAttribute && form.getAttribute("target")) || "";
    const method = ((submitter && submitter.getAttribute("formmethod")) || (form && form.method) || "").toLowerCase();
    if ((target === "" || target === "_self") && method !== "dialog") submission = event;
  });
  const stays = () => { window[${flag}] = false; };
  window.navigation.addEventListener("navigatesuccess", stays);
  window.navigation.addEventListener("navigateerror", stays);
})();
`;
}

/** Counts the top document's arrivals (load) and navigations that ended without one. */
export class NavigationWatch {
  private ends = 0;
  private waiters = new Set<() => void>();
  /** Top navigations answered with no document to follow (204/205, a download), until they finish. */
  private readonly noDocument = new WeakSet<Request>();

  constructor(private readonly page: Page) {
    const topNavigation = (request: Request) => {
      try {
        return request.isNavigationRequest() && request.frame() === page.mainFrame();
      } catch {
        return false; // a service worker's request has no frame
      }
    };
    page.on("load", () => this.ended(false));
    page.on("crash", () => this.ended(false));
    page.on("close", () => this.ended(false));
    page.on("response", (response) => {
      const status = response.status();
      if (
        topNavigation(response.request()) &&
        (status === 204 || status === 205 || /attachment/i.test(response.headers()["content-disposition"] ?? ""))
      ) {
        this.noDocument.add(response.request());
      }
    });
    page.on("requestfinished", (request) => this.noDocument.has(request) && this.ended(true));
    // Refused by the origin guard, aborted, or replaced by another navigation.
    page.on("requestfailed", (request) => topNavigation(request) && this.ended(true));
  }

  /**
   * `stayed`: the document the page marked as left is still there. Its mark is cleared at once
   * (queued before any later read of the page, so an observation after this sees it cleared).
   */
  private ended(stayed: boolean): void {
    this.ends += 1;
    if (stayed) this.clearMark();
    for (const wake of this.waiters) wake();
  }

  private clearMark(): void {
    void this.page
      .evaluate((flag) => {
        (window as unknown as Record<string, unknown>)[flag] = false;
      }, LEAVING_GLOBAL)
      .catch(() => undefined);
  }

  /** A point to wait from: take it before reading the page's mark. */
  mark(): number {
    return this.ends;
  }

  /**
   * Waits until the top document loaded (or its navigation ended) after `mark`, at most
   * `timeoutMs`. When nothing came in that time the document is staying (a submission cancelled
   * by a late listener, a navigation still unanswered): its mark is cleared, so at most one
   * observation waits for it.
   */
  async arrival(mark: number, timeoutMs = ARRIVAL_WAIT_MS): Promise<boolean> {
    if (this.ends > mark) return true;
    return new Promise<boolean>((resolve) => {
      const done = (arrived: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(arrived);
      };
      const wake = () => this.ends > mark && done(true);
      const timer = setTimeout(() => {
        this.clearMark();
        done(false);
      }, timeoutMs);
      this.waiters.add(wake);
    });
  }
}
