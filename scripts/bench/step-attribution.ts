/**
 * Where one step's harness time goes, call by call, on the BB-042 scorecard page: umpire's own
 * pieces (a real TrialEnvironment, Executor, repetition guard, trial log and store sink) against
 * the bare Playwright calls they wrap (an unrouted context on a session of the same page).
 * Each figure is a median of `samples` calls after two warm-up calls.
 */
import { fixtureTarget } from "../../src/targets/fixture-target.js";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { TrialEnvironment, type Observation } from "../../src/runner/trial/environment.js";
import { Executor } from "../../src/runner/trial/executor.js";
import type { PlayedTurn } from "../../src/runner/trial/loop.js";
import { createRepetitionGuard } from "../../src/runner/trial/repetition-guard.js";
import { createStoreSink } from "../../src/runner/schedule/store-sink.js";
import { createTrialLog } from "../../src/runner/trial/trial-log.js";
import type { Task } from "../../src/task/schema.js";
import { renderingOptions } from "./bare-loop.js";
import { median, round } from "./stats.js";
import type { BenchWorld } from "./world.js";

/** Medians in milliseconds. */
export interface StepAttribution {
  samples: number;
  page: string;
  /** TrialEnvironment.observe(): flush + screenshot + hash + volatile regions. */
  observe: number;
  /** The page's layout report round trip, in umpire's routed context and in a bare one. */
  flushLayoutRouted: number;
  flushLayoutUnrouted: number;
  screenshotRouted: number;
  screenshotUnrouted: number;
  /**
   * The same capture straight through CDP, as Playwright sends it and with Chromium's
   * `optimizeForSpeed` (faster PNG encoding, larger files), with the bytes each produces.
   */
  cdpScreenshot: number;
  cdpScreenshotFast: number;
  pngBytes: { playwright: number; cdp: number; cdpFast: number };
  /** One page.evaluate round trip (the guard and the executor each add one per click). */
  evaluateRoundTrip: number;
  sha256: number;
  /** Executor.execute(click) on an inert point (validate, element-under-point probe, click, settle) vs mouse.click + settle. */
  executorClick: number;
  bareClickAndSettle: number;
  /**
   * Typing the scorecard note (the longest action of the trajectory) into a textarea: Playwright's
   * keyboard.type (a round trip per key event, what a hand-written loop does), the executor's
   * `write` (fast-typing.ts: the same key events, pipelined over CDP), and keyboard.insertText
   * (one call; input events fire, per-key events do not: the floor, not an option).
   */
  typeNote: number;
  typeNoteFast: number;
  insertNote: number;
  noteCharacters: number;
  /** The repetition guard's beforeExecute for a click that repeats nothing (no image comparison). */
  guardBeforeExecute: number;
  /** Trial log: one new screenshot file and the observation, policy and tool-result events. */
  trialLogWrites: number;
  /** Store sink: one turn and its action (SQLite, WAL). */
  storeRecordTurn: number;
}

