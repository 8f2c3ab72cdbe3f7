/**
 * Per-step harness time on MiniWoB++ (issue 42 §3): umpire's real loop on the pack (the pack's target and
 * folder server, the episode capture, the trial log, SQLite, the episode-done stop) against a bare Playwright
 * loop (screenshot, input, the done flag read: what a BrowserGym-style loop does each step) on the same
 * environments and the same seeds of umpire's test pack (examples/miniwob-mini/html).
 *
 * The actions are the oracle's, read from each seeded episode's DOM before the timed runs (an untimed
 * planning pass in a bare page with the same capture and seed), so both loops do the same work and both
 * must end each episode with a reward > 0. umpire's side asks the reference model each turn (a real HTTP
 * round trip; it does not know MiniWoB's tasks) and plays the planned action instead of its answer, as the
 * `step` bench replays; its harness time is the loop's time minus the model's round trips:
 * from the first turn's request (plus the first observation's capture) to the last turn's record, per action.
 * Rounds alternate the two loops, each round a new set of seeds (the pack's seed base = the round; repeat 0).
 */
import { join } from "node:path";
import type { Browser, Page } from "playwright";
import {
  episodeSeed,
  loadMiniwobPack,
  MINIWOB_PACK,
  MINIWOB_SETTINGS,
  startMiniwobTarget,
} from "../../src/packs/miniwob.js";
import { episodeCaptureScript } from "../../src/packs/episode-capture.js";
import { serveFolder } from "../../src/packs/folder-server.js";
import type { AgentSessionLike } from "../../src/runner/trial/loop.js";
import type { PlannedTrial } from "../../src/runner/schedule/trial-plan.js";
import type { TargetSet } from "../../src/targets/target-set.js";
import type { Task } from "../../src/task/schema.js";
import type { ProposedAction } from "../../src/toolbox/tools.js";
import { perform, renderingOptions, screenshot } from "./bare-loop.js";
import { median, ratio, round, sum } from "./stats.js";
import type { BenchWorld } from "./world.js";

/** The test pack's environments the oracle's planner knows (drag-box needs a drag: no tool). */
export const MINIWOB_BENCH_ENVS = ["click-test", "click-button", "enter-text", "click-checkboxes"] as const;

export interface MiniwobEnvFigures {
  env: string;
  /** Actions per episode, per round. */
  steps: number[];
  umpirePerStepMs: number;
  barePerStepMs: number;
  ratio: number;
  /** umpire's stop reasons and verdicts, per round. */
  stops: string[];
  verdicts: string[];
  /** The bare loop's raw rewards, per round. */
  bareRewards: (number | null)[];
}

export interface MiniwobStepBench {
  rounds: number;
  envs: MiniwobEnvFigures[];
  /** Over every episode: harness ms per step (sum of harness time over sum of steps), median over rounds. */
  umpirePerStepMs: number;
  barePerStepMs: number;
  ratio: number;
  overheadPerStepMs: number;
  /** umpire's parts per step (medians over rounds): executor, observation capture, the rest. */
  umpireParts: { executor: number; capture: number; other: number };
  bareParts: { actionAndSettle: number; screenshot: number; doneRead: number };
  episodes: number;
  passed: number;
  viewport: string;
  /** The pictures both loops took (checked equal: the same PNG size at the same scale), e.g. "498x321 PNG". */
  picture: string;
}

interface Timed {
  harnessMs: number;
  executorMs: number;
  captureMs: number;
  steps: number;
}

/** Reads the utterance and the DOM of a test-pack episode: the oracle's steps, points in CSS px. */
const PLANNER = String.raw`(() => {
  var text = (document.getElementById("query") || {}).textContent || "";
  text = text.replace(/\s+/g, " ").trim();
  function centre(el) {
    if (!el) throw new Error("planner: no element for " + JSON.stringify(text));
    var r = el.getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  }
  var buttons = Array.from(document.querySelectorAll("#area button"));
  function byText(list, t) { return list.find(function (e) { return (e.textContent || "").trim() === t; }); }
  var steps = [];
  var m;
  if (/^Click the button\.?$/.test(text)) steps.push({ click: centre(buttons[0]) });
  else if ((m = /^Click on the "(.+)" button\.?$/.exec(text))) steps.push({ click: centre(byText(buttons, m[1])) });
  else if ((m = /^Enter "(.+)" into the text field and press Submit\.?$/.exec(text))) {
    steps.push({ click: centre(document.querySelector("#area input[type=text]")) }, { write: m[1] });
    steps.push({ click: centre(byText(buttons, "Submit")) });
  } else if ((m = /^Select (.+) and click Submit\.?$/.exec(text))) {
    var wanted = m[1] === "nothing" ? [] : m[1].split(/,\s*/);
    var labels = Array.from(document.querySelectorAll("#area label"));
    wanted.forEach(function (w) { steps.push({ click: centre(byText(labels, w)) }); });
    steps.push({ click: centre(byText(buttons, "Submit")) });
  } else throw new Error("planner: no plan for " + JSON.stringify(text));
  return steps;
})()`;

