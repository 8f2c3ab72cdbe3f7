/**
 * What the agent's browser and tools can reach: only the task's allowed origins, never the
 * fixture's control API; a point outside the display is rejected before any input; note names
 * cannot leave the notes folder; http_get reads only allow-listed paths.
 */
import { fixtureTarget } from "../../../src/targets/fixture-target.js";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFixtureSite, type FixtureSite } from "../../../fixtures-site/fixture-site.js";
import { launchChromium } from "../../../src/browser/chromium.js";
import { TrialEnvironment } from "../../../src/runner/trial/environment.js";
import { Executor } from "../../../src/runner/trial/executor.js";
import { loadTasksOrThrow } from "../../../src/task/loader.js";
import type { Task } from "../../../src/task/schema.js";
import type { ProposedAction } from "../../../src/toolbox/tools.js";
import { ROOT } from "./harness.js";

let site: FixtureSite;
let browser: Browser;
let dir: string;
const tasks = loadTasksOrThrow([], { cwd: ROOT });
const task = (id: string): Task => tasks.find((t) => t.id === id)!;
let n = 0;

beforeAll(async () => {
  site = await startFixtureSite();
  browser = await launchChromium();
  dir = mkdtempSync(join(tmpdir(), "umpire-sec-"));
});
afterAll(async () => {
  await browser?.close();
  await site?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function open(t: Task) {
  const id = `sec-${++n}`;
  const workspaceDir = join(dir, id, "workspace");
  const env = await TrialEnvironment.open({ browser, task: t, trialId: id, workspaceDir, target: fixtureTarget(site) });
  const observation = await env.observe();
  const executor = new Executor({
    env,
    task: t,
    frame: () => ({ width: observation.width, height: observation.height }),
    workspaceDir,
    recordEffect: async (type, detail) => void (await site.client.recordEffect(id, type, detail)),
  });
  return { env, executor, workspaceDir, id };
}

const act = (tool: string, args: Record<string, unknown>): ProposedAction => ({
  id: `call-${++n}`,
  tool: tool as ProposedAction["tool"],
  args,
});
const signal = new AbortController().signal;

describe("the agent's reach", () => {
  it("a page cannot read the control API, and requests to it never leave the browser", async () => {
    const { env } = await open(task("scorecard-note-bb042"));
    const result = await env.page.evaluate(async (url) => {
      try {
        const r = await fetch(url);
        return `status ${r.status}`;
      } catch (e) {
        return `blocked: ${(e as Error).message}`;
      }
    }, `${site.controlUrl}/sessions`);
    expect(result).toMatch(/^blocked/);
    expect(env.blockedRequests.some((u) => u.startsWith(site.controlUrl))).toBe(true);
    await env.close();
  });

  it("navigate to the control API or another origin is rejected before anything happens", async () => {
    const withNavigate = structuredClone(task("scorecard-note-bb042"));
    withNavigate.tools.push("navigate");
    const { env, executor } = await open(withNavigate);
    expect((await executor.execute(act("navigate", { url: "/match/BB-007" }), signal)).status).toBe("success");
    const before = env.page.url();
    const fake = "data:text/html,<h1 data-mark=match-title>BB-042</h1>";
    for (const url of [
      `${site.controlUrl}/sessions`,
      "http://example.com/",
      "https://api.hcompany.ai/v1/models",
      fake,
      "about:blank",
      `blob:${site.siteUrl}/0000`,
    ]) {
      const result = await executor.execute(act("navigate", { url }), signal);
      expect(result.status).toBe("rejected");
      expect(result.message).toMatch(/not an allowed origin/);
    }
    expect(env.page.url()).toBe(before);
    // A page-driven navigation away is stopped by the browser guard, too.
    await env.page.evaluate(() => void (location.href = "http://localhost:9/elsewhere")).catch(() => undefined);
    await env.page.waitForTimeout(300);
    expect(env.blockedRequests.some((u) => u.startsWith("http://localhost:9/"))).toBe(true);
    await env.close();
  });

  it("a click outside the display is rejected before any input; the edge pixel is inside", async () => {
    const { env, executor } = await open(task("scorecard-note-bb042"));
    await env.page.evaluate(() => {
      (window as unknown as { downs: number }).downs = 0;
      document.addEventListener("mousedown", () => ((window as unknown as { downs: number }).downs += 1), true);
    });
    const outside = await executor.execute(act("click", { element: "off screen", x: 1500, y: 10 }), signal);
    expect(outside.status).toBe("rejected");
    const list = await executor.execute(act("click", { element: "list", x: [500, 500] }), signal);
    expect(list.status).toBe("rejected");
    expect(await env.page.evaluate(() => (window as unknown as { downs: number }).downs)).toBe(0);
    const edge = await executor.execute(act("click", { element: "bottom-right corner", x: 1000, y: 1000 }), signal);
    expect(edge.status).toBe("success");
    expect(edge.point).toEqual({ x: 1279, y: 799 });
    expect(await env.page.evaluate(() => (window as unknown as { downs: number }).downs)).toBe(1);
    await env.close();
  });

  it("a tool the task does not allow is rejected", async () => {
    const { env, executor } = await open(task("scorecard-note-bb042"));
    const result = await executor.execute(act("write_note", { name: "x.md", content: "x" }), signal);
    expect(result.status).toBe("rejected");
    expect(result.message).toMatch(/not allowed in this task/);
    await env.close();
  });

  it("write_note cannot leave the notes folder; http_get reads only allow-listed paths", async () => {
    const { env, executor, workspaceDir, id } = await open(task("api-note-bb042"));
    for (const name of ["../escape.md", "/etc/passwd", "a/b.md", ".."]) {
      const result = await executor.execute(act("write_note", { name, content: "x" }), signal);
      expect(result.status).toBe("rejected");
    }
    expect(existsSync(join(workspaceDir, "escape.md"))).toBe(false);
    const ok = await executor.execute(act("write_note", { name: "BB-042.md", content: "match: BB-042\n" }), signal);
    expect(ok.status).toBe("success");
    expect(existsSync(join(workspaceDir, "notes/BB-042.md"))).toBe(true);
    // The harness's own tool joins the fixture's effects log.
    expect((await site.client.effects(id)).map((e) => e.type)).toContain("note_saved");

    const api = await executor.execute(act("http_get", { path: "/api/matches/BB-042" }), signal);
    expect(api.status).toBe("success");
    expect(api.output).toContain("Jaipur Kites");
    for (const path of ["/notes?match=BB-042", "/api/matches/../../notes", `${site.controlUrl}/sessions`]) {
      const denied = await executor.execute(act("http_get", { path }), signal);
      expect(denied.status).toBe("rejected");
    }
    await env.close();
  });

  it("write_note writes inside the task's writeScope, wherever that is", async () => {
    const drafts = structuredClone(task("api-note-bb042"));
    drafts.permissions.writeScope = "drafts/";
    const { env, executor, workspaceDir } = await open(drafts);
    const ok = await executor.execute(act("write_note", { name: "BB-042.md", content: "match: BB-042\n" }), signal);
    expect(ok.status, ok.output).toBe("success");
    expect(existsSync(join(workspaceDir, "drafts/BB-042.md"))).toBe(true);
    expect(existsSync(join(workspaceDir, "notes/BB-042.md"))).toBe(false);
    await env.close();
  });
});
