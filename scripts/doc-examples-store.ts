/**
 * The store docs/reporting.md's "Output, as printed" examples are printed from: two runs of four tasks x
 * two modes x three repeats on holo3-1-35b-a3b, written through umpire's own Store API as the run loop
 * writes them (createRun, addTrials, startTrial, recordTurn, recordActions, finishTrial, finishRun).
 * Tokens and times are made up, and fixed: every id, timestamp, duration and cost comes from the tables
 * below, never from the clock or the machine, so the examples print the same on any machine and day.
 *
 * The story: the baseline (`main`) passes 23 of 24, compare-two flaky in structured mode; the candidate
 * (`pr-118`) passes 14: save-bb042 now writes the wrong match's note in both modes (a false success),
 * and cookie-reject passes 1 of 3 per mode, the others stopped at the turn cap.
 */
import { createHash } from "node:crypto";
import { costOfUsage, DEFAULT_PRICES } from "../src/pricing.js";
import type { RunEnvironment } from "../src/runtime/run-environment.js";
import type { CheckInput, RunCpu, TrialRecord } from "../src/store/records.js";
import type { Store } from "../src/store/store.js";
import type { OutputMode, StopReason, Usage } from "../src/vocabulary.js";

export const EXAMPLE_MODEL = "holo3-1-35b-a3b";
export const BASELINE_RUN = "20250611-091240-19f6";
export const CANDIDATE_RUN = "20250612-143005-d2a4";

/** The two Holo modes the example runs compare (`--mode both`). */
type ExampleMode = Extract<OutputMode, "structured" | "tools">;
const MODES: readonly ExampleMode[] = ["structured", "tools"];
const REPEATS = 3;

/** How one task goes when it goes well, per mode: the figures every passing trial of it is made from. */
interface TaskShape {
  id: string;
  title: string;
  tags: string[];
  /** The clicks, keys and text the agent sends, in order (repeated when a trial plays more turns). */
  steps: Step[];
  checks: (outcome: Outcome) => Omit<CheckInput, "ms" | "evidence">[];
}

/** A passing trial's figures: what a trial of the task in that mode costs when it goes well. */
interface Figures {
  turns: number;
  /** Actions beyond one per turn (function calling proposes two in its first turn). */
  extraActions: number;
  inputTokens: number;
  outputTokens: number;
  wallMs: number;
}

/**
 * The figures of the `k`th task (in TASKS' order) in `mode`, made up by one rule: each task takes one
 * turn more than the one before; function calling one turn fewer than structured output, with more
 * input (its tool definitions) and less output (no JSON wrapper).
 */
function figuresOf(k: number, mode: ExampleMode): Figures {
  const tools = mode === "tools";
  return {
    turns: 6 + k - (tools ? 1 : 0),
    extraActions: tools ? 1 : 0,
    inputTokens: 21_166 + 4_000 * k + (tools ? 2_500 : 0),
    outputTokens: 397 + 60 * k - (tools ? 90 : 0),
    wallMs: 14_000 + 3_100 * k - (tools ? 1_800 : 0),
  };
}

/** What happened in one trial, besides the task's figures. */
type Outcome = "passed" | "wrong-note" | "wrong-answer" | "turn-cap";

/** One action the agent proposes, with the note it wrote beside it. */
interface Step {
  tool: string;
  args: Record<string, unknown>;
  message: string;
  note: string;
}

const click = (x: number, y: number, mark: string, note: string): Step => ({
  tool: "click",
  args: { x, y },
  message: `input sent (click at ${x},${y} css px)`,
  note: `${note} (${mark})`,
});
const write = (content: string, note: string): Step => ({
  tool: "write",
  args: { content },
  message: `typed ${content.length} characters`,
  note,
});
const press = (key: string, note: string): Step => ({
  tool: "press",
  args: { keys: [key] },
  message: `pressed ${key}`,
  note,
});

const SEARCH = [
  click(640, 212, "search-box", "Home page open; focusing the search box"),
  write("BB-042", "Typing the match id"),
  press("Enter", "Submitting the search"),
  click(402, 188, "result-BB-042", "Opening the first hit"),
];

