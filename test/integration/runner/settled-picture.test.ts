/**
 * Issue 37, items 1-3, through `umpire try` (the real CLI, the real reference model, real Chromium)
 * on a real app started by the config's start command (app/settling-app.mjs), whose pages move:
 * - a list that arrives 600 ms after `load` and pushes "Clear all" down: the gold click on it clears
 *   the eight items only if the first picture (and its marks) waited for the list;
 * - a tray that slides in 500 px over 700 ms and a modal that fades and drops in over 600 ms: the gold
 *   clicks on the field and the button inside them land only if the picture waited for the motion;
 * - the same tray starting its slide after the settle wait looked, as the picture is taken (a reply a
 *   script reads a task later): the picture is taken again once the page rests (holdPicture);
 * - every page runs an infinite spinner, which no observation waits for;
 * - a button under a transparent veil: the click aimed at it lands on the veil, as the picture shows
 *   (played as written, as the fixture's "keeps clicking the covered Save" negatives are);
 * - a button moved between the picture and the click (through the real executor): the click's result
 *   says it "missed its mark", which `try` and the self-test read (test/unit/runner/mark-hit.test.ts,
 *   test/unit/authoring/probe-exercise.test.ts).
 * The trial log says what each observation waited for (observation_event metadata.settle).
 */
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser } from "playwright";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium } from "../../../src/browser/chromium.js";
import { TrialEnvironment } from "../../../src/runner/trial/environment.js";
import { Executor } from "../../../src/runner/trial/executor.js";
import { missedMark } from "../../../src/runner/page/mark-hit.js";
import type { Target } from "../../../src/targets/contract.js";
import { startWebTarget } from "../../../src/targets/web-target.js";
import { loadTasksOrThrow } from "../../../src/task/loader.js";
import { TargetDecl } from "../../../src/task/target-decl.js";
import { runCli } from "../../support/cli.js";

const APP = join(import.meta.dirname, "app", "settling-app.mjs");
const dir = mkdtempSync(join(tmpdir(), "umpire-settled-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
mkdirSync(join(dir, "tasks"));
writeFileSync(
  join(dir, "umpire.config.yaml"),
  `targets:\n  settling:\n    baseUrl: http://127.0.0.1:\${PORT}\n    start:\n      command: [${JSON.stringify(process.execPath)}, ${JSON.stringify(APP)}]\n`,
);

function task(id: string, path: string, steps: string[], status: string): void {
  writeFileSync(
    join(dir, `tasks/${id}.yaml`),
    `id: ${id}
title: ${id}
target: settling
instruction: Do the ${id} chore on the page, then answer with the status line it shows.
start: { path: ${path} }
tools: [click, write, answer]
checks:
  - { kind: page, name: the status line, selector: "[data-testid=status]", text: "${status}" }
reference:
${steps.map((s) => `  - ${s}`).join("\n")}
  - { tool: answer, args: { content: "done" } }
`,
  );
}
task("late-list", "/list", ["{ tool: click, target: clear-all }"], "Cleared 8 items");
task(
  "tray",
  "/tray",
  [
    "{ tool: click, target: edit }",
    "{ tool: click, target: name-field }",
    "{ tool: write, args: { content: Ada } }",
    "{ tool: click, target: save }",
  ],
  "Saved name: Ada",
);
task(
  "late-tray",
  "/late-tray",
  [
    "{ tool: click, target: edit }",
    "{ tool: click, target: name-field }",
    "{ tool: write, args: { content: Ada } }",
    "{ tool: click, target: save }",
  ],
  "Saved name: Ada",
);
task("modal", "/modal", ["{ tool: click, target: delete }", "{ tool: click, target: confirm }"], "Deleted record 7");
task("covered", "/covered", ["{ tool: click, target: buy }"], "Bought");

interface LoggedEvent {
  type: string;
  data: { kind?: string; metadata?: { settle?: Record<string, unknown> }; output?: unknown; content?: unknown };
}

/** The events of the one trial `try` played for `id` (its folder is the only one under results/). */
function trialLog(id: string): LoggedEvent[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name));
      else if (e.name === "events.jsonl" && d.includes(id)) found.push(join(d, e.name));
    }
  };
  walk(join(dir, "results"));
  expect(found, `one trial log for ${id}`).toHaveLength(1);
  return readFileSync(found[0]!, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as LoggedEvent);
}

const settles = (events: LoggedEvent[]) =>
  events.filter((e) => e.data.kind === "observation_event").map((e) => e.data.metadata?.settle ?? {});

async function tryGold(id: string) {
  const result = await runCli(["try", id, "--out", `results/${id}`], { cwd: dir, killAfterMs: 180_000 });
  const steps = result.stdout.split("\n").filter((l) => /^[✓✗…] step /.test(l));
  return { result, steps };
}

