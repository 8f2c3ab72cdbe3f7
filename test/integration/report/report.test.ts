/**
 * The HTML report end to end: a real run (fixture site, reference model, Chromium, SQLite)
 * with passing and failing trials, its report written to disk, then opened from disk (file://)
 * in real Chromium: the overview lists and filters every trial, the trial view draws each
 * click where it landed, the side-by-side view shows two trials, and nothing leaves file://.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import type { Browser, BrowserContext, Page } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resolveAgentConfigs } from "../../../src/agent/config.js";
import { launchChromium } from "../../../src/browser/chromium.js";
import { main } from "../../../src/cli/main.js";
import { sideBySideHref, trialPageHref } from "../../../src/report/html/layout.js";
import { writeRunReport } from "../../../src/report/html/writer.js";
import { openStore } from "../../../src/store/open.js";
import type { TrialRecord } from "../../../src/store/records.js";
import { ROOT, startHarness, type Harness } from "../runner/harness.js";

let h: Harness;
let browser: Browser;
let context: BrowserContext;
let runId: string;
let reportDir: string;
let trials: TrialRecord[];
/** Every URL any report page requested, across all tests. */
const requests: string[] = [];
const pageErrors: string[] = [];

beforeAll(async () => {
  h = await startHarness();
  const agents = [
    ...resolveAgentConfigs({ model: "reference", mode: "both" }),
    ...resolveAgentConfigs({ model: "reference:wrong-record", mode: "structured" }),
  ];
  ({ runId } = await h.run({ tasks: [h.task("scorecard-note-bb042")], agents }));
  trials = h.store.trials(runId);
  reportDir = join(h.dir, "report");
  writeRunReport(h.store, runId, { out: reportDir, cwd: ROOT });
  browser = await launchChromium();
  context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  context.on("request", (request) => requests.push(request.url()));
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await h?.close();
});

async function open(relative: string, dir = reportDir): Promise<Page> {
  const [path, query] = relative.split("?");
  const page = await context.newPage();
  page.on("pageerror", (error) => pageErrors.push(error.message));
  await page.goto(pathToFileURL(join(dir, path!)).href + (query ? `?${query}` : ""));
  return page;
}

const visibleRows = (page: Page) => page.locator("#trials-table tbody tr:not([hidden])");
const seqsOf = async (page: Page) =>
  await visibleRows(page).evaluateAll((rows) => rows.map((r) => Number((r as HTMLElement).dataset.seq)));
const byVerdict = (verdict: string) => trials.filter((t) => t.verdict === verdict).map((t) => t.seq);

describe("the run behind the report", () => {
  it("has passing and failing trials", () => {
    expect(trials).toHaveLength(3);
    expect(byVerdict("passed")).toHaveLength(2);
    expect(byVerdict("failed")).toHaveLength(1);
  });
});

describe("overview", () => {
  it("lists every trial with its verdict, stop reason and the summary numbers", async () => {
    const page = await open("index.html");
    expect(await seqsOf(page)).toEqual(trials.map((t) => t.seq));
    for (const t of trials) {
      const row = page.locator(`#trials-table tbody tr[data-seq="${t.seq}"]`);
      await expect.poll(() => row.locator(".badge").textContent()).toBe(t.verdict);
      expect(await row.getAttribute("data-stop")).toBe(t.stopReason);
      expect(await row.locator(`a[href="${trialPageHref(t.seq)}"]`).count()).toBeGreaterThan(0);
    }
    expect(await page.locator('[data-kpi="pass-rate"] .kpi-detail').textContent()).toContain("2/3 passed");
    expect(await page.locator('[data-kpi="false-successes"] .kpi-value').textContent()).toBe("1");
    await page.close();
  });

  it("filters by verdict, and by task and tag", async () => {
    const page = await open("index.html");
    await page.selectOption("#filter-verdict", "failed");
    expect(await seqsOf(page)).toEqual(byVerdict("failed"));
    expect(await page.locator("#shown-count").textContent()).toBe("1 of 3 trials");
    await page.selectOption("#filter-verdict", "passed");
    expect(await seqsOf(page)).toEqual(byVerdict("passed"));
    await page.selectOption("#filter-verdict", "");
    expect(await visibleRows(page).count()).toBe(3);
    // The filter is kept in the URL fragment.
    await page.selectOption("#filter-agent", "reference:wrong-record/structured");
    expect(new URL(page.url()).hash).toBe("#agent=reference%3Awrong-record%2Fstructured");
    expect(await seqsOf(page)).toEqual(byVerdict("failed"));
    await page.selectOption("#filter-agent", "");
    // Task tags come from the store (the task as it was run).
    await page.selectOption("#filter-tags", "trap");
    expect(await visibleRows(page).count()).toBe(3);
    // A link that sets the fragment (the matrix's "+N more") filters the table too.
    await page.evaluate(() => (location.hash = "verdict=passed"));
    await expect.poll(() => seqsOf(page)).toEqual(byVerdict("passed"));
    expect(await page.locator("#filter-tags").inputValue()).toBe("");
    await page.close();
    // And a shared link opens filtered.
    const shared = await open("index.html");
    await shared.goto(`${shared.url()}#verdict=failed`);
    await shared.reload();
    expect(await seqsOf(shared)).toEqual(byVerdict("failed"));
    expect(await shared.locator("#filter-verdict").inputValue()).toBe("failed");
    await shared.close();
  });

  it("sorts by a column, ascending then descending", async () => {
    const page = await open("index.html");
    const byWall = [...trials].sort((a, b) => a.wallMs! - b.wallMs! || a.seq - b.seq).map((t) => t.seq);
    const wallHead = page.locator("#trials-table thead th", { hasText: "wall" });
    await wallHead.locator("button").click();
    expect(await seqsOf(page)).toEqual(byWall);
    expect(await wallHead.getAttribute("aria-sort")).toBe("ascending");
    await wallHead.locator("button").click();
    expect(await seqsOf(page)).toEqual([...byWall].reverse());
    expect(await wallHead.getAttribute("aria-sort")).toBe("descending");
    await page.close();
  });
});