/** The oracle's actions for the episode on `page`, in [0, 1000] of the screenshot, read from its DOM. */
async function planEpisode(page: Page, task: Task): Promise<ProposedAction[]> {
  const { width, height } = task.viewport;
  // A source string, not a function: tsx would name the inner arrows with a helper the page does not have.
  const plan = (await page.evaluate(PLANNER)) as ({ click: { x: number; y: number } } | { write: string })[];
  return plan.map((step, i) =>
    "write" in step
      ? { id: `p${i}`, tool: "write", args: { content: step.write, press_enter: false } }
      : {
          id: `p${i}`,
          tool: "click",
          args: {
            element: "planned",
            x: Math.round((step.click.x / width) * 1000),
            y: Math.round((step.click.y / height) * 1000),
          },
        },
  ) as ProposedAction[];
}

/** A bare page at the episode of `seed`: BrowserGym's viewport, the same capture and start as umpire's. */
async function bareEpisode(browser: Browser, origin: string, task: Task, seed: number) {
  const context = await browser.newContext(renderingOptions(task));
  await context.addInitScript(
    episodeCaptureScript({ seed, episodeMaxMs: MINIWOB_SETTINGS.episodeMaxMs, origin, removeDisplay: true }),
  );
  const page = await context.newPage();
  await page.goto(new URL(task.start.path, `${origin}/`).toString(), { waitUntil: "load" });
  await page.waitForFunction("window.__umpireEpisode && window.__umpireEpisode().started === true");
  return { context, page };
}

/** The bare loop: per step a screenshot, the input, a settle on in-flight requests, the done flag read. */
async function bareRun(browser: Browser, origin: string, task: Task, seed: number, actions: ProposedAction[]) {
  const { context, page } = await bareEpisode(browser, origin, task, seed);
  try {
    let inflight = 0;
    page.on("request", () => (inflight += 1));
    page.on("requestfinished", () => (inflight = Math.max(0, inflight - 1)));
    page.on("requestfailed", () => (inflight = Math.max(0, inflight - 1)));
    const frame = {
      width: task.viewport.width * task.viewport.deviceScaleFactor,
      height: task.viewport.height * task.viewport.deviceScaleFactor,
    };
    const parts = { actionAndSettle: 0, screenshot: 0, doneRead: 0 };
    let steps = 0;
    let done = false;
    let picture = "";
    for (const action of actions) {
      if (done) break;
      let t = performance.now();
      const png = await screenshot(page);
      parts.screenshot += performance.now() - t;
      picture = `${png.readUInt32BE(16)}x${png.readUInt32BE(20)} PNG`;
      t = performance.now();
      await perform(page, action, frame, task.viewport.deviceScaleFactor);
      while (inflight > 0) await new Promise((r) => setTimeout(r, 25));
      parts.actionAndSettle += performance.now() - t;
      t = performance.now();
      done = (await page.evaluate("window.__umpireEpisode().done === true")) as boolean;
      parts.doneRead += performance.now() - t;
      steps += 1;
    }
    const reward = (await page.evaluate("window.__umpireEpisode().rawReward")) as number | null;
    return { steps, parts, reward, picture, totalMs: parts.screenshot + parts.actionAndSettle + parts.doneRead };
  } finally {
    await context.close().catch(() => undefined);
  }
}

