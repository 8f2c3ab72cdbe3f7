/**
 * `umpire validate --self-test --pack miniwob` through the real CLI and real Chromium, on umpire's own
 * test pack in MiniWoB's page protocol (examples/miniwob-mini/html). MiniWoB's episodes are random
 * per seed, so there is no gold: answer-now must fail every environment, umpire's shipped scripted
 * oracle must pass the ones it knows, and drag-box, which no probe can exercise, is listed as such.
 * A pack whose reward is broken (the oracle cannot pass) or free (doing nothing passes) is unsound.
 */
import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../../support/cli.js";
import { scratch } from "../security/support.js";

const s = scratch("miniwob-self-test");
afterAll(() => s.cleanup());
const HTML = join(REPO_ROOT, "examples/miniwob-mini/html");

const validate = (args: string[]) =>
  runCli(["validate", ...args, "--db", s.db, "--out", s.out, "--concurrency", "2"], {
    env: { MINIWOB_DIR: "", CI: "" },
    killAfterMs: 400_000,
  });

interface ProbeJson {
  task: string;
  probe: { name: string; expect: string };
  verdict: string;
  ok: boolean;
  exercised: boolean;
  reasons: string[];
}

describe("the self-test of a benchmark pack", () => {
  it("answer-now fails every environment, the oracle passes the seven it knows, drag-box is listed as not exercised", async () => {
    const r = await validate(["--self-test", "--pack", "miniwob", "--pack-dir", HTML, "--json"]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as {
      ok: boolean;
      tasks: { id: string }[];
      selfTest: { sound: boolean; runId: string; results: ProbeJson[]; notExercised: { task: string; why: string }[] };
    };
    expect(out.ok).toBe(true);
    expect(out.tasks.map((t) => t.id)).toEqual([
      "miniwob-click-button",
      "miniwob-click-checkboxes",
      "miniwob-click-link",
      "miniwob-click-tab",
      "miniwob-click-test",
      "miniwob-drag-box",
      "miniwob-enter-text",
      "miniwob-login-user",
    ]);
    const { selfTest } = out;
    expect(selfTest.sound).toBe(true);
    const got = (probe: string) =>
      selfTest.results
        .filter((x) => x.probe.name === probe)
        .map((x) => [x.task, x.verdict, x.ok])
        .sort();
    expect(got("answer-now")).toEqual([
      ["miniwob-click-button", "failed", true],
      ["miniwob-click-checkboxes", "failed", true],
      ["miniwob-click-link", "failed", true],
      ["miniwob-click-tab", "failed", true],
      ["miniwob-click-test", "failed", true],
      ["miniwob-drag-box", "failed", true],
      ["miniwob-enter-text", "failed", true],
      ["miniwob-login-user", "failed", true],
    ]);
    expect(got("oracle")).toEqual([
      ["miniwob-click-button", "passed", true],
      ["miniwob-click-checkboxes", "passed", true],
      ["miniwob-click-link", "passed", true],
      ["miniwob-click-tab", "passed", true],
      ["miniwob-click-test", "passed", true],
      ["miniwob-enter-text", "passed", true],
      ["miniwob-login-user", "passed", true],
    ]);
    expect(selfTest.notExercised).toEqual([
      { task: "miniwob-drag-box", why: expect.stringContaining("no oracle for drag-box") },
    ]);
    // Stored as a self-test run: `show` reads it, and the oracle's trials say why it ran unsandboxed.
    expect(r.stderr).toContain(`stored as run ${selfTest.runId} (tagged self-test)`);
    const shown = await runCli(["show", selfTest.runId, "--db", s.db, "--json"]);
    expect(shown.code, shown.stderr).toBe(0);
    const trials = (JSON.parse(shown.stdout) as { trials: { agent: string; verdict: string }[] }).trials;
    expect(trials.filter((t) => t.agent === "oracle").map((t) => t.verdict)).toEqual(Array(7).fill("passed"));

    // --strict: an environment no probe exercised makes the pack unsound (exit 1).
    const strict = await validate([
      "--self-test",
      "--strict",
      "--pack",
      "miniwob",
      "--pack-dir",
      HTML,
      "--pack-tasks",
      "drag-box",
    ]);
    expect(strict.code, strict.stderr).toBe(1);
    expect(strict.stdout).toContain("not exercised: no oracle for drag-box");
    expect(strict.stdout).toContain("pack miniwob is unsound under --strict: 1 environment no probe exercised");
  }, 500_000);

  it("a pack whose reward cannot be earned, or is given for nothing, is unsound (exit 1), each with why", async () => {
    const broken = join(s.dir, "broken-html");
    cpSync(HTML, broken, { recursive: true });
    const edit = (name: string, from: string, to: string) => {
      const file = join(broken, "miniwob", `${name}.html`);
      const text = readFileSync(file, "utf8");
      expect(text).toContain(from);
      writeFileSync(file, text.replace(from, to));
    };
    // click-button: every button ends the episode with reward -1, the right one too.
    edit("click-button", "word === correct ? 1 : -1", "-1");
    // click-checkboxes: the page ends its own episode with reward 1 as soon as it starts.
    edit(
      "click-checkboxes",
      "var genProblem = function () {",
      "var genProblem = function () {\n  setTimeout(function () { core.endEpisode(1); }, 0);",
    );
    const r = await validate([
      "--self-test",
      "--pack",
      "miniwob",
      "--pack-dir",
      broken,
      "--pack-tasks",
      "click-button,click-checkboxes,enter-text",
    ]);
    expect(r.code, r.stderr).toBe(1);
    expect(r.stdout).toMatch(/miniwob-click-button\s+│\s+NO\s+│\s+answer-now failed: ok; oracle passed: failed/);
    expect(r.stdout).toMatch(/miniwob-click-checkboxes\s+│\s+NO\s+│\s+answer-now failed: passed/);
    expect(r.stdout).toMatch(/miniwob-enter-text\s+│\s+yes\s+│/);
    expect(r.stdout).toContain("miniwob-click-button oracle: expected passed, got failed");
    expect(r.stdout).toContain("check 'episode reward > 0' failed: the episode's raw reward was -1");
    expect(r.stdout).toContain("miniwob-click-checkboxes answer-now: expected failed, got passed");
    expect(r.stdout).toContain("the checks cannot tell doing nothing from solving it");
    expect(r.stdout).toContain("some environments are unsound");
  }, 500_000);

  it("without --self-test it lists the pack's environments; a folder that is no checkout, or task paths, are usage errors", async () => {
    const listed = await validate(["--pack", "miniwob", "--pack-dir", HTML, "--pack-tasks", "enter-text", "--json"]);
    expect(listed.code, listed.stderr).toBe(0);
    const out = JSON.parse(listed.stdout) as { ok: boolean; tasks: { id: string }[]; pack: { dir: string } };
    expect(out).toMatchObject({ ok: true, tasks: [{ id: "miniwob-enter-text" }], pack: { dir: HTML } });
    const notACheckout = await validate(["--pack", "miniwob", "--pack-dir", s.dir]);
    expect(notACheckout.code).toBe(2);
    expect(notACheckout.stderr).toContain(`${s.dir} is not a MiniWoB++ html folder`);
    expect(notACheckout.stderr).toContain("fix: pass --pack-dir <clone>/miniwob/html");
    const withPaths = await validate(["tasks", "--pack", "miniwob", "--pack-dir", HTML]);
    expect(withPaths.code).toBe(2);
    expect(withPaths.stderr).toContain("--pack does not go with task paths");
  }, 120_000);
});
