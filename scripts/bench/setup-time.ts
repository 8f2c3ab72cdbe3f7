/**
 * Trial set-up: umpire's TrialEnvironment.open (workspace folder, fixture session, context with
 * the task's options, session cookie, page, the origin guard, start page loaded) against a bare
 * `newContext()` + `newPage()` + `goto()` of the same page (with the cookie of a session made
 * beforehand, so both show the same page). Samples alternate between the two.
 *
 * To say where umpire's extra time goes, a third variant repeats TrialEnvironment.open's steps
 * one by one with a timer around each. It mirrors src/runner/trial/environment.ts and must follow it
 * when that changes; its total is printed beside the real one as a check.
 */
import { fixtureTarget } from "../../src/targets/fixture-target.js";
import { mkdir } from "node:fs/promises";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { allowedOrigins, TrialEnvironment } from "../../src/runner/trial/environment.js";
import type { Task } from "../../src/task/schema.js";
import { median, ratio, round, summarize, type Summary } from "./stats.js";
import type { BenchWorld } from "./world.js";

export const SETUP_TASK = "scorecard-note-bb042";

const STAGES = [
  "workspace",
  "fixtureSession",
  "newContext",
  "addCookies",
  "newPage",
  "originGuard",
  "gotoLoad",
] as const;
type Stage = (typeof STAGES)[number];

export interface SetupBench {
  task: string;
  page: string;
  samples: number;
  umpire: Summary;
  bare: Summary;
  ratio: number;
  /** Medians of each step of TrialEnvironment.open, repeated by hand. */
  stagesMedianMs: Record<Stage, number>;
  stagesTotal: Summary;
  /** The bare variant's own steps. */
  bareStagesMedianMs: { newContext: number; addCookies: number; newPage: number; gotoLoad: number };
  /** Closing the context afterwards (paid by every trial too, after its checks). */
  closeMedianMs: { umpire: number; bare: number };
  /**
   * What a trial would still wait for if a pool kept a context + page ready for it
   * (fixture session, cookie, origin guard, start page): sum of those stages' medians.
   */
  warmPoolEstimateMs: number;
}

export async function benchSetup(world: BenchWorld, options: { samples: number }): Promise<SetupBench> {
  const task = world.task(SETUP_TASK);
  const fixtures = world.runtime.fixtures;
  const url = new URL(task.start.path, fixtures.siteUrl).toString();
  const root = mkdtempSync(join(tmpdir(), "umpire-bench-setup-"));
  const bareSession = await fixtures.client.createSession({
    scenario: task.start.scenario,
    workspace: join(root, "bare"),
  });
  const cookie = {
    name: bareSession.cookie.name,
    value: bareSession.cookie.value,
    domain: new URL(fixtures.siteUrl).hostname,
    path: "/",
  };
  const umpire: number[] = [];
  const bare: number[] = [];
  const stages: Record<Stage, number[]> = Object.fromEntries(STAGES.map((s) => [s, []])) as unknown as Record<
    Stage,
    number[]
  >;
  const totals: number[] = [];
  const bareStages = {
    newContext: [] as number[],
    addCookies: [] as number[],
    newPage: [] as number[],
    gotoLoad: [] as number[],
  };
  const closes = { umpire: [] as number[], bare: [] as number[] };
  let n = 0;

  const runUmpire = async (keep: boolean) => {
    const id = `bench-setup-${process.pid}-${++n}`;
    const started = performance.now();
    const env = await TrialEnvironment.open({
      browser: world.browser,
      task,
      trialId: id,
      workspaceDir: join(root, id),
      target: fixtureTarget(fixtures),
    });
    const opened = performance.now();
    await env.close();
    const closed = performance.now();
    await fixtures.client.deleteSession(id).catch(() => undefined);
    if (keep) {
      umpire.push(opened - started);
      closes.umpire.push(closed - opened);
    }
  };
  const runBare = async (keep: boolean) => {
    const t0 = performance.now();
    const context = await world.browser.newContext();
    const t1 = performance.now();
    await context.addCookies([cookie]);
    const t2 = performance.now();
    const page = await context.newPage();
    const t3 = performance.now();
    await page.goto(url, { waitUntil: "load" });
    const t4 = performance.now();
    await context.close();
    const t5 = performance.now();
    if (keep) {
      bare.push(t4 - t0);
      bareStages.newContext.push(t1 - t0);
      bareStages.addCookies.push(t2 - t1);
      bareStages.newPage.push(t3 - t2);
      bareStages.gotoLoad.push(t4 - t3);
      closes.bare.push(t5 - t4);
    }
  };
  const runStages = async (keep: boolean) => {
    const id = `bench-setup-${process.pid}-${++n}`;
    const times = await openByStages(world, task, id, join(root, id));
    await fixtures.client.deleteSession(id).catch(() => undefined);
    if (keep) {
      for (const s of STAGES) stages[s].push(times[s]);
      totals.push(STAGES.reduce((a, s) => a + times[s], 0));
    }
  };

  try {
    for (let i = 0; i < 2; i++) {
      await runUmpire(false);
      await runBare(false);
      await runStages(false);
    }
    for (let i = 0; i < options.samples; i++) {
      // Rotate the order so no variant always follows the same one.
      const order = [runUmpire, runBare, runStages];
      for (let k = 0; k < i % 3; k++) order.push(order.shift()!);
      for (const run of order) await run(true);
    }
  } finally {
    await fixtures.client.deleteSession(bareSession.id).catch(() => undefined);
    rmSync(root, { recursive: true, force: true });
  }
  const stagesMedianMs = Object.fromEntries(STAGES.map((s) => [s, round(median(stages[s]), 2)])) as Record<
    Stage,
    number
  >;
  return {
    task: task.id,
    page: task.start.path,
    samples: options.samples,
    umpire: summarize(umpire),
    bare: summarize(bare),
    ratio: ratio(median(umpire), median(bare)),
    stagesMedianMs,
    stagesTotal: summarize(totals),
    bareStagesMedianMs: {
      newContext: round(median(bareStages.newContext), 2),
      addCookies: round(median(bareStages.addCookies), 2),
      newPage: round(median(bareStages.newPage), 2),
      gotoLoad: round(median(bareStages.gotoLoad), 2),
    },
    closeMedianMs: { umpire: round(median(closes.umpire)), bare: round(median(closes.bare)) },
    warmPoolEstimateMs: round(
      stagesMedianMs.fixtureSession + stagesMedianMs.addCookies + stagesMedianMs.originGuard + stagesMedianMs.gotoLoad,
    ),
  };
}