/** One round of umpire's loop on every environment (seed base = round), timed from the session's side. */
async function umpireRound(
  world: BenchWorld,
  htmlDir: string,
  tasks: Task[],
  round: number,
  plans: Map<string, ProposedAction[]>,
): Promise<Map<string, Timed & { stop: string; verdict: string; picture: string }>> {
  const target = await startMiniwobTarget({ htmlDir, seedBase: round });
  const targets: TargetSet = { get: () => target, all: () => [target], close: () => target.close() };
  const timing = new Map<string, { first: number; capture: number; modelMs: number; last: number; played: number }>();
  const executorMs = new Map<string, number>();
  const pictures = new Map<string, string>();
  const wrap = (session: AgentSessionLike, trial: PlannedTrial): AgentSessionLike => ({
    async nextTurn(observation, signal) {
      const t0 = performance.now();
      pictures.set(trial.task.id, `${observation.width}x${observation.height} PNG`);
      const turn = await session.nextTurn(observation, signal);
      const plan = plans.get(trial.task.id)!;
      const at = timing.get(trial.task.id) ?? {
        first: t0,
        capture: observation.captureMs,
        modelMs: 0,
        last: 0,
        played: 0,
      };
      timing.set(trial.task.id, at);
      at.modelMs += turn.timing.modelMs;
      const next = plan[at.played];
      // Past the plan (an episode the planned actions did not end): the model's own answer ends the trial.
      if (!next) return turn;
      if (turn.outcome !== "actions" || turn.actions.length !== 1)
        throw new Error(`bench miniwob: turn ${at.played + 1} of ${trial.task.id} was not a one-action turn`);
      at.played += 1;
      return { ...turn, actions: [{ ...next, id: turn.actions[0]!.id }] };
    },
    addResults: (results) => session.addResults(results),
    addUserText: (text) => session.addUserText(text),
    // The path of every model but the reference one: observations do not wait for a layout report.
    readsPageLayout: false,
  });
  try {
    const run = await world.run({
      tasks,
      model: "reference",
      mode: "structured",
      concurrency: 1,
      wrapSession: wrap,
      targets,
      reporters: [
        {
          onStep: (trial, turn) => {
            const at = timing.get(trial.task.id);
            if (at) at.last = performance.now();
            executorMs.set(trial.task.id, (executorMs.get(trial.task.id) ?? 0) + sum(turn.actions.map((a) => a.ms)));
          },
        },
      ],
    });
    const out = new Map<string, Timed & { stop: string; verdict: string; picture: string }>();
    for (const trial of run.trials) {
      const at = timing.get(trial.task.id);
      const stored = world.store.trials(trial.id.slice(0, trial.id.lastIndexOf("-"))).find((t) => t.id === trial.id);
      if (!at || !stored) throw new Error(`bench miniwob: no timing for ${trial.task.id}`);
      const harnessMs = at.last - at.first + at.capture - at.modelMs;
      out.set(trial.task.id, {
        harnessMs,
        executorMs: executorMs.get(trial.task.id) ?? 0,
        captureMs: stored.captureMs ?? 0,
        steps: at.played,
        stop: stored.stopReason ?? "none",
        verdict: stored.verdict ?? "none",
        picture: pictures.get(trial.task.id) ?? "none",
      });
    }
    return out;
  } finally {
    await target.close();
  }
}