const ADD_NOTE = click(1030, 96, "add-note", "Scorecard open; adding a note");

const NOTE_CHECK = (pass: boolean, reason: string) => ({
  kind: "file",
  name: "note names BB-042",
  required: true,
  pass,
  confidence: "verified" as const,
  reason,
});

const TASKS: readonly TaskShape[] = [
  {
    id: "save-bb042",
    title: "Save a note on match BB-042",
    tags: ["trap"],
    steps: [
      ...SEARCH,
      ADD_NOTE,
      click(527, 524, "note-save", "Note filled in; saving"),
      click(590, 410, "confirm-save", "Confirming the save"),
    ],
    checks: (outcome) => [
      outcome === "wrong-note"
        ? NOTE_CHECK(false, "notes/BB-042.md names BB-024 (Wankhede, 2024-04-11), expected BB-042")
        : NOTE_CHECK(true, "notes/BB-042.md has 168/6, 169/4 and the result line"),
    ],
  },
  {
    id: "cookie-reject",
    title: "Reject cookies, then save the BB-042 note",
    tags: ["dialog"],
    steps: [
      ...SEARCH,
      ADD_NOTE,
      click(700, 610, "cookie-reject", "A cookie dialog covers Save; rejecting all"),
      click(527, 524, "note-save", "Dialog gone; saving"),
      click(590, 410, "confirm-save", "Confirming the save"),
    ],
    checks: (outcome) => [
      {
        kind: "file",
        name: "note saved",
        required: true,
        pass: outcome === "passed",
        confidence: "verified",
        reason: outcome === "passed" ? "notes/BB-042.md exists with the scorecard" : "notes/BB-042.md does not exist",
      },
      {
        kind: "effects",
        name: "cookies rejected",
        required: true,
        pass: true,
        confidence: "verified",
        reason: "cookie_choice reject recorded once",
      },
    ],
  },
  {
    id: "lazy-scorecard",
    title: "Read BB-042's result once the scorecard has loaded",
    tags: ["wait"],
    steps: [...SEARCH, { tool: "wait", args: { seconds: 2 }, message: "waited 2 s", note: "Spinner shown; waiting" }],
    checks: () => [
      {
        kind: "answer",
        name: "answer has the result",
        required: true,
        pass: true,
        confidence: "verified",
        reason: 'answer contains "Jaipur Kites won by 6 wickets"',
      },
    ],
  },
  {
    id: "compare-two",
    title: "Compare the venues of BB-042 and BB-024",
    tags: ["reading"],
    steps: [
      ...SEARCH,
      click(88, 64, "back-home", "BB-042's venue read; back to search"),
      click(640, 212, "search-box", "Focusing the search box"),
      write("BB-024", "Typing the second match id"),
      press("Enter", "Submitting the search"),
    ],
    checks: (outcome) => [
      {
        kind: "answer",
        name: "answer names both venues",
        required: true,
        pass: outcome !== "wrong-answer",
        confidence: "verified",
        reason:
          outcome === "wrong-answer"
            ? "answer gives Eden Gardens for both matches; BB-024 was played at Wankhede"
            : "answer names Eden Gardens (BB-042) and Wankhede (BB-024)",
      },
    ],
  },
];

/** One trial's outcome in each run: the story above, by task, mode and repeat. */
function outcomeOf(run: string, task: string, mode: ExampleMode, repeat: number): Outcome {
  if (run === BASELINE_RUN)
    return task === "compare-two" && mode === "structured" && repeat === 2 ? "wrong-answer" : "passed";
  if (task === "save-bb042") return "wrong-note";
  if (task === "cookie-reject" && repeat > 0) return "turn-cap";
  return "passed";
}

/** The turn cap of the example runs (`--max-turns`), where cookie-reject's stuck trials stop. */
const TURN_CAP = 10;

const STOPS: Record<Outcome, { stopReason: StopReason; stopDetail: string; claimed: boolean }> = {
  passed: { stopReason: "answered", stopDetail: "model finished, checks passed", claimed: true },
  "wrong-note": { stopReason: "answered", stopDetail: "model finished, note wrong", claimed: true },
  "wrong-answer": { stopReason: "answered", stopDetail: "model finished, answer wrong", claimed: true },
  "turn-cap": { stopReason: "turn_limit", stopDetail: "turn cap reached, note missing", claimed: false },
};