/** TrialEnvironment.open's steps, in its order and with its options, each timed. */
async function openByStages(
  world: BenchWorld,
  task: Task,
  trialId: string,
  workspaceDir: string,
): Promise<Record<Stage, number>> {
  const fixtures = world.runtime.fixtures;
  const times = {} as Record<Stage, number>;
  let last = performance.now();
  const mark = (stage: Stage) => {
    const now = performance.now();
    times[stage] = now - last;
    last = now;
  };
  await mkdir(join(workspaceDir, "notes"), { recursive: true });
  mark("workspace");
  const session = await fixtures.client.createSession({
    id: trialId,
    scenario: task.start.scenario,
    workspace: workspaceDir,
  });
  mark("fixtureSession");
  const context = await world.browser.newContext({
    viewport: { width: task.viewport.width, height: task.viewport.height },
    deviceScaleFactor: task.viewport.deviceScaleFactor,
    reducedMotion: "reduce",
    serviceWorkers: "block",
    acceptDownloads: false,
    locale: "en-GB",
    timezoneId: "UTC",
  });
  mark("newContext");
  try {
    await context.addCookies([
      { name: session.cookie.name, value: session.cookie.value, domain: new URL(fixtures.siteUrl).hostname, path: "/" },
    ]);
    mark("addCookies");
    const page = await context.newPage();
    mark("newPage");
    const origins = allowedOrigins(task, fixtures.siteUrl);
    let inflight = 0;
    await context.route("**/*", async (route) => {
      const target = new URL(route.request().url());
      return origins.has(target.origin) || target.protocol === "data:"
        ? route.continue()
        : route.abort("blockedbyclient");
    });
    page.on("request", () => (inflight += 1));
    page.on("requestfinished", () => (inflight = Math.max(0, inflight - 1)));
    page.on("requestfailed", () => (inflight = Math.max(0, inflight - 1)));
    page.setDefaultTimeout(15_000);
    mark("originGuard");
    await page.goto(new URL(task.start.path, fixtures.siteUrl).toString(), { waitUntil: "load" });
    mark("gotoLoad");
  } finally {
    await context.close();
  }
  return times;
}
