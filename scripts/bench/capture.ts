/**
 * The observation's capture, old path against new, on the same fixture page in the same
 * browser, alternating so that load on the machine falls on both alike: Playwright's
 * `page.screenshot` (what the runner used before) and Chromium's `Page.captureScreenshot` with
 * `optimizeForSpeed` through CDP (src/runner/page/fast-capture.ts; same pixels, tested in
 * test/integration/runner/fast-capture.test.ts). Reports medians and the PNG sizes.
 */
import { ViewportCapture } from "../../src/runner/page/fast-capture.js";
import { median, ratio, round } from "./stats.js";
import type { BenchWorld } from "./world.js";

export interface CaptureBench {
  page: string;
  samples: number;
  viewport: { width: number; height: number; deviceScaleFactor: number };
  /** Median ms per capture. */
  pageScreenshotMs: number;
  cdpFastMs: number;
  /** cdpFast / pageScreenshot (lower is better). */
  ratio: number;
  pngKiB: { pageScreenshot: number; cdpFast: number };
}

export const CAPTURE_PAGE = "/match/BB-042";

export async function benchCapture(world: BenchWorld, options: { samples: number }): Promise<CaptureBench> {
  const task = world.task("scorecard-note-bb042");
  const { viewport } = task;
  const fixtures = world.runtime.fixtures;
  const session = await fixtures.client.createSession({ scenario: "plain", workspace: `${world.dir}/capture-bench` });
  const context = await world.browser.newContext({
    viewport: { width: viewport.width, height: viewport.height },
    deviceScaleFactor: viewport.deviceScaleFactor,
    reducedMotion: "reduce",
  });
  try {
    await context.addCookies([
      { name: session.cookie.name, value: session.cookie.value, domain: new URL(fixtures.siteUrl).hostname, path: "/" },
    ]);
    const page = await context.newPage();
    await page.goto(new URL(CAPTURE_PAGE, fixtures.siteUrl).toString(), { waitUntil: "load" });
    const fast = new ViewportCapture(page, viewport.deviceScaleFactor);
    const old = () => page.screenshot({ type: "png", animations: "allow", caret: "initial" });
    // Warm both paths (the CDP session is made on first use).
    await fast.capture();
    await old();
    const times = { old: [] as number[], fast: [] as number[] };
    const bytes = { old: [] as number[], fast: [] as number[] };
    for (let i = 0; i < options.samples; i++) {
      for (const which of i % 2 === 0 ? (["old", "fast"] as const) : (["fast", "old"] as const)) {
        const t0 = performance.now();
        const png = which === "old" ? await old() : await fast.capture();
        times[which].push(performance.now() - t0);
        bytes[which].push(png.length);
      }
    }
    return {
      page: CAPTURE_PAGE,
      samples: options.samples,
      viewport,
      pageScreenshotMs: round(median(times.old), 1),
      cdpFastMs: round(median(times.fast), 1),
      ratio: ratio(median(times.fast), median(times.old)),
      pngKiB: { pageScreenshot: round(median(bytes.old) / 1024), cdpFast: round(median(bytes.fast) / 1024) },
    };
  } finally {
    await context.close();
    await fixtures.client.deleteSession(session.id).catch(() => undefined);
  }
}
