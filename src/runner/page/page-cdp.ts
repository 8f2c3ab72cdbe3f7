/**
 * One Chromium DevTools session of umpire's own per trial page, shared by the paths that go
 * around Playwright for speed (fast-capture.ts, fast-typing.ts), each with the same pixels or
 * the same input events as Playwright's own path.
 *
 * Null when CDP is not available (a non-Chromium browser, or a remote Playwright server that
 * refuses `newCDPSession`) and for good once dropped: callers then take Playwright's path.
 */
import type { CDPSession, Page } from "playwright";

export class PageCdpSession {
  private session: Promise<CDPSession | null> | null = null;
  private dropped = false;
  /** Sessions opened for this page (at most one). */
  sessionsOpened = 0;

  constructor(private readonly page: Page) {}

  /** The page's session, opened on first use; null when unavailable or dropped. */
  get(): Promise<CDPSession | null> {
    if (this.dropped) return Promise.resolve(null);
    if (!this.session) this.sessionsOpened += 1;
    this.session ??= this.page
      .context()
      .newCDPSession(this.page)
      .catch(() => null);
    return this.session;
  }

  /** Detaches the session; from now on every caller takes Playwright's path for this page. */
  drop(): void {
    if (this.dropped) return;
    this.dropped = true;
    void this.session?.then((s) => s?.detach()).catch(() => undefined);
  }

  get isDropped(): boolean {
    return this.dropped;
  }
}
