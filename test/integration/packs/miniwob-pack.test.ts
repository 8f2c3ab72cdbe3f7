/**
 * The MiniWoB++ pack through the real CLI and real Chromium, on umpire's own test pack in MiniWoB's
 * page protocol (examples/miniwob-mini/html: never MiniWoB's files). The pack's self-test:
 * answer-now fails every environment; the scripted oracle (a command agent reading the DOM) passes
 * the kinds it knows and leaves the one no probe exercises (drag-box) unpassed; an agent that writes
 * the reward itself (globals, a script's click, an injected script) fails as forged, and one that reloads the page to replay the episode fails too. Each repeat's
 * seed and instruction are stored with the trial, and the same repeat replays the same episode.
 */
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../../support/cli.js";
import { events, scratch } from "../security/support.js";

const s = scratch("miniwob");
afterAll(() => s.cleanup());
const PACK = join(REPO_ROOT, "examples/miniwob-mini");
const ENVS = "click-button,enter-text,click-checkboxes,drag-box";

interface TrialJson {
  task: string;
  agent: string;
  repeat: number;
  verdict: string;
  answer: string | null;
  folder: string;
  checks: { kind: string; pass: boolean; reason: string; confidence: string }[];
  metrics: { fromEnvironment?: { instruction?: string; seed?: number } };
}

async function runPack(name: string, agents: string[], extra: string[] = [], envs = ENVS) {
  const out = join(s.dir, name);
  const result = await runCli(
    [
      "run",
      "--pack",
      "miniwob",
      "--pack-dir",
      join(PACK, "html"),
      "--pack-tasks",
      envs,
      "--config",
      join(PACK, "umpire.config.yaml"),
      ...agents.flatMap((a) => ["--agent", a]),
      "--no-sandbox",
      "--concurrency",
      "2",
      "--db",
      join(s.dir, `${name}.db`),
      "--out",
      out,
      "--json",
      ...extra,
    ],
    { env: { MINIWOB_DIR: "" } },
  );
  const parsed = JSON.parse(result.stdout) as { runId: string; trials: TrialJson[] };
  return { ...result, ...parsed, out };
}

describe("the MiniWoB++ pack on umpire's test pack", () => {
  it("the oracle passes what it can read, leaves drag-box unexercised, and each repeat keeps its own seed and instruction", async () => {
    const run = await runPack("oracle", ["oracle"], ["--repeat", "2"]);
    expect(run.stderr).toContain("pack miniwob: 4 environments");
    expect(run.stderr).toContain("drag-box runs but needs a drag");
    // The run ends with the published table's shape: per environment, and overall with its interval.
    expect(run.stderr).toMatch(/^click-button\s+oracle\s+2\/2 100% \(34–100%\)$/m);
    expect(run.stderr).toMatch(/^all environments\s+oracle\s+6\/8 75% \(41–93%\)$/m);
    const by = (task: string) => run.trials.filter((t) => t.task === `miniwob-${task}`);
    for (const task of ["click-button", "enter-text", "click-checkboxes"]) {
      for (const trial of by(task)) {
        expect(trial.verdict, `${task} #${trial.repeat}: ${trial.checks[0]?.reason}`).toBe("passed");
        expect(trial.checks[0]).toMatchObject({ kind: "episode", confidence: "verified" });
      }
      const seeds = by(task).map((t) => t.metrics.fromEnvironment?.seed);
      expect(new Set(seeds).size).toBe(2);
    }
    for (const trial of by("drag-box")) {
      expect(trial.verdict).toBe("failed");
      expect(trial.answer).toBe("no probe for this environment");
    }
    // The instruction came from the page (the utterance), and the trial log says it with the seed.
    const enter = by("enter-text")[0]!;
    expect(enter.metrics.fromEnvironment?.instruction).toMatch(/^Enter ".+" into the text field and press Submit\.$/);
    const logged = events(join(run.out, run.runId, enter.folder)).find((e) => e.data.flow === "environment");
    expect(logged?.data).toMatchObject({
      instruction: enter.metrics.fromEnvironment?.instruction,
      facts: { seed: enter.metrics.fromEnvironment?.seed },
    });

    // Replay: the same repeat of the same environment is the same episode; --pack-seed gives another set.
    const again = await runPack("replay", ["oracle"], ["--repeat", "2"]);
    const key = (t: TrialJson) => `${t.task}#${t.repeat}`;
    const first = new Map(run.trials.map((t) => [key(t), t.metrics.fromEnvironment]));
    for (const trial of again.trials) expect(trial.metrics.fromEnvironment).toEqual(first.get(key(trial)));
    const other = await runPack("other-seed", ["oracle"], ["--pack-seed", "7"]);
    const moved = other.trials.filter((t) => t.metrics.fromEnvironment?.seed !== first.get(key(t))?.seed);
    expect(moved.length).toBe(other.trials.length);

    // The example oracle knows the test pack's other kinds too: a link in a paragraph, a tab, a login form.
    const more = await runPack("more-kinds", ["oracle"], [], "click-link,click-tab,login-user");
    expect(more.trials.map((t) => [t.task, t.verdict, t.answer]).sort()).toEqual([
      ["miniwob-click-link", "passed", expect.stringMatching(/^clicked the link \w+$/)],
      ["miniwob-click-tab", "passed", expect.stringMatching(/^clicked Tab #[123]$/)],
      ["miniwob-login-user", "passed", expect.stringMatching(/^logged in as \w+$/)],
    ]);
  }, 600_000);

  it("answer-now fails every environment, and every forged reward fails as forged or absent", async () => {
    const run = await runPack("negatives", ["answer-now", "forger", "forge-click", "forge-script", "reload"]);
    expect(run.trials).toHaveLength(20);
    for (const trial of run.trials) expect(trial.verdict, `${trial.task} ${trial.agent}`).toBe("failed");
    const reasons = (agent: string) => run.trials.filter((t) => t.agent === agent).map((t) => t.checks[0]!.reason);
    for (const reason of reasons("answer-now")) expect(reason).toContain("the episode did not finish");
    for (const reason of reasons("forger"))
      expect(reason).toMatch(/something other than the page's own code wrote .*forged/);
    // The script's click reached the right button on click-button; the capture refused the reward it caused.
    expect(
      reasons("forge-click")[
        run.trials.filter((t) => t.agent === "forge-click").findIndex((t) => t.task === "miniwob-click-button")
      ],
    ).toMatch(/forged/);
    // A reload replays the same seeded episode in a fresh document: the server saw the page twice.
    for (const trial of run.trials.filter((t) => t.agent === "reload" && t.task !== "miniwob-drag-box")) {
      expect(trial.checks.find((c) => c.kind === "effects")?.reason).toContain("happened 2 times, expected exactly 1");
    }
    // An injected inline script never runs (the page's script policy), so no episode ends.
    for (const reason of reasons("forge-script")) expect(reason).toContain("the episode did not finish");
  }, 300_000);
});
