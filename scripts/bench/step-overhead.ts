/**
 * Per-step harness time: umpire's real loop (observe -> model -> executor -> results -> store,
 * with the repetition guard, the trial log and SQLite) against a bare Playwright loop replaying
 * the very same actions on the same site in the same browser.
 *
 * umpire's side is a real trial of `scorecard-note-bb042` on the gold reference model, run
 * through executeTrials. The agent session is wrapped to timestamp each model turn, so a step
 * is measured exactly: from the end of turn k (the model has answered) to the end of turn k+1,
 * minus the model time of turn k+1 (the HTTP round trip the client reports as modelMs). That
 * leaves the executor (input + settle), the observation, the guard, the log, the store and the
 * client's own request building and parsing: everything the harness adds.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { AgentSessionLike } from "../../src/runner/trial/loop.js";
import { trialFolderName } from "../../src/runner/schedule/trial-plan.js";
import type { PlannedTrial } from "../../src/runner/schedule/trial-plan.js";
import type { Task } from "../../src/task/schema.js";
import { replayBare, type BareStep, type ReplayAction } from "./bare-loop.js";
import { attributeStep, type StepAttribution } from "./step-attribution.js";
import { median, ratio, round, sum, summarize, type Summary } from "./stats.js";
import type { BenchWorld } from "./world.js";

export const STEP_TASK = "scorecard-note-bb042";

export interface UmpireStep {
  tool: string;
  /** End of turn k to end of turn k+1. */
  wallMs: number;
  modelMs: number;
  /** wall - model: the harness's time for this step. */
  harnessMs: number;
  /** The executor's own time for the actions (validation, input, settle). */
  executorMs: number;
  /** observe(): layout flush, screenshot, hash, volatile regions. */
  captureMs: number;
  /** Inside nextTurn but outside modelMs: request building (base64, JSON), parsing, the bridge. */
  clientMs: number;
  /** The rest: repetition guard, trial log, store, results. */
  bookkeepingMs: number;
}

export interface StepBench {
  task: string;
  repeats: number;
  stepsPerTrial: number;
  /** Mean over the trial's steps of each step's median over the repeats. */
  umpirePerStepMs: number;
  /**
   * The same trials with observations that do not wait for the fixture's layout report: the path
   * umpire takes for every model but the reference model (which grounds on that report and may
   * then read one a moment old). Null when such a trial did not pass or took other actions.
   */
  noLayoutWait: {
    perStepMs: number;
    ratio: number;
    verdicts: string[];
    capturePerStepMs: number;
    documentWaits: DocumentWaits;
  } | null;
  barePerStepMs: number;
  ratio: number;
  overheadPerStepMs: number;
  umpireBreakdownPerStepMs: { executor: number; capture: number; client: number; bookkeeping: number };
  bareBreakdownPerStepMs: { actionAndSettle: number; screenshot: number };
  /** Medians over every sample of that tool, with umpire's parts and the bare loop's. */
  byTool: Record<
    string,
    {
      n: number;
      umpireMedianMs: number;
      bareMedianMs: number;
      ratio: number;
      umpireParts: { executor: number; capture: number; client: number; bookkeeping: number };
      bareParts: { actionAndSettle: number; screenshot: number };
    }
  >;
  allSteps: { umpireHarness: Summary; bare: Summary };
  /** Each step of the trajectory: medians over the repeats. */
  trajectory: {
    tool: string;
    umpireMs: number;
    bareMs: number;
    umpire: { executor: number; capture: number; bookkeeping: number };
    bare: { actionAndSettle: number; screenshot: number };
  }[];
  verdicts: string[];
  /** Whether each bare replay did the same work: saved the note, never left umpire's pages. */
  bareReplays: { savedNote: boolean; offTrack: number }[];
  attribution: StepAttribution;
}

/** Observations that waited for a document an input asked for, and those whose wait ran out (summed over trials). */
export interface DocumentWaits {
  waited: number;
  timedOut: number;
}

/** The trial's document waits, from the metrics event of its log. */
function documentWaitsOf(world: BenchWorld, trial: PlannedTrial): DocumentWaits {
  const runId = trial.id.slice(0, trial.id.lastIndexOf("-"));
  const file = join(world.dir, runId, trialFolderName(trial, 1), "events.jsonl");
  const waits = { waited: 0, timedOut: 0 };
  for (const line of readFileSync(file, "utf8").split("\n")) {
    if (!line.includes("MetricsUpdateEvent")) continue;
    const documents = (JSON.parse(line) as { data?: { metrics?: { waits?: { documents?: DocumentWaits } } } }).data
      ?.metrics?.waits?.documents;
    if (documents) return documents;
  }
  return waits;
}

interface TurnTiming {
  t0: number;
  t1: number;
  modelMs: number;
  captureMs: number;
  replay: ReplayAction[];
}

/**
 * One real umpire trial, timed step by step. With `probePaths` (the untimed warm-up only), the
 * page each observation showed is read from the fixture's layout report before each turn, so
 * the bare replay can follow the same pages.
 */
