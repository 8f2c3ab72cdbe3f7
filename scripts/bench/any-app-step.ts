/**
 * Per-step harness time on the example app (TodoMVC from npm, examples/todomvc) against the bare
 * loop on the same app: umpire's step (TrialEnvironment.observe(), which on a declared target also
 * resolves every mark and posts it to the layout board, then Executor.execute(click)) against a
 * bare Playwright screenshot + mouse click in an unrouted context on the same page. The same pair
 * is measured on the fixture's home page, so the ratio shows whether marks and checks make other
 * targets slower than the fixture. Medians of `samples` steps after two warm-up steps.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Browser } from "playwright";
import { loadConfig } from "../../src/config/loader.js";
import { TrialEnvironment } from "../../src/runner/trial/environment.js";
import { Executor } from "../../src/runner/trial/executor.js";
import { LayoutBoard } from "../../src/targets/layout-board.js";
import { startWebTarget } from "../../src/targets/web-target.js";
import type { Target } from "../../src/targets/contract.js";
import { loadTasksOrThrow } from "../../src/task/loader.js";
import type { Task } from "../../src/task/schema.js";
import type { TargetDecl } from "../../src/task/target-decl.js";
import { median, round } from "./stats.js";
import type { BenchWorld } from "./world.js";

export interface AnyAppStepSide {
  /** umpire: observe (with marks on the app) + executor click; ms per step (median). */
  umpireStep: number;
  /** bare: screenshot + mouse click + the same settle; ms per step (median). */
  bareStep: number;
  ratio: number;
  /** Of umpire's step: resolving the marks (0 on the fixture, whose page reports its own). */
  marks: number;
  markCount: number;
}

export interface AnyAppStepBench {
  samples: number;
  app: AnyAppStepSide;
  fixture: AnyAppStepSide;
}

async function measure(
  browser: Browser,
  task: Task,
  target: Target,
  samples: number,
  board: LayoutBoard,
): Promise<AnyAppStepSide> {
  const workspace = mkdtempSync(join(tmpdir(), "umpire-bench-anyapp-"));
  const env = await TrialEnvironment.open({
    browser,
    task,
    trialId: `bench-anyapp-${process.pid}-${target.name}`,
    workspaceDir: workspace,
    target,
    board,
  });
  const bare = await browser.newContext({
    viewport: { width: task.viewport.width, height: task.viewport.height },
    deviceScaleFactor: task.viewport.deviceScaleFactor,
  });
  try {
    const barePage = await bare.newPage();
    await barePage.goto(new URL(task.start.path, `${target.baseUrl}/`).toString(), { waitUntil: "load" });
    let frame = { width: task.viewport.width, height: task.viewport.height };
    const executor = new Executor({
      env,
      task,
      frame: () => frame,
      workspaceDir: workspace,
      recordEffect: async () => undefined,
    });
    // An inert point (the page's bottom-left corner): the click changes nothing, so every step is alike.
    const click = { id: "c", tool: "click" as const, args: { element: "empty corner", x: 5, y: 990 } };
    const umpire: number[] = [];
    const bareTimes: number[] = [];
    const marks: number[] = [];
    let markCount = 0;
    for (let i = 0; i < samples + 2; i++) {
      let t = performance.now();
      const observation = await env.observe();
      frame = { width: observation.width, height: observation.height };
      await executor.execute(click as never, new AbortController().signal);
      const u = performance.now() - t;
      t = performance.now();
      await env.publishMarks();
      const m = performance.now() - t;
      markCount = env.lastLayout?.marks.length ?? 0;
      t = performance.now();
      await barePage.screenshot({ type: "png" });
      await barePage.mouse.click(5, Math.round(task.viewport.height * 0.99));
      const b = performance.now() - t;
      if (i >= 2) {
        umpire.push(u);
        bareTimes.push(b);
        marks.push(target.fixture ? 0 : m);
      }
    }
    const umpireStep = median(umpire);
    const bareStep = median(bareTimes);
    return {
      umpireStep: round(umpireStep),
      bareStep: round(bareStep),
      ratio: round(umpireStep / bareStep, 2),
      marks: round(median(marks)),
      markCount,
    };
  } finally {
    await bare.close();
    await env.close();
    await target.endTrial(`bench-anyapp-${process.pid}-${target.name}`);
    rmSync(workspace, { recursive: true, force: true });
  }
}

export async function benchAnyAppStep(world: BenchWorld, root: string, samples: number): Promise<AnyAppStepBench> {
  const example = resolve(root, "examples/todomvc");
  const config = loadConfig({ cwd: example, file: join(example, "umpire.config.yaml") });
  const decl = (config.data.targets as Record<string, TargetDecl>).todomvc!;
  const [task] = loadTasksOrThrow([join(example, "tasks", "add-todo.yaml")], { cwd: root, targets: { todomvc: decl } });
  const logDir = mkdtempSync(join(tmpdir(), "umpire-bench-anyapp-log-"));
  const app = await startWebTarget({ name: "todomvc", decl, configDir: example, logDir, env: process.env });
  const board = new LayoutBoard();
  try {
    const appSide = await measure(world.browser, task!, app, samples, board);
    const fixtureTask = world.task("answer-only-bb042");
    const fixtureSide = await measure(world.browser, fixtureTask, world.runtime.targets.get("fixture"), samples, board);
    return { samples, app: appSide, fixture: fixtureSide };
  } finally {
    await app.close();
    rmSync(logDir, { recursive: true, force: true });
  }
}
