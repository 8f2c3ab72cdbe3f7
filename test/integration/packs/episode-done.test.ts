/**
 * umpire's own loop on the MiniWoB++ test pack (examples/miniwob-mini/html), through the real CLI, real
 * Chromium and a model endpoint on real HTTP written here: a model that clicks the middle of the task area
 * every turn and never answers (after two clicks it does: more would meet the repetition guard). On click-test a click on the button ends the
 * episode: the trial stops at that turn with `episode_done` (no further turns spent), and the verdict is
 * still the reward's. On enter-text the same click ends nothing: the loop plays on until the model answers.
 * The run's `show` then gives the time per step and the cost per success of the pack run, as for any suite.
 */
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../../support/cli.js";
import {
  answerStep,
  completion,
  startScriptedEndpoint,
  type ScriptedEndpoint,
} from "../../support/scripted-endpoint.js";
import { events, scratch } from "../security/support.js";

const s = scratch("miniwob-episode");
let model: ScriptedEndpoint;
/** The middle of click-test's button (x 80, y 130 CSS px of BrowserGym's 332x214 viewport), in [0, 1000]. */
const CLICK = { tool_name: "click", element: "the task area", x: 241, y: 607 };
const CLICKS_BEFORE_ANSWER = 2;

beforeAll(async () => {
  model = await startScriptedEndpoint((r) => {
    if (r.method === "GET") return { json: { data: [{ id: "clicker" }] } };
    // Earlier assistant turns in the conversation: this is turn n + 1.
    const played = (r.body?.messages ?? []).filter((m: { role: string }) => m.role === "assistant").length;
    if (played >= CLICKS_BEFORE_ANSWER) return { json: answerStep("done") };
    return { json: completion(JSON.stringify({ note: null, thought: "click the middle", tool_call: CLICK })) };
  });
});
afterAll(async () => {
  await model.close();
  s.cleanup();
});

interface TrialJson {
  task: string;
  verdict: string;
  stopReason: string;
  stopDetail: string;
  turns: number;
  actions: number;
  checks: { kind: string; pass: boolean; reason: string }[];
  folder: string;
}

describe("a MiniWoB++ episode the environment ended", () => {
  it("stops umpire's loop at that turn with episode_done, the verdict still the reward's", async () => {
    const config = join(s.dir, "umpire.config.yaml");
    writeFileSync(
      config,
      `agents:\n  clicker:\n    model: clicker\n    baseUrl: ${model.baseUrl}\n    mode: structured\nprices:\n  clicker: { input: 1, output: 4 }\n`,
    );
    const out = join(s.dir, "runs");
    const db = join(s.dir, "u.db");
    const run = await runCli(
      [
        "run",
        "--pack",
        "miniwob",
        "--pack-dir",
        join(REPO_ROOT, "examples/miniwob-mini/html"),
        "--pack-tasks",
        "click-test,enter-text",
        "--config",
        config,
        "--agent",
        "clicker",
        "--concurrency",
        "1",
        "--db",
        db,
        "--out",
        out,
        "--run-id",
        "episode",
        "--json",
      ],
      { env: { MINIWOB_DIR: "" } },
    );
    expect(run.stderr).not.toMatch(/error/i);
    const { trials } = JSON.parse(run.stdout) as { trials: TrialJson[] };
    const clickTest = trials.find((t) => t.task === "miniwob-click-test")!;
    // The first click ended the episode: no second turn was asked for.
    expect(clickTest).toMatchObject({ stopReason: "episode_done", turns: 1, actions: 1, verdict: "passed" });
    expect(clickTest.stopDetail).toContain("the environment ended the episode (raw reward 1");
    expect(clickTest.checks[0]).toMatchObject({ kind: "episode", pass: true });
    const logged = events(join(out, "episode", clickTest.folder)).filter((e) => e.data.flow === "stop");
    expect(logged.map((e) => e.data.reason)).toEqual(["episode_done"]);
    // The same click ends nothing on enter-text: the loop plays on until the model answers, and the reward decides.
    const enterText = trials.find((t) => t.task === "miniwob-enter-text")!;
    expect(enterText).toMatchObject({ stopReason: "answered", turns: CLICKS_BEFORE_ANSWER + 1, verdict: "failed" });
    expect(enterText.checks[0]?.reason).toContain("the episode did not finish");
    // Each turn of the run was one request: 1 for click-test, 3 for enter-text.
    expect(model.requests.filter((r) => r.method === "POST")).toHaveLength(1 + CLICKS_BEFORE_ANSWER + 1);

    // `show` of the pack run gives, as for any suite, per agent the cost per success and the time per step, and
    // per trial its time per step: 4 priced turns ($1 / $4 per million tokens, 100 in + 20 out each) bought 1 pass.
    const show = await runCli(["show", "episode", "--db", db]);
    expect(show.stdout).toMatch(
      /^clicker \(clicker · structured\): 1\/2 passed, cost per success \$0\.00072\d*, time per step \d/m,
    );
    expect(show.stdout).toMatch(/miniwob-click-test[^\n]*\n(?:[^\n]*\n)*?\s+per step \(1 turns\): [\d.]+ m?s = model /);
  }, 300_000);
});
