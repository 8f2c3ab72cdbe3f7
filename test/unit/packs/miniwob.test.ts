/**
 * The MiniWoB++ pack's own rules: BrowserGym's task list and split, tasks with BrowserGym's
 * settings whose instruction and check come from the environment, seeds fixed per (environment,
 * repeat, base), a folder that is not a checkout refused with the fix, environments missing from
 * the folder listed; and the folder server: files only inside the folder, each page's inline
 * scripts (and only those) allowed by its script policy.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { episodeSeed, loadMiniwobPack, MINIWOB_SPLITS, MINIWOB_SETTINGS } from "../../../src/packs/miniwob.js";
import { pagePolicy, serveFolder } from "../../../src/packs/folder-server.js";

const PACK = join(import.meta.dirname, "../../../examples/miniwob-mini/html");
const tmp = mkdtempSync(join(tmpdir(), "umpire-pack-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("the MiniWoB++ pack", () => {
  it("follows BrowserGym's list: 125 environments, 62 train and 63 test", () => {
    const splits = [...MINIWOB_SPLITS.values()];
    expect(splits).toHaveLength(125);
    expect(splits.filter((s) => s === "train")).toHaveLength(62);
    expect(MINIWOB_SPLITS.get("click-button")).toBe("test");
  });

  it("makes each environment a task with BrowserGym's settings, its instruction and check from the page", () => {
    const pack = loadMiniwobPack({ dir: PACK, tasks: ["click-button", "enter-text", "choose-list"] });
    expect(pack.tasks.map((t) => t.id)).toEqual(["miniwob-click-button", "miniwob-enter-text"]);
    expect(pack.notRunnable).toEqual([{ name: "choose-list", why: expect.stringContaining("not in") }]);
    const task = pack.tasks[0]!;
    expect(task.viewport).toEqual(MINIWOB_SETTINGS.viewport);
    expect(task.limits.turns).toBe(10);
    expect(task.instructionFrom?.expression).toContain("core.getUtterance()");
    expect(task.checks).toEqual([
      expect.objectContaining({ kind: "episode", above: 0 }),
      expect.objectContaining({ kind: "effects", require: [{ type: "environment_page_loaded", count: 1 }] }),
    ]);
    expect(task.start.path).toBe("/miniwob/click-button.html");
    expect(task.tags).toContain("split:test");
  });

  it("narrows by split, refuses unknown names and a folder that is no checkout, with the fix", () => {
    const ids = (split: "train" | "test") => loadMiniwobPack({ dir: PACK, split }).tasks.map((t) => t.id);
    expect(ids("train")).toEqual([
      "miniwob-click-checkboxes",
      "miniwob-drag-box",
      "miniwob-enter-text",
      "miniwob-login-user",
    ]);
    expect(ids("test")).toEqual([
      "miniwob-click-button",
      "miniwob-click-link",
      "miniwob-click-tab",
      "miniwob-click-test",
    ]);
    expect(() => loadMiniwobPack({ dir: PACK, tasks: ["click-buton"] })).toThrow(
      /not a MiniWoB\+\+ environment.*click-buton/,
    );
    expect(() => loadMiniwobPack({ dir: tmp })).toThrow(/is not a MiniWoB\+\+ html folder/);
  });

  it("seeds each repeat of each environment apart, the same every time, and moves them with the base", () => {
    const a = episodeSeed("miniwob-click-button", 0);
    expect(episodeSeed("miniwob-click-button", 0)).toBe(a);
    expect(episodeSeed("miniwob-click-button", 1)).not.toBe(a);
    expect(episodeSeed("miniwob-enter-text", 0)).not.toBe(a);
    expect(episodeSeed("miniwob-click-button", 0, 7)).not.toBe(a);
  });
});

describe("the folder server", () => {
  it("serves files inside the folder only, and allows exactly the page's own inline scripts", async () => {
    const root = join(tmp, "site");
    mkdirSync(join(root, "sub"), { recursive: true });
    writeFileSync(join(tmp, "secret.txt"), "outside");
    const inline = "var x = 1;";
    writeFileSync(join(root, "sub", "page.html"), `<script src="a.js"></script><script>${inline}</script>`);
    const server = await serveFolder(root);
    try {
      const page = await fetch(`${server.url}/sub/page.html`);
      const hash = createHash("sha256").update(inline).digest("base64");
      expect(page.headers.get("content-security-policy")).toBe(`script-src 'self' 'unsafe-eval' 'sha256-${hash}'`);
      expect((await fetch(`${server.url}/../secret.txt`)).status).toBe(404);
      expect((await fetch(`${server.url}/%2e%2e/secret.txt`)).status).toBe(404);
      expect((await fetch(`${server.url}/sub/missing.js`)).status).toBe(404);
    } finally {
      await server.close();
    }
    expect(pagePolicy("<p>no scripts</p>")).toBe("script-src 'self' 'unsafe-eval'");
  });
});