describe("trial view", () => {
  it("draws every click at the pixel its [0,1000] coordinates map to", async () => {
    const trial = trials.find((t) => t.verdict === "passed" && t.mode === "structured")!;
    const page = await open(trialPageHref(trial.seq));
    const turns = h.store.turns(trial.id);
    const actions = h.store.actions(trial.id);
    expect(await page.locator("section.turn").count()).toBe(turns.length);
    const clicks = actions.filter((a) => a.tool === "click");
    expect(clicks.length).toBeGreaterThan(2);
    for (const action of clicks) {
      const turn = turns.find((t) => t.idx === action.turnIdx)!;
      const { x, y } = action.args as { x: number; y: number };
      const position = actions.filter((a) => a.turnIdx === action.turnIdx).findIndex((a) => a.idx === action.idx) + 1;
      const section = page.locator(`#turn-${action.turnIdx}`);
      await section.scrollIntoViewIfNeeded();
      const image = section.locator("img.shot-img");
      // The copied screenshot loads (lazily) at the size the model received.
      await expect
        .poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
        .toBe(turn.screenshot!.width);
      const imageBox = (await image.boundingBox())!;
      expect(imageBox.width).toBeLessThan(turn.screenshot!.width); // drawn scaled down: the marker must follow
      const dot = (await section.locator(`g.mark[data-n="${position}"] circle.mark-dot`).boundingBox())!;
      const expectedX = imageBox.x + (x / 1000) * imageBox.width;
      const expectedY = imageBox.y + (y / 1000) * imageBox.height;
      expect(Math.abs(dot.x + dot.width / 2 - expectedX)).toBeLessThanOrEqual(1.5);
      expect(Math.abs(dot.y + dot.height / 2 - expectedY)).toBeLessThanOrEqual(1.5);
      // The pixel the executor clicked: round(v/1000 * size), 1000 onto the last pixel.
      const px = Math.min(Math.round((x / 1000) * turn.screenshot!.width), turn.screenshot!.width - 1);
      const py = Math.min(Math.round((y / 1000) * turn.screenshot!.height), turn.screenshot!.height - 1);
      expect(await section.locator(`g.mark[data-n="${position}"] text`).textContent()).toBe(
        `${position} · (${x}, ${y}) → ${px}, ${py} px`,
      );
    }
    await page.close();
  });

  it("shows the stop reason, each check's reason, the answer, and links to the notes and events.jsonl", async () => {
    const trial = trials.find((t) => t.verdict === "failed")!;
    const page = await open(trialPageHref(trial.seq));
    expect(await page.locator(".trial-head .stop-reason").textContent()).toBe(trial.stopReason);
    const checks = h.store.checks(trial.id);
    expect(await page.locator("table.checks tbody tr").count()).toBe(checks.length);
    for (const check of checks) expect(await page.locator("table.checks").textContent()).toContain(check.reason);
    expect(await page.locator(".trial-head .said-answer .said-text").textContent()).toContain("Saved the note");
    const noteHref = await page.locator('.files a[href*="/notes/"]').first().getAttribute("href");
    expect(noteHref).toMatch(/notes\/BB-024\.md$/);
    expect(readFileSync(join(reportDir, "trials", noteHref!), "utf8")).toContain("match: BB-024");
    const eventsHref = await page.locator('.files a[href$="events.jsonl"]').getAttribute("href");
    expect(readFileSync(join(reportDir, "trials", eventsHref!), "utf8")).toContain("answer_event");
    // Reasoning is collapsed.
    expect(await page.locator("#turn-1 details.reasoning").getAttribute("open")).toBeNull();
    await page.close();
  });
});