const price = () => DEFAULT_PRICES[EXAMPLE_MODEL] ?? null;

/** `total` split over `parts` turns, growing turn by turn (each observation adds history), summing exactly. */
function split(total: number, parts: number): number[] {
  const weights = Array.from({ length: parts }, (_, i) => i + 2);
  const sum = weights.reduce((a, b) => a + b, 0);
  const shares = weights.map((w) => Math.floor((total * w) / sum));
  shares[parts - 1] += total - shares.reduce((a, b) => a + b, 0);
  return shares;
}

/** A fixed ISO time `ms` after `start`. */
const after = (start: string, ms: number) => new Date(Date.parse(start) + ms).toISOString();

/** A stable stand-in for a definition hash: the same task or agent hashes the same in both runs. */
const hashOf = (text: string) => `sha256:${createHash("sha256").update(text).digest("hex")}`;

/** What the example runs ran on: fixed, where a real run records this machine's. */
const ENVIRONMENT: RunEnvironment = {
  umpire: "0.2.0",
  chromium: {
    version: "141.0.7390.37",
    binary: "/home/ci/.cache/ms-playwright/chromium-1194/chrome-linux/chrome",
    endpoint: "local",
  },
  playwright: "1.65.1",
  os: { platform: "linux", release: "6.8.0-60-generic", arch: "x64" },
  node: "v20.19.2",
  deviceScaleFactors: [1],
  fonts: { hash: "4f0c9a1be27d5c38", count: 312 },
  targets: {},
};

/** The CPU each example run's trials spent: fixed, where a real run reads /proc. */
const CPU: RunCpu = { seconds: 386.4, trials: 24, wallSeconds: 862, processes: 9, notMeasured: null };

interface RunShape {
  id: string;
  startedAt: string;
  endedAt: string;
  tags: string[];
}

const RUNS: readonly RunShape[] = [
  { id: BASELINE_RUN, startedAt: "2025-06-11T09:12:40.000Z", endedAt: "2025-06-11T09:27:15.000Z", tags: ["main"] },
  { id: CANDIDATE_RUN, startedAt: "2025-06-12T14:30:05.000Z", endedAt: "2025-06-12T14:46:38.000Z", tags: ["pr-118"] },
];

/** Writes both example runs into `store` (an empty one). */
export function seedExampleStore(store: Store): void {
  for (const run of RUNS) seedRun(store, run);
}

function seedRun(store: Store, run: RunShape): void {
  store.createRun({
    id: run.id,
    startedAt: run.startedAt,
    tags: run.tags,
    umpireVersion: ENVIRONMENT.umpire,
    options: { model: [EXAMPLE_MODEL], mode: "both", repeats: REPEATS, "max-turns": TURN_CAP },
  });
  const planned = TASKS.flatMap((task) =>
    MODES.flatMap((mode) => Array.from({ length: REPEATS }, (_, repeat) => ({ task, mode, repeat }))),
  );
  const trials = store.addTrials(
    run.id,
    planned.map(({ task, mode, repeat }, seq) => ({
      seq,
      taskId: task.id,
      taskFile: `tasks/${task.id}.yaml`,
      taskTitle: task.title,
      taskTags: task.tags,
      taskHash: hashOf(task.id),
      agentLabel: `${EXAMPLE_MODEL}/${mode}`,
      agentHash: hashOf(`${EXAMPLE_MODEL}/${mode}`),
      model: EXAMPLE_MODEL,
      mode,
      repeat,
    })),
  );
  // Trials start 35 s apart, two at a time, as `--concurrency 2` would start them.
  trials.forEach((trial, i) => {
    const { task, mode, repeat } = planned[i];
    seedTrial(
      store,
      trial,
      task,
      mode,
      outcomeOf(run.id, task.id, mode, repeat),
      after(run.startedAt, Math.floor(i / 2) * 35_000 + (i % 2) * 1_000),
    );
  });
  store.setRunEnvironment(run.id, { ...ENVIRONMENT });
  store.addRunCpu(run.id, CPU);
  store.finishRun(run.id, "finished", run.endedAt);
}