describe("the picture is the page at rest (#37)", () => {
  it("the first picture waits for the list fetched after load: the gold click lands on Clear all", async () => {
    const { result, steps } = await tryGold("late-list");
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(steps[0]).toMatch(/^✓ step 1 of 2 \(click clear-all\) on mark clear-all at \(\d+, \d+\) of 1000: success/);
    const first = settles(trialLog("late-list"))[0] as { requests?: { settled: boolean; waitedMs: number } };
    expect(first.requests?.settled).toBe(true);
    // The list answers 600 ms after it is asked for, which happens at load.
    expect(first.requests?.waitedMs).toBeGreaterThan(300);
  });

  it("a sliding tray: the picture waits for the slide, the clicks inside it land; the spinner is not waited for", async () => {
    const { result, steps } = await tryGold("tray");
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(steps[1]).toMatch(/^✓ step 2 of 5 \(click name-field\) on mark name-field .*onto mark name-field/);
    const afterEdit = settles(trialLog("tray"))[1] as { animations: number; unfinished: number; ignored: number };
    expect(afterEdit.animations).toBeGreaterThanOrEqual(1);
    expect(afterEdit.unfinished).toBe(0);
    expect(afterEdit.ignored).toBeGreaterThanOrEqual(1);
  });

  it("a tray that starts sliding after the settle wait looked: the picture is taken again once it rests", async () => {
    const { result, steps } = await tryGold("late-tray");
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(steps[1]).toMatch(/^✓ step 2 of 5 \(click name-field\) on mark name-field .*onto mark name-field/);
    const afterEdit = settles(trialLog("late-tray"))[1] as { retaken?: number; animations: number; unfinished: number };
    // The first picture caught the slide starting; the second waited for it to end (on a starved machine the
    // slide may have ended before that wait looked, so how many animations it waited for is not asserted).
    expect(afterEdit.retaken).toBeGreaterThanOrEqual(1);
    expect(afterEdit.unfinished).toBe(0);
  });

  it("a fading modal: the picture waits for it, the click on Confirm lands", async () => {
    const { result, steps } = await tryGold("modal");
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(steps[1]).toMatch(/^✓ step 2 of 3 \(click confirm\) on mark confirm /);
    const afterDelete = settles(trialLog("modal"))[1] as { animations: number; waitedMs: number };
    expect(afterDelete.animations).toBeGreaterThanOrEqual(1);
  });

  it("a click on a mark the picture shows covered lands on the cover: played as written, said so", async () => {
    const { result, steps } = await tryGold("covered");
    // The checks fail (Buy was never reached), but the step was played as the task wrote it.
    expect(result.code, result.stderr + result.stdout).toBe(1);
    expect(steps[0]).toMatch(/^✓ step 1 of 2 \(click buy\) on mark buy .* onto mark veil, which covers its mark buy;/);
    expect(result.stdout).not.toContain("not exercised");
    const results = trialLog("covered").filter((e) => e.data.kind === "tool_result");
    expect(JSON.stringify(results[0])).toContain("which covers its mark buy");
  });
});

describe("a click aimed from a picture the page no longer matches (#37)", () => {
  let browser: Browser;
  let target: Target;
  let env: TrialEnvironment | undefined;
  const decl = TargetDecl.parse({
    baseUrl: "http://127.0.0.1:${PORT}",
    start: { command: [process.execPath, APP], readyUrl: "/" },
  });
  beforeAll(async () => {
    browser = await launchChromium();
    target = await startWebTarget({
      name: "settling",
      decl,
      configDir: dir,
      logDir: dir,
      env: process.env,
    });
  });
  afterAll(async () => {
    await env?.close();
    await browser?.close();
    await target?.close();
  });

  it("says the click missed its mark, and where it landed instead", async () => {
    const [task] = loadTasksOrThrow([join(dir, "tasks/covered.yaml")], { cwd: dir, targets: { settling: decl } });
    const workspaceDir = join(dir, "moved");
    env = await TrialEnvironment.open({ browser, task: task!, trialId: "moved", workspaceDir, target });
    const executor = new Executor({
      env,
      task: task!,
      frame: () => ({ width: 1280, height: 800 }),
      workspaceDir,
      recordEffect: async () => undefined,
    });
    await env.observe();
    const pay = env.lastLayout!.marks.find((m) => m.name === "pay")!;
    const aim = {
      x: Math.round(((pay.x + pay.width / 2) / 1280) * 1000),
      y: Math.round(((pay.y + pay.height / 2) / 800) * 1000),
    };
    // The page changes after the picture, before the click (a list that arrived, a banner that pushed it down).
    await env.page.evaluate(() => (document.getElementById("pay")!.style.marginTop = "300px"));
    const signal = new AbortController().signal;
    const result = await executor.execute(
      { id: "c1", tool: "click", args: { element: "the pay element [pay] on /covered", ...aim } },
      signal,
    );
    expect(result.message).toMatch(/ onto no mark \(under the point: div[^)]*\); it missed its mark pay; input sent/);
    expect(missedMark("pay", result.message)).toMatch(/^missed its mark pay: click sent at/);
  });
});