describe("side by side", () => {
  it("opens from the overview and shows both trials aligned by turn", async () => {
    const [a, b] = trials.filter((t) => t.verdict === "passed");
    const page = await open("index.html");
    await page.locator(`input.pick[value="${a!.seq}"]`).check();
    await page.locator(`input.pick[value="${b!.seq}"]`).check();
    expect(await page.locator("#compare-link").getAttribute("href")).toBe(sideBySideHref(a!.seq, b!.seq));
    await page.locator("#compare-link").click();
    await page.waitForSelector('#sbs[data-ready="true"]');
    expect(await page.locator(".sbs-a .trial-title").textContent()).toContain(
      `#${a!.seq} scorecard-note-bb042 · ${a!.agentLabel}`,
    );
    expect(await page.locator(".sbs-b .trial-title").textContent()).toContain(
      `#${b!.seq} scorecard-note-bb042 · ${b!.agentLabel}`,
    );
    expect(await page.locator(".sbs-a section.turn").count()).toBe(a!.turns);
    expect(await page.locator(".sbs-b section.turn").count()).toBe(b!.turns);
    const turnRows = await page
      .locator(".sbs-row .sbs-label")
      .evaluateAll((labels) => labels.map((l) => l.textContent).filter((t) => t!.startsWith("turn ")));
    expect(turnRows).toHaveLength(Math.max(a!.turns, b!.turns));
    // Turn n sits beside turn n.
    expect(
      await page
        .locator(".sbs-row", { hasText: "turn 2" })
        .locator("section.turn")
        .evaluateAll((s) => s.map((x) => x.id)),
    ).toEqual(["turn-2", "turn-2"]);
    await page.close();
  });
});

