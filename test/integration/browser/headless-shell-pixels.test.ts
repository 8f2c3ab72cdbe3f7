/**
 * umpire prefers the headless shell (less CPU per trial) over the full browser: that is only right if
 * the model sees the same picture. The fixture's pages are captured in both, at device scale 1 and 2,
 * with their moving regions (clock, caret, spinner) hidden, and compared pixel by pixel.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pixelmatch from "pixelmatch";
import type { Browser } from "playwright";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFixtureSite, type FixtureSite } from "../../../fixtures-site/fixture-site.js";
import { launchChromium, locateFullChromium, locateHeadlessShell } from "../../../src/browser/chromium.js";
import type { Scenario } from "../../../src/task/schema.js";

/**
 * The share of the picture's pixels allowed to differ: 1 in 10,000 (102 pixels at 1280x800). Zero
 * held for many runs, then a fresh-clone CI run on a busy machine saw 5 of 1,024,000 pixels of
 * /match/BB-042 differ once (text edges rasterised on another tile pass); a real rendering difference
 * (a font, a colour, a layout shift) changes thousands.
 */
const TOLERANCE = 1e-4;

const PAGES: { path: string; scenario: Scenario }[] = [
  { path: "/", scenario: "plain" },
  { path: "/match/BB-042", scenario: "plain" },
  { path: "/notes?match=BB-042", scenario: "plain" },
  { path: "/", scenario: "cookie-reject" },
  { path: "/", scenario: "canvas" },
];

let site: FixtureSite;
let workspace: string;
const browsers: Record<"shell" | "full", Browser | undefined> = { shell: undefined, full: undefined };

beforeAll(async () => {
  const shell = locateHeadlessShell();
  const full = locateFullChromium();
  if (!shell || !full) {
    throw new Error(
      `this test needs both kinds of Chromium (headless shell: ${shell ?? "missing"}, full: ${full ?? "missing"}); npm run setup installs both`,
    );
  }
  site = await startFixtureSite();
  workspace = await mkdtemp(join(tmpdir(), "umpire-shell-pixels-"));
  [browsers.shell, browsers.full] = await Promise.all([
    launchChromium({}, { ...process.env, UMPIRE_CHROMIUM: shell }),
    launchChromium({}, { ...process.env, UMPIRE_CHROMIUM: full }),
  ]);
});
afterAll(async () => {
  await Promise.all([browsers.shell?.close(), browsers.full?.close()]);
  await site?.close();
  if (workspace) await rm(workspace, { recursive: true, force: true });
});

async function capture(browser: Browser, path: string, scenario: Scenario, deviceScaleFactor: number): Promise<PNG> {
  const session = await site.client.createSession({ scenario, workspace });
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor });
  try {
    await context.addCookies([{ name: session.cookie.name, value: session.cookie.value, url: site.siteUrl }]);
    const page = await context.newPage();
    await page.goto(site.siteUrl + path, { waitUntil: "load" });
    await page.addStyleTag({ content: "[data-volatile]{visibility:hidden !important}" });
    await page.evaluate(() => document.fonts.ready);
    return PNG.sync.read(await page.screenshot({ type: "png", animations: "disabled", caret: "hide" }));
  } finally {
    await context.close();
    await site.client.deleteSession(session.id);
  }
}

function distinctColours(png: PNG): number {
  const seen = new Set<number>();
  for (let i = 0; i < png.data.length && seen.size <= 1000; i += 4) seen.add(png.data.readUInt32BE(i));
  return seen.size;
}

describe("the headless shell renders what the full browser renders", () => {
  for (const deviceScaleFactor of [1, 2]) {
    for (const { path, scenario } of PAGES) {
      it(`${path} (${scenario}) at device scale ${deviceScaleFactor}`, async () => {
        const [a, b] = await Promise.all([
          capture(browsers.shell!, path, scenario, deviceScaleFactor),
          capture(browsers.full!, path, scenario, deviceScaleFactor),
        ]);
        expect([a.width, a.height]).toEqual([b.width, b.height]);
        // A blank or error page in both would compare equal and prove nothing.
        expect(distinctColours(a)).toBeGreaterThan(20);
        const differing = pixelmatch(a.data, b.data, undefined, a.width, a.height, { threshold: 0 });
        expect(differing / (a.width * a.height)).toBeLessThanOrEqual(TOLERANCE);
      });
    }
  }
});
