/**
 * `umpire run --resume` and `umpire rejudge` on a run of the MiniWoB++ pack, through the real CLI,
 * real Chromium and a real SQLite file, on umpire's own test pack (examples/miniwob-mini/html, copied
 * so it can be moved). A pack run's tasks are made from the checkout, not read from files: the run
 * stores the pack (its folder, environments, split and seed base) and both commands make the same
 * tasks again from it; when the folder has moved, the error names --pack-dir and MINIWOB_DIR.
 */
import { cpSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { episodeSeed } from "../../../src/packs/miniwob.js";
import { openStore } from "../../../src/store/open.js";
import { REPO_ROOT, runCli } from "../../support/cli.js";
import { scratch } from "../security/support.js";

const s = scratch("miniwob-resume");
afterAll(() => s.cleanup());
const CONFIG = join(REPO_ROOT, "examples/miniwob-mini/umpire.config.yaml");

const umpire = (args: string[], env: Record<string, string> = {}) =>
  runCli([...args, "--db", s.db], { env: { MINIWOB_DIR: "", CI: "", ...env }, killAfterMs: 300_000 });

/** A copy of the test pack's html folder at `name`, so the test can move it away. */
function checkout(name: string): string {
  const dir = join(s.dir, name);
  cpSync(join(REPO_ROOT, "examples/miniwob-mini/html"), dir, { recursive: true });
  return dir;
}

describe("resume and rejudge of a pack run", () => {
  it("--resume makes the pack's tasks and seeds again from the stored run; a moved checkout is named with the flag that fixes it", async () => {
    const first = checkout("first");
    const common = ["--config", CONFIG, "--no-sandbox", "--out", s.out];
    const started = await umpire([
      "run",
      "--pack",
      "miniwob",
      "--pack-dir",
      first,
      "--pack-tasks",
      "click-button,enter-text",
      "--pack-seed",
      "7",
      "--agent",
      "answer-now",
      "--agent",
      "oracle",
      "--concurrency",
      "1",
      "-x",
      ...common,
    ]);
    expect(started.code, started.stderr).toBe(1);
    const runId = /umpire run --resume (\S+) runs them/.exec(started.stderr)![1]!;
    const moved = join(s.dir, "moved");
    renameSync(first, moved);

    const lost = await umpire(["run", "--resume", runId, ...common]);
    expect(lost.code).toBe(2);
    expect(lost.stderr).toContain(
      `run ${runId} ran pack miniwob from ${first}, which is not a MiniWoB++ html folder now`,
    );
    expect(lost.stderr).toContain(`pass --pack-dir <the checkout>/miniwob/html (or set MINIWOB_DIR)`);
    expect(lost.stderr).toContain(`umpire run --resume ${runId} --pack-dir DIR`);
    // The pack is made again as stored: another selection is refused, not silently run under the old run's name.
    const other = await umpire(["run", "--resume", runId, "--pack-tasks", "enter-text", "--list", ...common]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain(`--pack-tasks: run ${runId} is a run of pack miniwob`);
    // MINIWOB_DIR stands for the moved folder too; the listing plans the three trials left.
    const listed = await umpire(["run", "--resume", runId, "--list", ...common], { MINIWOB_DIR: moved });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain("3 trials (2 tasks, 2 agents); nothing was run");

    const resumed = await umpire(["run", "--resume", runId, "--pack-dir", moved, ...common]);
    expect(resumed.code, resumed.stderr).toBe(1);
    expect(resumed.stderr).toContain(`pack miniwob: 2 environments from ${moved}`);
    // The run ends with the benchmark's table, over all of the run's trials (before and after the resume).
    expect(resumed.stdout).toMatch(/^all environments\s+oracle\s+2\/2 100%/m);
    expect(resumed.stdout).toMatch(/^all environments\s+answer-now\s+0\/2 0%/m);
    const store = openStore(s.db, { readonly: true });
    try {
      const trials = store.trials(runId);
      expect(trials.map((t) => [t.taskId, t.agentLabel, t.verdict])).toEqual([
        ["miniwob-click-button", "answer-now", "failed"],
        ["miniwob-click-button", "oracle", "passed"],
        ["miniwob-enter-text", "answer-now", "failed"],
        ["miniwob-enter-text", "oracle", "passed"],
      ]);
      // Each resumed trial's episode is the one the run planned: the stored --pack-seed 7 is in its seed.
      for (const t of trials.slice(1)) {
        const seed = (t.metrics.fromEnvironment as { seed?: number }).seed;
        expect(seed, t.id).toBe(episodeSeed(t.taskId, t.repeat, 7));
      }
      expect(store.getRun(runId).status).toBe("finished");
    } finally {
      store.close();
    }
    // --failed-in a pack run makes its pack again too (no --pack): the environments x agents that did not pass.
    const failed = await umpire(["run", "--failed-in", runId, "--pack-dir", moved, "--list", ...common]);
    expect(failed.code, failed.stderr).toBe(0);
    expect(failed.stdout).toMatch(/miniwob-click-button\s+answer-now\s+0/);
    expect(failed.stdout).toMatch(/miniwob-enter-text\s+answer-now\s+0/);
    expect(failed.stdout).toContain("2 trials (2 tasks, 1 agent); nothing was run");
  }, 400_000);

  it("rejudge makes the pack's tasks again and judges the stored episode record; a moved checkout needs --pack-dir", async () => {
    const dir = checkout("rejudge");
    const ran = await umpire([
      "run",
      "--pack",
      "miniwob",
      "--pack-dir",
      dir,
      "--pack-tasks",
      "click-button",
      "--mode",
      "structured",
      "--out",
      s.out,
      "--json",
    ]);
    expect(ran.code, ran.stderr).toBe(1);
    const run = JSON.parse(ran.stdout) as { runId: string; trials: { id: string; verdict: string; folder: string }[] };
    expect(run.trials.map((t) => t.verdict)).toEqual(["failed"]);

    const same = await umpire(["rejudge", run.runId, "--json"]);
    expect(same.code, same.stderr).toBe(0);
    const judged = (r: typeof same) =>
      (JSON.parse(r.stdout) as { trials: { before: string; after: string; skipped?: string }[] }).trials;
    expect(judged(same)).toEqual([expect.objectContaining({ before: "failed", after: "failed" })]);
    expect(judged(same)[0]!.skipped).toBeUndefined();

    // The episode check reads the stored record: one that says the episode ended with reward 1 passes on rejudge.
    const file = join(s.out, run.runId, run.trials[0]!.folder, "evidence.json");
    const evidence = JSON.parse(readFileSync(file, "utf8")) as { episode: Record<string, unknown> };
    expect(evidence.episode).toMatchObject({ started: true, done: false, rawReward: null });
    writeFileSync(
      file,
      JSON.stringify({ ...evidence, episode: { ...evidence.episode, done: true, rawReward: 1, reward: 1 } }),
    );
    const moved = join(s.dir, "rejudge-moved");
    renameSync(dir, moved);
    const lost = await umpire(["rejudge", run.runId]);
    expect(lost.code).toBe(2);
    expect(lost.stderr).toContain(`run ${run.runId} ran pack miniwob from ${dir}`);
    expect(lost.stderr).toContain(`umpire rejudge ${run.runId} --pack-dir DIR`);
    const again = await umpire(["rejudge", run.runId, "--pack-dir", moved, "--json"]);
    expect(again.code, again.stderr).toBe(0);
    expect(judged(again)).toEqual([expect.objectContaining({ before: "failed", after: "passed" })]);
    const shown = await umpire(["show", run.runId, "--json"]);
    const checks = (JSON.parse(shown.stdout) as { trials: { checks: { kind: string; reason: string }[] }[] }).trials[0]!
      .checks;
    expect(checks.find((c) => c.kind === "episode")?.reason).toBe("the episode's raw reward was 1");
  }, 300_000);
});
