/**
 * The viewport PNG through Chromium's own `Page.captureScreenshot` with `optimizeForSpeed`:
 * the same pixels as Playwright's `page.screenshot` (a test decodes both and compares them),
 * encoded with a faster zlib setting (a larger file, ~35 vs ~52 ms here). Playwright's capture
 * also waits for fonts and an animation frame around the CDP call; the runner has already
 * waited for the page to settle before it captures, so that round trip buys nothing.
 *
 * Falls back to `page.screenshot` when CDP is not available (a non-Chromium or a remote
 * Playwright server browser refuses `newCDPSession`) or the call fails.
 */
import type { CDPSession, Page } from "playwright";
import { PageCdpSession } from "./page-cdp.js";

/**
 * The CDP capture's own time box. `Page.captureScreenshot` has no timeout, and right after a
 * cross-document navigation that nothing waited for (no layout flush: every model but the
 * reference) it was seen never to answer: the trial hung for good, past its own time limit.
 * Past this, the session is dropped and Playwright's capture, which waits for the new
 * document and has a timeout, takes this picture and every later one of the page.
 */
export const CDP_CAPTURE_TIMEOUT_MS = 5_000;

export class ViewportCapture {
  constructor(
    private readonly page: Page,
    /** The context's device scale factor: the clip's scale, so the PNG has device pixels. */
    private readonly deviceScaleFactor = 1,
    /** The page's CDP session, shared with the fast typing. */
    private readonly cdp = new PageCdpSession(page),
  ) {}

  async capture(): Promise<Buffer> {
    const session = await this.cdp.get();
    if (session) {
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), this.cdpTimeoutMs);
      });
      try {
        const shot = this.cdpCapture(session);
        // Detaching below rejects the call still pending: that late rejection is expected, not unhandled.
        shot.catch(() => undefined);
        const png = await Promise.race([shot, timedOut]);
        if (png !== "timeout") return png;
        this.cdpTimeouts += 1;
        // A page whose CDP capture never answered keeps Playwright's paths for the rest of the trial
        // (the session is dropped, typing included): a fresh session was seen to capture different pixels
        // while the abandoned call was still settling (its temporary clip/scale override), and the model's
        // input must stay exact.
        this.cdp.drop();
      } catch {
        // e.g. the page swapped documents mid-capture: Playwright's path below knows how to wait.
      } finally {
        clearTimeout(timer);
      }
    }
    return this.page.screenshot({ type: "png", animations: "allow", caret: "initial" });
  }

  /** For tests: how long the CDP path may take before the fallback (default CDP_CAPTURE_TIMEOUT_MS). */
  cdpTimeoutMs = CDP_CAPTURE_TIMEOUT_MS;
  /** CDP captures that did not answer in time (each fell back to Playwright's capture). */
  cdpTimeouts = 0;
  /** CDP sessions opened for this page (at most one). */
  get sessionsOpened(): number {
    return this.cdp.sessionsOpened;
  }
  /** After a CDP capture timed out (or the session was dropped): Playwright's capture from then on. */
  get cdpDisabled(): boolean {
    return this.cdp.isDropped;
  }

  private async cdpCapture(session: CDPSession): Promise<Buffer> {
    // At scale 1 the viewport as it stands is the picture: no clip, so no layout-metrics round trip.
    const clip = this.deviceScaleFactor === 1 ? undefined : await this.scaledClip(session);
    const { data } = (await session.send("Page.captureScreenshot", {
      format: "png",
      optimizeForSpeed: true,
      captureBeyondViewport: false,
      ...(clip ? { clip } : {}),
    })) as { data: string };
    return Buffer.from(data, "base64");
  }

  /**
   * A session of our own does not carry Playwright's device-metrics override, so Chromium
   * captures at CSS size unless the clip (in document coordinates) asks for the scale.
   */
  private async scaledClip(
    session: CDPSession,
  ): Promise<{ x: number; y: number; width: number; height: number; scale: number }> {
    const metrics = (await session.send("Page.getLayoutMetrics")) as {
      cssVisualViewport: { pageX: number; pageY: number; clientWidth: number; clientHeight: number };
    };
    const v = metrics.cssVisualViewport;
    const size = this.page.viewportSize();
    return {
      x: v.pageX,
      y: v.pageY,
      width: size?.width ?? v.clientWidth,
      height: size?.height ?? v.clientHeight,
      scale: this.deviceScaleFactor,
    };
  }
}