function seedTrial(
  store: Store,
  trial: TrialRecord,
  task: TaskShape,
  mode: ExampleMode,
  outcome: Outcome,
  startedAt: string,
): void {
  const capped = outcome === "turn-cap";
  const figures = figuresOf(TASKS.indexOf(task), mode);
  const turns = capped ? TURN_CAP : figures.turns;
  const stretch = turns / figures.turns;
  const inputTokens = Math.round(figures.inputTokens * stretch);
  const outputTokens = Math.round(figures.outputTokens * stretch);
  const wallMs = Math.round(figures.wallMs * stretch) + trial.repeat * 700;
  // Structured output's stuck trials sometimes wrote JSON umpire could not parse; the loop refused those calls.
  const invalid: Record<string, number> =
    outcome === "wrong-answer" || (capped && mode === "structured") ? { invalid_json: 1 } : {};
  const inputs = split(inputTokens, turns);
  const outputs = split(outputTokens, turns);
  store.startTrial(trial.id, { folder: `trials/${trial.seq}`, startedAt });
  let actions = 0;
  let modelMs = 0;
  let executorMs = 0;
  for (let idx = 0; idx < turns; idx++) {
    const usage: Usage = {
      inputTokens: inputs[idx],
      outputTokens: outputs[idx],
      reasoningTokens: Math.round(outputs[idx] * 0.45),
      cachedTokens: 0,
    };
    const turnModelMs = 1_600 + 40 * idx + 10 * (inputs[idx] % 7);
    const refused = idx === 1 && (invalid.invalid_json ?? 0) > 0;
    store.recordTurn({
      trialId: trial.id,
      idx,
      startedAt: after(startedAt, idx * Math.floor(wallMs / turns)),
      outcome: refused ? "invalid" : "actions",
      finishReason: "stop",
      modelMs: turnModelMs,
      ttftMs: 520 + 10 * (idx % 5),
      usage,
      costUsd: costOfUsage(usage, price()),
      note: refused ? "Answering in the wrong shape" : stepOf(task, actions, capped).note,
      ...(refused ? { flags: { invalid: { invalid_json: 1 } } } : {}),
    });
    modelMs += turnModelMs;
    if (refused) continue;
    const perTurn = idx === 0 && figures.extraActions > 0 ? 2 : 1;
    const batch = Array.from({ length: perTurn }, (_, k) => {
      const step = stepOf(task, actions + k, capped);
      executorMs += 180;
      return {
        trialId: trial.id,
        turnIdx: idx,
        idx: k,
        callId: `call_${idx}_${k}`,
        tool: step.tool,
        args: step.args,
        status: "success" as const,
        message: step.message,
        executorMs: 180,
      };
    });
    store.recordActions(batch);
    actions += batch.length;
  }
  const usage: Usage = { inputTokens, outputTokens, reasoningTokens: Math.round(outputTokens * 0.45), cachedTokens: 0 };
  const captureMs = turns * 80;
  const checkMs = 100;
  const checks = task.checks(outcome);
  const stop = STOPS[outcome];
  store.finishTrial(
    trial.id,
    {
      ...stop,
      verdict: checks.every((c) => c.pass || !c.required) ? "passed" : "failed",
      answer: stop.claimed ? "Done." : null,
      verified: outcome === "passed",
      turns,
      actions,
      usage,
      costUsd: costOfUsage(usage, price()),
      timing: { wallMs, modelMs, executorMs, captureMs, checkMs },
      ttftMsAvg: 540,
      metrics: { stuckSteps: capped ? 4 : 0, reflections: capped ? 1 : 0, recoveries: 0, invalid },
      endedAt: after(startedAt, wallMs),
    },
    checks.map((c) => ({ ...c, evidence: null, ms: 5 })),
  );
}

/** The `n`th action of a trial; a capped trial, once at the cookie dialog, keeps clicking Reject all. */
function stepOf(task: TaskShape, n: number, capped: boolean): Step {
  if (capped && n > 5)
    return { ...task.steps[5], note: "Save is still covered by the cookie dialog; Reject all again" };
  return task.steps[n % task.steps.length];
}