async function umpireTrial(
  world: BenchWorld,
  task: Task,
  options: { probePaths?: boolean; readsPageLayout?: false; replay?: ReplayAction[] } = {},
): Promise<{ steps: UmpireStep[]; replay: ReplayAction[]; verdict: string; documentWaits: DocumentWaits }> {
  const { probePaths = false, readsPageLayout, replay: script } = options;
  const turns: TurnTiming[] = [];
  const paths: (string | undefined)[] = [];
  const executorMs = new Map<number, number>();
  let scripted = 0;
  const wrap = (session: AgentSessionLike, trial: PlannedTrial): AgentSessionLike => ({
    async nextTurn(observation, signal) {
      if (probePaths) paths.push((await world.runtime.fixtures.client.layout(trial.id).catch(() => null))?.path);
      const t0 = performance.now();
      let turn = await session.nextTurn(observation, signal);
      // A replay: the model is still asked (its request, answer and time are real), but the turn
      // carries the warm-up's next action, so a model that grounds differently takes the same path.
      if (script && turn.outcome === "actions" && turn.actions.length === 1 && scripted < script.length) {
        const next = script[scripted++]!;
        turn = { ...turn, actions: [{ ...next.action, id: turn.actions[0]!.id }] };
      }
      const t1 = performance.now();
      const frame = { width: observation.width, height: observation.height };
      turns.push({
        t0,
        t1,
        modelMs: turn.timing.modelMs,
        captureMs: observation.captureMs,
        replay: turn.actions.map((action) => ({ action, frame })),
      });
      return turn;
    },
    addResults: (results) => session.addResults(results),
    addUserText: (text) => session.addUserText(text),
    // Unset: the observation waits for the fixture's layout report, as for the reference model.
    // false: the path of every other model (Holo, any endpoint), which never reads that report.
    ...(readsPageLayout === false ? { readsPageLayout } : {}),
  });
  const run = await world.run({
    tasks: [task],
    model: "reference",
    mode: "structured",
    concurrency: 1,
    wrapSession: wrap,
    reporters: [{ onStep: (_trial, turn) => executorMs.set(turn.idx, sum(turn.actions.map((a) => a.ms))) }],
  });
  const steps: UmpireStep[] = [];
  for (let k = 0; k + 1 < turns.length; k++) {
    const here = turns[k]!;
    const next = turns[k + 1]!;
    const wallMs = next.t1 - here.t1;
    const harnessMs = wallMs - next.modelMs;
    const exec = executorMs.get(k + 1) ?? 0;
    const clientMs = next.t1 - next.t0 - next.modelMs;
    steps.push({
      tool: here.replay.map((r) => r.action.tool).join("+"),
      wallMs,
      modelMs: next.modelMs,
      harnessMs,
      executorMs: exec,
      captureMs: next.captureMs,
      clientMs,
      bookkeepingMs: harnessMs - exec - next.captureMs - clientMs,
    });
  }
  // The page after the actions of turn k is the one the observation before turn k+1 showed.
  const replay = turns.flatMap((t, k) =>
    t.replay.map((r) => (paths[k + 1] !== undefined ? { ...r, expectPath: paths[k + 1] } : r)),
  );
  const documentWaits = run.trials[0] ? documentWaitsOf(world, run.trials[0]) : { waited: 0, timedOut: 0 };
  return { steps, replay, verdict: run.result.ends[0]?.verdict ?? "missing", documentWaits };
}

/** Per step index, the median over repeats of `pick`; then the mean over steps. */
function perStep<T>(runs: T[][], pick: (s: T) => number): number {
  const steps = Math.min(...runs.map((r) => r.length));
  const medians = Array.from({ length: steps }, (_, k) => median(runs.map((r) => pick(r[k]!))));
  return round(sum(medians) / steps);
}