describe("model output is text, never markup", () => {
  const IMG = `<img src=x onerror="window.__pwned=1">`;
  const SCRIPT = `<script>window.__pwned=2</script>`;
  let dir: string;

  beforeAll(() => {
    dir = join(h.dir, "xss");
    const runFolder = join(dir, "run");
    const store = openStore(join(dir, "umpire.db"));
    const run = store.createRun({ umpireVersion: "test", folder: runFolder, tags: [IMG] });
    const planned = [0, 1].map((seq) => ({
      seq,
      taskId: `task-${IMG}`,
      taskFile: "nowhere.yaml",
      agentLabel: `agent-${SCRIPT}`,
      model: "reference",
      mode: "structured" as const,
      repeat: seq,
    }));
    for (const t of store.addTrials(run.id, planned)) {
      const folder = join(runFolder, `t${t.seq}`);
      mkdirSync(join(folder, "workspace", "notes"), { recursive: true });
      writeFileSync(join(folder, "workspace", "notes", "evil.html"), `${SCRIPT}${IMG}`);
      writeFileSync(
        join(folder, "events.jsonl"),
        `${JSON.stringify({ type: "AgentEvent", data: { kind: "answer_event", answer: IMG }, timestamp: "2026-01-01T00:00:00Z" })}\n`,
      );
      store.startTrial(t.id, { folder: `t${t.seq}` });
      store.recordTurn({
        trialId: t.id,
        idx: 1,
        outcome: "actions",
        modelMs: 10,
        usage: null,
        costUsd: null,
        thought: IMG,
        note: IMG,
        reasoning: SCRIPT,
        content: IMG,
        screenshot: { path: `t${t.seq}/screens/missing.png`, width: 1280, height: 800 },
        flags: { repetition: "pause", condition: IMG, reflection: true },
      });
      store.recordActions([
        {
          trialId: t.id,
          turnIdx: 1,
          idx: 0,
          callId: IMG,
          tool: "click",
          args: { element: IMG, x: 500, y: 500 },
          status: "success",
          message: SCRIPT,
          executorMs: 5,
        },
      ]);
      store.finishTrial(
        t.id,
        {
          stopReason: "answered",
          stopDetail: IMG,
          verdict: "failed",
          answer: IMG,
          claimed: true,
          verified: false,
          turns: 1,
          actions: 1,
          usage: null,
          costUsd: null,
          timing: { wallMs: 100, modelMs: 10, executorMs: 5, captureMs: 1, checkMs: 1 },
          error: IMG,
          metrics: { repetition: { stuckSteps: 1 } },
        },
        [
          {
            kind: "file",
            name: IMG,
            required: true,
            pass: false,
            confidence: "verified",
            reason: SCRIPT,
            evidence: { html: IMG },
            ms: 1,
          },
        ],
      );
    }
    writeRunReport(store, run.id, { out: join(dir, "report") });
    store.close();
  });

  it("runs no injected script on any page and shows the text literally", async () => {
    const report = join(dir, "report");
    for (const path of ["index.html", trialPageHref(0), sideBySideHref(0, 1)]) {
      const page = await open(path, report);
      if (path.startsWith("compare")) await page.waitForSelector('#sbs[data-ready="true"]');
      await page.waitForLoadState("load");
      expect(await page.evaluate(() => (window as unknown as { __pwned?: unknown }).__pwned)).toBeUndefined();
      expect(await page.locator('img[src="x"]').count()).toBe(0);
      expect(await page.locator("body script:not([src]):not([type])").count()).toBe(0);
      const text = (await page.locator("body").textContent())!;
      expect(text).toContain(`task-${IMG}`);
      if (!path.startsWith("index")) {
        expect(text).toContain(SCRIPT); // the check reason
        expect(await page.locator("section#turn-1 .said-thought .said-text").first().textContent()).toBe(IMG);
        expect(await page.locator("section#turn-1 .highlight-pause").first().textContent()).toContain(IMG);
      }
      await page.close();
    }
    // A note named .html is copied as text, so opening it cannot run it either.
    expect(existsSync(join(report, "files", "0", "notes", "evil.html.txt"))).toBe(true);
    expect(existsSync(join(report, "files", "0", "notes", "evil.html"))).toBe(false);
  });
});

describe("umpire report", () => {
  function io() {
    let out = "";
    let err = "";
    const sink = (append: (s: string) => void) =>
      new Writable({ write: (chunk, _enc, done) => (append(String(chunk)), done()) });
    return {
      io: {
        stdout: sink((s) => (out += s)),
        stderr: sink((s) => (err += s)),
        env: {},
        cwd: ROOT,
        signal: new AbortController().signal,
      },
      out: () => out,
      err: () => err,
    };
  }

  it("writes the report and prints the path of index.html; refuses a folder that is not a report", async () => {
    const out = join(h.dir, "cli-report");
    const first = io();
    expect(await main(["report", runId.slice(0, -1), "--db", join(h.dir, "umpire.db"), "--out", out], first.io)).toBe(
      0,
    );
    expect(first.out()).toBe(`${join(out, "index.html")}\n`);
    expect(readFileSync(join(out, "index.html"), "utf8")).toContain("Content-Security-Policy");
    // Again into the same folder: the earlier report is replaced.
    expect(await main(["report", runId, "--db", join(h.dir, "umpire.db"), "--out", out], io().io)).toBe(0);

    const foreign = join(h.dir, "not-a-report");
    mkdirSync(foreign, { recursive: true });
    writeFileSync(join(foreign, "keep.txt"), "mine");
    const refused = io();
    expect(await main(["report", runId, "--db", join(h.dir, "umpire.db"), "--out", foreign], refused.io)).toBe(2);
    expect(refused.err()).toContain("is not an umpire report folder");
    expect(readFileSync(join(foreign, "keep.txt"), "utf8")).toBe("mine");
  });
});

describe("offline", () => {
  it("requests nothing but files of the report folder, and every script ran without error", async () => {
    for (const path of ["index.html", trialPageHref(trials[0]!.seq), sideBySideHref(trials[0]!.seq, trials[1]!.seq)]) {
      const page = await open(path);
      await page.waitForLoadState("load");
      await page.close();
    }
    expect(requests.length).toBeGreaterThan(10);
    expect(requests.filter((url) => !url.startsWith("file://"))).toEqual([]);
    expect(requests.some((url) => url.endsWith(".png"))).toBe(true);
    expect(requests.some((url) => url.endsWith("/assets/overview.js"))).toBe(true);
    expect(pageErrors).toEqual([]);
  });
});
