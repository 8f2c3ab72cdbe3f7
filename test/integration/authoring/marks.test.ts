/**
 * `umpire marks` through the real CLI on a small app served by a real server: every declaration
 * it prints finds exactly one element when Playwright resolves it the way the runner does, the
 * duplicate "Add" buttons are flagged (with a selector that finds each alone), the iframe's button
 * is listed and said to be out of a mark's reach, and the numbered screenshot has the viewport's size.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
    // A test id is a mark on any element, a clickable list item with no role too (#39).
    expect(
      controls.find((c) => c.declaration && "testid" in c.declaration && c.declaration.testid === "pick-first"),
    ).toBeDefined();
    expect(byName("About")[0]!.yaml).toBe('about: { role: link, name: "About", exact: true }');
    expect(byName("Size")[0]!.declaration).toMatchObject({ role: "combobox", name: "Size" });
    expect(byName("Gift wrap")[0]!.declaration).toMatchObject({ role: "checkbox" });
    const nameless = controls.find((c) => c.role === "button" && !c.name)!;
    expect(nameless.declaration).toHaveProperty("selector");
    const adds = byName("Add");
    expect(adds).toHaveLength(2);
    for (const add of adds) expect(add).toMatchObject({ ambiguous: true, matches: 2 });
    expect(new Set(adds.map((a) => a.mark)).size).toBe(2);
    // Drawn and icon-font controls (#39): an SVG group by its id, one with a role by role + name; an icon
    // link named by its title and found by its id; a glyph-only control anchored on its ancestor's id.
    expect(byName("node-inject")[0]!.declaration).toEqual({ selector: "#node-inject" });
    expect(byName("Debug node")[0]!.declaration).toMatchObject({ role: "button", name: "Debug node" });
    expect(byName("Menu")[0]!).toMatchObject({ role: "link", declaration: { selector: "#menu-btn" } });
    const gear = controls.find(
      (c) => c.declaration && "selector" in c.declaration && c.declaration.selector.startsWith("#toolbar"),
    )!;
    expect(gear.declaration).toEqual({ selector: "#toolbar span" });
    expect(gear.name).toBeNull();
    expect(result.stdout).not.toMatch(/[\uE000-\uF8FF]/u);
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

  it("TASK --after N: plays the gold's first N steps and surveys the tray they opened; a picture of it; --after past the gold refused", async () => {
    writeFileSync(
      join(dir, "umpire.config.yaml"),
      `targets:\n  shop:\n    baseUrl: http://127.0.0.1:\${PORT}\n    start:\n      command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(SHOP_SERVER)}]\n    isolated: false\n`,
    );
    mkdirSync(join(dir, "tasks"), { recursive: true });
    writeFileSync(
      join(dir, "tasks/tray.yaml"),
      `id: tray\ntitle: Save from the tray\ntarget: shop\ninstruction: Open the tray and save the flow, then say done.\nstart: { path: / }\ntools: [click, answer]\nchecks:\n  - { kind: page, name: the tray is open, selector: "#tray", text: "Save flow" }\nreference:\n  - { tool: click, target: open-tray }\n  - { tool: click, target: tray-save }\n  - { tool: answer, args: { content: done } }\n`,
    );
    const before = await runCli(["marks", "tasks/tray.yaml", "--after", "0", "--json", "--screenshot", "before.png"], {
      cwd: dir,
      killAfterMs: 180_000,
    });
    expect(before.code, before.stderr).toBe(0);
    const closed = JSON.parse(before.stdout) as { controls: PageControl[]; after: number };
    expect(closed.after).toBe(0);
    expect(closed.controls.map((c) => c.mark)).not.toContain("tray-save");

    const after = await runCli(["marks", "tray", "--after", "1", "--screenshot", "after.png"], {
      cwd: dir,
      killAfterMs: 180_000,
    });
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout).toMatch(/\/ \(after 1 gold steps\): \d+ controls/);
    expect(after.stdout).toContain("# tray-save: a mark already");
    // The tray's icon close link: named by its aria-label, no glyph.
    expect(after.stdout).toContain('close-tray: { role: link, name: "Close tray", exact: true }');
    const image = PNG.sync.read(readFileSync(join(dir, "after.png")));
    expect([image.width, image.height]).toEqual([1280, 800]);

    const past = await runCli(["marks", "tray", "--after", "5"], { cwd: dir, killAfterMs: 60_000 });
    expect(past.code).toBe(2);
    expect(past.stderr).toContain("task tray's gold has 3 steps");
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
    expect(result.stdout).toMatch(/\/about\.html: 1 control(?!s)/);
    expect(result.stdout).toContain('back: { role: link, name: "Back", exact: true }');
    expect(result.stdout).toContain(`screenshot: ${join(dir, "marks.png")}`);
    // A readyUrl that answers 4xx counts as ready (any answer below 500), and is said to be doubtful (#39).
    writeFileSync(
      join(dir, "umpire.config.yaml"),
      `targets:\n  shop:\n    baseUrl: http://127.0.0.1:\${PORT}\n    start:\n      command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(SHOP_SERVER)}]\n      readyUrl: /not-there.html\n    isolated: false\n`,
    );
    const doubtful = await runCli(["marks", "--target", "shop", "--path", "/about.html"], {
      cwd: dir,
      killAfterMs: 120_000,
    });
    expect(doubtful.code, doubtful.stderr).toBe(0);
    expect(doubtful.stderr).toMatch(
      /target shop: start\.readyUrl http:\/\/127\.0\.0\.1:\d+\/not-there\.html answered 404; umpire counts any answer below 500 as ready/,
    );
    const wrong = await runCli(["marks", "--target", "shoop"], { cwd: dir, killAfterMs: 60_000 });
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("declares no target of that name");
    expect(wrong.stderr).toContain("one of: shop");
  });
});