export async function benchStepOverhead(
  world: BenchWorld,
  options: { repeats: number; attributionSamples: number },
): Promise<StepBench> {
  const task = world.task(STEP_TASK);
  // Warm-up (untimed): pays one-off costs (JIT, the servers' first requests) and records the
  // pages the trajectory goes through, which every bare replay then follows.
  const warm = await umpireTrial(world, task, { probePaths: true });
  if (warm.verdict !== "passed")
    throw new Error(
      `the warm-up trial of ${task.id} did not pass (${warm.verdict}); the benchmark needs the gold trajectory`,
    );
  const expected = warm.replay.map((r) => r.expectPath);
  const follow = (replay: ReplayAction[]): ReplayAction[] => {
    if (replay.map((r) => r.action.tool).join() !== warm.replay.map((r) => r.action.tool).join()) {
      throw new Error(
        `the trial of ${task.id} took other actions than the warm-up; the gold trajectory should not vary: ${replay.map((r) => r.action.tool).join()} vs ${warm.replay.map((r) => r.action.tool).join()}`,
      );
    }
    return replay.map((r, i) => (expected[i] !== undefined ? { ...r, expectPath: expected[i] } : r));
  };
  await replayBare(world.browser, world.runtime.fixtures, task, warm.replay);

  const umpireRuns: UmpireStep[][] = [];
  const noWaitRuns: UmpireStep[][] = [];
  const noWaitVerdicts: string[] = [];
  const noWaitDocumentWaits: DocumentWaits = { waited: 0, timedOut: 0 };
  const bareRuns: BareStep[][] = [];
  const verdicts: string[] = [];
  const replays: { savedNote: boolean; offTrack: number }[] = [];
  // Interleaved, so a change in the machine's load hits both sides alike.
  for (let i = 0; i < options.repeats; i++) {
    const trial = await umpireTrial(world, task);
    umpireRuns.push(trial.steps);
    verdicts.push(trial.verdict);
    const noWait = await umpireTrial(world, task, { readsPageLayout: false, replay: warm.replay });
    noWaitVerdicts.push(noWait.verdict);
    noWaitDocumentWaits.waited += noWait.documentWaits.waited;
    noWaitDocumentWaits.timedOut += noWait.documentWaits.timedOut;
    if (
      noWait.verdict === "passed" &&
      noWait.replay.map((r) => r.action.tool).join() === trial.replay.map((r) => r.action.tool).join()
    )
      noWaitRuns.push(noWait.steps);
    const bare = await replayBare(world.browser, world.runtime.fixtures, task, follow(trial.replay));
    bareRuns.push(bare.steps);
    replays.push({ savedNote: bare.effects.includes("note_saved"), offTrack: bare.offTrack });
  }

  const umpirePerStepMs = perStep(umpireRuns, (s) => s.harnessMs);
  const barePerStepMs = perStep(bareRuns, (s) => s.totalMs);
  const noWaitPerStep = noWaitRuns.length === options.repeats ? perStep(noWaitRuns, (s) => s.harnessMs) : null;
  const noLayoutWait =
    noWaitPerStep === null
      ? null
      : {
          perStepMs: noWaitPerStep,
          ratio: ratio(noWaitPerStep, barePerStepMs),
          verdicts: noWaitVerdicts,
          capturePerStepMs: perStep(noWaitRuns, (s) => s.captureMs),
          documentWaits: noWaitDocumentWaits,
        };
  const byTool: StepBench["byTool"] = {};
  for (const tool of new Set(umpireRuns.flat().map((s) => s.tool))) {
    const us = umpireRuns.flat().filter((s) => s.tool === tool);
    const bs = bareRuns.flat().filter((s) => s.tool === tool);
    const u = us.map((s) => s.harnessMs);
    const b = bs.map((s) => s.totalMs);
    const med = <T>(list: T[], pick: (s: T) => number) => round(median(list.map(pick)));
    byTool[tool] = {
      n: u.length,
      umpireMedianMs: round(median(u)),
      bareMedianMs: round(median(b)),
      ratio: ratio(median(u), median(b)),
      umpireParts: {
        executor: med(us, (s) => s.executorMs),
        capture: med(us, (s) => s.captureMs),
        client: med(us, (s) => s.clientMs),
        bookkeeping: med(us, (s) => s.bookkeepingMs),
      },
      bareParts: { actionAndSettle: med(bs, (s) => s.actionMs), screenshot: med(bs, (s) => s.screenshotMs) },
    };
  }
  return {
    task: task.id,
    repeats: options.repeats,
    stepsPerTrial: umpireRuns[0]?.length ?? 0,
    umpirePerStepMs,
    noLayoutWait,
    barePerStepMs,
    ratio: ratio(umpirePerStepMs, barePerStepMs),
    overheadPerStepMs: round(umpirePerStepMs - barePerStepMs),
    umpireBreakdownPerStepMs: {
      executor: perStep(umpireRuns, (s) => s.executorMs),
      capture: perStep(umpireRuns, (s) => s.captureMs),
      client: perStep(umpireRuns, (s) => s.clientMs),
      bookkeeping: perStep(umpireRuns, (s) => s.bookkeepingMs),
    },
    bareBreakdownPerStepMs: {
      actionAndSettle: perStep(bareRuns, (s) => s.actionMs),
      screenshot: perStep(bareRuns, (s) => s.screenshotMs),
    },
    byTool,
    trajectory: (umpireRuns[0] ?? []).map((step, k) => {
      const med = <T>(runs: T[][], pick: (s: T) => number) => round(median(runs.map((r) => pick(r[k]!))));
      return {
        tool: step.tool,
        umpireMs: med(umpireRuns, (s) => s.harnessMs),
        bareMs: med(bareRuns, (s) => s.totalMs),
        umpire: {
          executor: med(umpireRuns, (s) => s.executorMs),
          capture: med(umpireRuns, (s) => s.captureMs),
          bookkeeping: med(umpireRuns, (s) => s.bookkeepingMs),
        },
        bare: { actionAndSettle: med(bareRuns, (s) => s.actionMs), screenshot: med(bareRuns, (s) => s.screenshotMs) },
      };
    }),
    allSteps: {
      umpireHarness: summarize(umpireRuns.flat().map((s) => s.harnessMs)),
      bare: summarize(bareRuns.flat().map((s) => s.totalMs)),
    },
    verdicts,
    bareReplays: replays,
    attribution: await attributeStep(world, task, options.attributionSamples),
  };
}
