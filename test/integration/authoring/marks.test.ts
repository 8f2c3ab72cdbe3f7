/**
 * `umpire marks` through the real CLI on a small app served by a real server: every declaration
 * it prints finds exactly one element when Playwright resolves it the way the runner does, the
 * duplicate "Add" buttons are flagged (with a selector that finds each alone), the iframe's button
 * is listed and said to be out of a mark's reach, and the numbered screenshot has the viewport's size.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PNG } from "pngjs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Frame, Page } from "playwright";
import { launchChromium } from "../../../src/browser/chromium.js";
import type { PageControl } from "../../../src/targets/page-controls.js";
import { runCli } from "../../support/cli.js";
import { SHOP_SERVER, startShop, type Shop } from "./shop.js";

const dir = mkdtempSync(join(tmpdir(), "umpire-marks-test-"));
let app: Shop;
beforeAll(async () => {
  app = await startShop();
});
afterAll(async () => {
  await app?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The elements a declaration finds, resolved as src/targets/marks.ts resolves marks (in the control's frame). */
function locate(scope: Page | Frame, c: Pick<PageControl, "declaration">) {
  const d = c.declaration;
  if ("testid" in d) return scope.locator(`[data-testid="${d.testid}"]`);
  if ("role" in d) return scope.getByRole(d.role as Parameters<Page["getByRole"]>[0], { name: d.name, exact: d.exact });
  return scope.locator(d.selector);
}

describe("umpire marks", () => {
  it("--url --json: each declaration finds its one element; duplicates flagged; the iframe's control listed; a numbered PNG of the viewport", async () => {
    const png = join(dir, "shots", "shop.png");
    const result = await runCli(
      ["marks", "--url", `${app.url}/`, "--json", "--viewport", "1024x700", "--screenshot", png],
      { cwd: dir, killAfterMs: 120_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    const out = JSON.parse(result.stdout) as { controls: PageControl[]; screenshot: string };
    const controls = out.controls;
    expect(controls.map((c) => c.n)).toEqual(controls.map((_, i) => i + 1));
    const byName = (name: string) => controls.filter((c) => c.name === name);
    expect(byName("Your name")[0]!.declaration).toEqual({ testid: "name" });
    expect(byName("Greet me")[0]!.declaration).toEqual({ testid: "greet" });
    expect(byName("About")[0]!.yaml).toBe('about: { role: link, name: "About", exact: true }');
    expect(byName("Size")[0]!.declaration).toMatchObject({ role: "combobox", name: "Size" });
    expect(byName("Gift wrap")[0]!.declaration).toMatchObject({ role: "checkbox" });
    const nameless = controls.find((c) => c.role === "button" && !c.name)!;
    expect(nameless.declaration).toHaveProperty("selector");
    const adds = byName("Add");
    expect(adds).toHaveLength(2);
    for (const add of adds) expect(add).toMatchObject({ ambiguous: true, matches: 2 });
    expect(new Set(adds.map((a) => a.mark)).size).toBe(2);
    const pay = byName("Pay now")[0]!;
    expect(pay).toMatchObject({ resolvable: false, frame: `${app.url}/frame.html`, ambiguous: false });

    const browser = await launchChromium();
    try {
      const page = await (await browser.newContext({ viewport: { width: 1024, height: 700 } })).newPage();
      await page.goto(`${app.url}/`, { waitUntil: "load" });
      const frameOf = (c: PageControl) => (c.frame ? page.frames().find((f) => f.url() === c.frame)! : page);
      for (const c of controls.filter((x) => !x.ambiguous)) {
        expect(await locate(frameOf(c), c).count(), `${c.n} ${c.yaml}`).toBe(1);
        // The one it finds is the control listed: the same box.
        const box = await locate(frameOf(c), c).boundingBox();
        expect(Math.round(box!.x), c.yaml).toBe(c.box!.x);
        expect(Math.round(box!.y), c.yaml).toBe(c.box!.y);
      }
      for (const add of adds) {
        expect(await locate(page, add).count()).toBe(2);
        expect(await page.locator(add.unique!.selector).count(), add.unique!.yaml).toBe(1);
        expect(Math.round((await page.locator(add.unique!.selector).boundingBox())!.y)).toBe(add.box!.y);
      }
    } finally {
      await browser.close();
    }
    const image = PNG.sync.read(readFileSync(out.screenshot));
    expect(out.screenshot).toBe(png);
    expect([image.width, image.height]).toEqual([1024, 700]);
  });

  it("--target NAME --path: starts the config's target and lists its page in words, flags and all", async () => {
    writeFileSync(
      join(dir, "umpire.config.yaml"),
      `targets:\n  shop:\n    baseUrl: http://127.0.0.1:\${PORT}\n    start:\n      command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(SHOP_SERVER)}]\n    isolated: false\n`,
    );
    const result = await runCli(["marks", "--target", "shop", "--path", "/about.html"], {
      cwd: dir,
      killAfterMs: 120_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/\/about\.html: 1 controls/);
    expect(result.stdout).toContain('back: { role: link, name: "Back", exact: true }');
    expect(result.stdout).toContain(`screenshot: ${join(dir, "marks.png")}`);
    const wrong = await runCli(["marks", "--target", "shoop"], { cwd: dir, killAfterMs: 60_000 });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("declares no target of that name");
    expect(wrong.stderr).toContain("one of: shop");
  });
});
