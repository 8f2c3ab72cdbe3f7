/**
 * Chromium's fast screenshot path (Page.captureScreenshot with optimizeForSpeed) must give the
 * model exactly the pixels Playwright's page.screenshot gives: both are decoded and compared,
 * at device scale factor 1 and 2, in real Chromium.
 */
import { PNG } from "pngjs";
import type { Browser } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../../src/browser/chromium.js";
import { ViewportCapture } from "../../../src/runner/page/fast-capture.js";

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

// Text, a gradient, borders, an image-like pattern and a scrolled page: no caret, clock or animation.
const PAGE = `<!doctype html><html><body style="margin:0;font:16px sans-serif;background:linear-gradient(90deg,#fde,#9cf)">
<h1 style="color:#123">Pune Pioneers 168/6 vs Jaipur Kites 169/4</h1>
<div style="display:grid;grid-template-columns:repeat(20,1fr)">${Array.from({ length: 400 }, (_, i) => `<span style="height:14px;background:hsl(${(i * 37) % 360},70%,${30 + (i % 5) * 10}%)"></span>`).join("")}</div>
<p style="border:3px dashed #c30;padding:12px">${"Jaipur Kites won by 6 wickets. ".repeat(40)}</p>
<div style="height:2000px"></div></body></html>`;

describe("fast viewport capture", () => {
  for (const deviceScaleFactor of [1, 2]) {
    it(`gives the same pixels as page.screenshot (deviceScaleFactor ${deviceScaleFactor})`, async () => {
      const context = await browser.newContext({ viewport: { width: 640, height: 400 }, deviceScaleFactor });
      try {
        const page = await context.newPage();
        await page.setContent(PAGE);
        await page.mouse.wheel(0, 120);
        await page.waitForFunction(() => window.scrollY > 0);
        const fast = await new ViewportCapture(page, deviceScaleFactor).capture();
        const reference = await page.screenshot({ type: "png", animations: "allow", caret: "initial" });
        const a = PNG.sync.read(fast);
        const b = PNG.sync.read(reference);
        expect([a.width, a.height]).toEqual([640 * deviceScaleFactor, 400 * deviceScaleFactor]);
        expect([a.width, a.height]).toEqual([b.width, b.height]);
        expect(Buffer.compare(a.data, b.data)).toBe(0);
      } finally {
        await context.close();
      }
    });
  }

  it("falls back to Playwright's capture when the CDP call does not answer in time, and keeps it for the page", async () => {
    const context = await browser.newContext({ viewport: { width: 640, height: 400 } });
    try {
      const page = await context.newPage();
      await page.setContent(PAGE);
      const capture = new ViewportCapture(page, 1);
      const reference = PNG.sync.read(await page.screenshot({ type: "png", animations: "allow", caret: "initial" }));
      // No time at all for the CDP path: the picture must still come, from the fallback.
      capture.cdpTimeoutMs = 0;
      const fallback = PNG.sync.read(await capture.capture());
      expect(capture.cdpTimeouts).toBe(1);
      expect(Buffer.compare(fallback.data, reference.data)).toBe(0);
      // The timed-out session is dropped and no new one is opened: later pictures are Playwright's too.
      capture.cdpTimeoutMs = 5_000;
      const later = PNG.sync.read(await capture.capture());
      expect(capture.cdpDisabled).toBe(true);
      expect(capture.cdpTimeouts).toBe(1);
      expect(capture.sessionsOpened).toBe(1);
      expect(Buffer.compare(later.data, reference.data)).toBe(0);
    } finally {
      await context.close();
    }
  });
});
