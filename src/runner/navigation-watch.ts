/**
 * Whether the agent's last input left the page: a click on a link or a submitted form asks
 * Chromium for another document, and the request for it is reported a few milliseconds after
 * the input itself has returned. An observation taken in between shows the page the input left,
 * and a CDP capture sent just before the new document commits was seen never to answer.
 *
 * The page says so itself, with no timing guess: an init script listens to the Navigation API's
 * `navigate` event, which Chromium fires synchronously while it handles the input (before the
 * input is acknowledged), and marks a document that is being left for another. The observation
 * reads that mark in the page evaluation it makes anyway and, when it is set, waits for the
 * next document's load event (or the navigation's end: refused by the origin guard, a 204, a
 * crash), at most ARRIVAL_WAIT_MS, as long as the executor's settle wait.
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
  window[${flag}] = false;
  window.navigation.addEventListener("navigate", (event) => {
    if (!event.destination.sameDocument && !event.downloadRequest) window[${flag}] = true;
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

  constructor(private readonly page: Page) {
    const ended = () => {
      this.ends += 1;
      for (const wake of this.waiters) wake();
    };
    const topNavigation = (request: Request) => {
      try {
        return request.isNavigationRequest() && request.frame() === page.mainFrame();
      } catch {
        return false; // a service worker's request has no frame
      }
    };
    page.on("load", ended);
    page.on("crash", ended);
    page.on("close", ended);
    page.on("requestfailed", (request) => topNavigation(request) && ended());
    // No document follows a 204/205 answer or a download.
    page.on("requestfinished", (request) => {
      if (!topNavigation(request)) return;
      void request.response().then((response) => {
        const status = response?.status() ?? 0;
        if (status === 204 || status === 205 || /attachment/i.test(response?.headers()["content-disposition"] ?? "")) ended();
      });
    });
  }

  /** A point to wait from: take it before reading the page's mark. */
  mark(): number {
    return this.ends;
  }

  /** Waits until the top document loaded (or its navigation ended) after `mark`, at most `timeoutMs`. */
  async arrival(mark: number, timeoutMs = ARRIVAL_WAIT_MS): Promise<boolean> {
    if (this.ends > mark) return true;
    return new Promise<boolean>((resolve) => {
      const done = (arrived: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(arrived);
      };
      const wake = () => this.ends > mark && done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.waiters.add(wake);
    });
  }
}
