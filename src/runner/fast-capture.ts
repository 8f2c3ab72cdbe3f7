/**
 * The viewport PNG through Chromium's own `Page.captureScreenshot` with `optimizeForSpeed`:
 * the same pixels as Playwright's `page.screenshot` (a test decodes both and compares them),
 * encoded with a faster zlib setting (a larger file, ~35 vs ~52 ms here). Playwright's capture
 * also waits for fonts and an animation frame around the CDP call; the runner has already
 * flushed the layout report before it captures, so that round trip buys nothing.
 *
 * Falls back to `page.screenshot` when CDP is not available (a non-Chromium or a remote
 * Playwright server browser refuses `newCDPSession`) or the call fails.
 */
import type { CDPSession, Page } from "playwright";

export class ViewportCapture {
  private session: Promise<CDPSession | null> | null = null;

  constructor(
    private readonly page: Page,
    /** The context's device scale factor: the clip's scale, so the PNG has device pixels. */
    private readonly deviceScaleFactor = 1,
  ) {}

  async capture(): Promise<Buffer> {
    const session = await this.cdp();
    if (session) {
      try {
        // A session of our own does not carry Playwright's device-metrics override, so Chromium
        // captures at CSS size unless the clip (in document coordinates) asks for the scale.
        const metrics = (await session.send("Page.getLayoutMetrics")) as { cssVisualViewport: { pageX: number; pageY: number; clientWidth: number; clientHeight: number } };
        const v = metrics.cssVisualViewport;
        const size = this.page.viewportSize();
        const clip = { x: v.pageX, y: v.pageY, width: size?.width ?? v.clientWidth, height: size?.height ?? v.clientHeight, scale: this.deviceScaleFactor };
        const { data } = (await session.send("Page.captureScreenshot", { format: "png", optimizeForSpeed: true, captureBeyondViewport: false, clip })) as { data: string };
        return Buffer.from(data, "base64");
      } catch {
        // e.g. the page swapped documents mid-capture: Playwright's path below knows how to wait.
      }
    }
    return this.page.screenshot({ type: "png", animations: "allow", caret: "initial" });
  }

  private cdp(): Promise<CDPSession | null> {
    this.session ??= this.page
      .context()
      .newCDPSession(this.page)
      .catch(() => null);
    return this.session;
  }
}