export async function attributeStep(world: BenchWorld, task: Task, samples: number): Promise<StepAttribution> {
  const note =
    task.reference
      .map((step) => step.args?.content)
      .find((c): c is string => typeof c === "string" && c.includes("\n")) ?? "match: BB-042\n";
  const path = "/match/BB-042";
  const onPage: Task = { ...task, start: { ...task.start, path } };
  const workspace = mkdtempSync(join(tmpdir(), "umpire-bench-attr-"));
  const fixtures = world.runtime.fixtures;
  const trialId = `bench-attr-${process.pid}`;
  const env = await TrialEnvironment.open({
    browser: world.browser,
    task: onPage,
    trialId,
    workspaceDir: workspace,
    target: fixtureTarget(fixtures),
  });
  const session = await fixtures.client.createSession({ scenario: task.start.scenario, workspace });
  const bare = await world.browser.newContext(renderingOptions(task));
  try {
    await bare.addCookies([
      { name: session.cookie.name, value: session.cookie.value, domain: new URL(fixtures.siteUrl).hostname, path: "/" },
    ]);
    const page = await bare.newPage();
    await page.goto(new URL(path, fixtures.siteUrl).toString(), { waitUntil: "load" });
    let inflight = 0;
    page.on("request", () => (inflight += 1));
    page.on("requestfinished", () => (inflight = Math.max(0, inflight - 1)));
    page.on("requestfailed", () => (inflight = Math.max(0, inflight - 1)));

    const time = async (fn: (i: number) => Promise<unknown> | unknown): Promise<number> => {
      const times: number[] = [];
      for (let i = 0; i < samples + 2; i++) {
        const started = performance.now();
        await fn(i);
        if (i >= 2) times.push(performance.now() - started);
      }
      return round(median(times), 2);
    };
    const shot = { type: "png" as const, animations: "allow" as const, caret: "initial" as const };
    const observation: Observation = await env.observe();
    const cdp = await env.context.newCDPSession(env.page);
    const capture = async (optimizeForSpeed: boolean) =>
      Buffer.from(
        ((await cdp.send("Page.captureScreenshot", { format: "png", optimizeForSpeed })) as { data: string }).data,
        "base64",
      );
    const pngBytes = {
      playwright: observation.png.length,
      cdp: (await capture(false)).length,
      cdpFast: (await capture(true)).length,
    };
    const executor = new Executor({
      env,
      task: onPage,
      frame: () => ({ width: observation.width, height: observation.height }),
      workspaceDir: workspace,
      recordEffect: async () => undefined,
    });
    // A point in the page's empty right margin: the click lands on nothing that reacts.
    const inert = { x: 995, y: 600 };
    const css = { x: (inert.x / 1000) * observation.width, y: (inert.y / 1000) * observation.height };
    const signal = new AbortController().signal;
    const typeInto = async (fn: () => Promise<void>, on = page) => {
      await on.evaluate(() => {
        const area =
          (document.getElementById("bench-area") as HTMLTextAreaElement | null) ??
          document.body.appendChild(Object.assign(document.createElement("textarea"), { id: "bench-area" }));
        area.value = "";
        area.focus();
      });
      await fn();
    };
    const guard = createRepetitionGuard(onPage, env, { window: 3, recoveryLimit: 1 });
    const log = createTrialLog(join(workspace, "trial"));
    const sink = trialSink(world, join(workspace, "run"));
    let idx = 0;

    return {
      samples,
      page: path,
      observe: await time(() => env.observe()),
      flushLayoutRouted: await time(() => env.flushLayout()),
      flushLayoutUnrouted: await time(() =>
        page.evaluate(() =>
          (window as unknown as { __umpireLayoutFlush?: () => Promise<unknown> }).__umpireLayoutFlush?.(),
        ),
      ),
      screenshotRouted: await time(() => env.page.screenshot(shot)),
      screenshotUnrouted: await time(() => page.screenshot(shot)),
      cdpScreenshot: await time(() => capture(false)),
      cdpScreenshotFast: await time(() => capture(true)),
      pngBytes,
      evaluateRoundTrip: await time(() => page.evaluate(() => 0)),
      sha256: await time(() => createHash("sha256").update(observation.png).digest("hex")),
      executorClick: await time((i) =>
        executor.execute({ id: `c${i}`, tool: "click", args: { element: "empty right margin", ...inert } }, signal),
      ),
      bareClickAndSettle: await time(async () => {
        await page.mouse.click(css.x, css.y);
        while (inflight > 0) await new Promise((r) => setTimeout(r, 25));
      }),
      typeNote: await time(() => typeInto(() => page.keyboard.type(note))),
      typeNoteFast: await time(() => typeInto(() => env.type(note), env.page)),
      insertNote: await time(() => typeInto(() => page.keyboard.insertText(note))),
      noteCharacters: note.length,
      // A different point each time: no repeated signature, so no comparison (the gold path's cost).
      guardBeforeExecute: await time((i) =>
        guard.beforeExecute(observation, "screens/x.png", [
          { id: `g${i}`, tool: "click", args: { element: "margin", x: 900 + (i % 90), y: 600 } },
        ]),
      ),
      trialLogWrites: await time((i) => {
        // A distinct hash each time, so the file is really written (umpire stores each content once).
        const sha = createHash("sha256").update(`${i}`).digest("hex");
        const file = log.screenshot(observation.png, sha);
        log.step("observation_event", {
          type: "web",
          image: { type: "url", source: file, media_type: "image/png" },
          metadata: { viewport_size: [1280, 800] },
        });
        log.step("policy_event", {
          turn: i,
          content: "{}",
          tool_reqs: [{ tool_name: "click", args: inert, id: `c${i}` }],
          validation_errors: [],
        });
        log.step("tool_result", {
          tool_req: { tool_name: "click", args: inert, id: `c${i}` },
          result: { status: "success", message: "click sent" },
        });
      }),
      storeRecordTurn: await time(() => sink.record(++idx)),
    };
  } finally {
    await bare.close().catch(() => undefined);
    await env.close();
    await fixtures.client.deleteSession(trialId).catch(() => undefined);
    await fixtures.client.deleteSession(session.id).catch(() => undefined);
    rmSync(workspace, { recursive: true, force: true });
  }
}

/** A trial row in the bench store and a function that records one turn of it through the store sink. */
function trialSink(world: BenchWorld, runDir: string): { record(idx: number): void } {
  const runId = `bench-attr-${process.pid}-${Date.now()}`;
  world.store.createRun({ id: runId, umpireVersion: "bench", folder: runDir });
  const [trial] = world.store.addTrials(runId, [
    {
      id: `${runId}-0000`,
      seq: 0,
      taskId: "bench",
      taskFile: "bench.yaml",
      agentLabel: "reference/structured",
      model: "reference",
      mode: "structured",
      repeat: 0,
    },
  ]);
  const sink = createStoreSink(world.store, runDir);
  sink.startTrial(trial!.id, { folder: join(runDir, "0000"), attempt: 1 });
  const usage = { inputTokens: 2500, outputTokens: 120, reasoningTokens: 0, cachedTokens: 0 };
  return {
    record(idx) {
      const turn: PlayedTurn = {
        idx,
        startedAt: new Date().toISOString(),
        outcome: "actions",
        finishReason: "stop",
        modelMs: 10,
        ttftMs: null,
        retries: 0,
        usage,
        note: "Clicking the margin.",
        thought: "The margin is empty.",
        content:
          '{"note":"Clicking the margin.","thought":"The margin is empty.","action":[{"action":"click","element":"margin","x":995,"y":600}]}',
        reasoning: null,
        screenshot: "screens/x.png",
        width: 1280,
        height: 800,
        flags: {},
        actions: [
          {
            id: `a${idx}`,
            tool: "click",
            status: "success",
            message: "click sent at (1274, 480) CSS px; input sent",
            ms: 5,
            idx: 0,
            args: { element: "margin", x: 995, y: 600 },
          },
        ],
      };
      sink.recordTurn(trial!.id, turn, 0.001);
    },
  };
}