export async function benchMiniwobStep(
  world: BenchWorld,
  root: string,
  options: { rounds: number },
): Promise<MiniwobStepBench> {
  const pack = loadMiniwobPack({ dir: join(root, "examples/miniwob-mini/html"), tasks: [...MINIWOB_BENCH_ENVS] });
  const server = await serveFolder(pack.htmlDir);
  const byEnv = new Map<
    string,
    {
      umpire: Timed[];
      bare: { totalMs: number; steps: number }[];
      stops: string[];
      verdicts: string[];
      rewards: (number | null)[];
    }
  >();
  const umpireParts: { executor: number; capture: number; other: number }[] = [];
  const bareParts: { actionAndSettle: number; screenshot: number; doneRead: number }[] = [];
  const umpireRounds: number[] = [];
  let picture = "";
  const bareRounds: number[] = [];
  try {
    // Round 0 is the warm-up (JIT, the servers' first requests): planned and played, not counted.
    for (let round = 0; round <= options.rounds; round++) {
      const plans = new Map<string, ProposedAction[]>();
      for (const task of pack.tasks) {
        const seed = episodeSeed(task.id, 0, round);
        const { context, page } = await bareEpisode(world.browser, server.url, task, seed);
        plans.set(task.id, await planEpisode(page, task).finally(() => context.close()));
      }
      const umpire = await umpireRound(world, pack.htmlDir, pack.tasks, round, plans);
      const roundBare = { total: 0, steps: 0, parts: { actionAndSettle: 0, screenshot: 0, doneRead: 0 } };
      const roundUmpire = { harness: 0, executor: 0, capture: 0, steps: 0 };
      for (const task of pack.tasks) {
        const seed = episodeSeed(task.id, 0, round);
        const bare = await bareRun(world.browser, server.url, task, seed, plans.get(task.id)!);
        const mine = umpire.get(task.id)!;
        // Like with like: both loops send the same picture (a PNG of the same size at the task's scale).
        if (bare.picture !== mine.picture)
          throw new Error(
            `bench miniwob: ${task.id}: umpire's picture ${mine.picture}, the bare loop's ${bare.picture}`,
          );
        picture = mine.picture;
        if (round === 0) continue;
        const env = task.id.replace(`${MINIWOB_PACK}-`, "");
        const entry = byEnv.get(env) ?? { umpire: [], bare: [], stops: [], verdicts: [], rewards: [] };
        byEnv.set(env, entry);
        entry.umpire.push(mine);
        entry.bare.push({ totalMs: bare.totalMs, steps: bare.steps });
        entry.stops.push(mine.stop);
        entry.verdicts.push(mine.verdict);
        entry.rewards.push(bare.reward);
        roundBare.total += bare.totalMs;
        roundBare.steps += bare.steps;
        for (const k of ["actionAndSettle", "screenshot", "doneRead"] as const) roundBare.parts[k] += bare.parts[k];
        roundUmpire.harness += mine.harnessMs;
        roundUmpire.executor += mine.executorMs;
        roundUmpire.capture += mine.captureMs;
        roundUmpire.steps += mine.steps;
      }
      if (round === 0) continue;
      umpireRounds.push(roundUmpire.harness / roundUmpire.steps);
      bareRounds.push(roundBare.total / roundBare.steps);
      const per = (v: number) => v / roundUmpire.steps;
      umpireParts.push({
        executor: per(roundUmpire.executor),
        capture: per(roundUmpire.capture),
        other: per(roundUmpire.harness - roundUmpire.executor - roundUmpire.capture),
      });
      bareParts.push({
        actionAndSettle: roundBare.parts.actionAndSettle / roundBare.steps,
        screenshot: roundBare.parts.screenshot / roundBare.steps,
        doneRead: roundBare.parts.doneRead / roundBare.steps,
      });
    }
  } finally {
    await server.close();
  }
  const envs: MiniwobEnvFigures[] = [...byEnv].map(([env, e]) => {
    const u = median(e.umpire.map((t) => t.harnessMs / t.steps));
    const b = median(e.bare.map((t) => t.totalMs / t.steps));
    return {
      env,
      steps: e.umpire.map((t) => t.steps),
      umpirePerStepMs: round(u),
      barePerStepMs: round(b),
      ratio: ratio(u, b),
      stops: e.stops,
      verdicts: e.verdicts,
      bareRewards: e.rewards,
    };
  });
  const u = median(umpireRounds);
  const b = median(bareRounds);
  const med = <T>(list: T[], pick: (x: T) => number) => round(median(list.map(pick)));
  return {
    rounds: options.rounds,
    envs,
    umpirePerStepMs: round(u),
    barePerStepMs: round(b),
    ratio: ratio(u, b),
    overheadPerStepMs: round(u - b),
    umpireParts: {
      executor: med(umpireParts, (p) => p.executor),
      capture: med(umpireParts, (p) => p.capture),
      other: med(umpireParts, (p) => p.other),
    },
    bareParts: {
      actionAndSettle: med(bareParts, (p) => p.actionAndSettle),
      screenshot: med(bareParts, (p) => p.screenshot),
      doneRead: med(bareParts, (p) => p.doneRead),
    },
    episodes: envs.reduce((n, e) => n + e.verdicts.length, 0),
    passed: envs.reduce((n, e) => n + e.verdicts.filter((v) => v === "passed").length, 0),
    viewport: `${MINIWOB_SETTINGS.viewport.width}x${MINIWOB_SETTINGS.viewport.height} at ${MINIWOB_SETTINGS.viewport.deviceScaleFactor}x`,
    picture,
  };
}
