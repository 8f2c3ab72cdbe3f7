/**
 * Repetition detection end to end: a model that keeps clicking a covered Save gets one
 * reflection, then stops `stuck` with a report in words and the last captures attached; a model
 * that recovers after the reflection passes; gold trajectories and deliberate waits trigger none.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { parse, stringify } from "yaml";
import { main } from "../../../src/cli/main.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ROOT, startHarness, type Harness } from "./harness.js";
import { readFixtureTask } from "../../support/fixture-tasks.js";

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

function repetition(trialId: string): Record<string, number> {
  return (h.store.trial(trialId)!.metrics.repetition ?? {}) as Record<string, number>;
}

describe("repetition detection", () => {
  it("loop profile on a cookie task: one reflection, then stuck with the condition in words and 3 captures", async () => {
    const { runId } = await h.run({ tasks: [h.task("cookie-reject-note-bb042")], model: "reference:loop" });
    const [trial] = h.store.trials(runId);
    expect(trial!.stopReason).toBe("stuck");
    expect(trial!.verdict).toBe("failed");
    expect(trial!.stopDetail).toMatch(/stayed covered by cookie-dialog after \d+ attempts/);
    expect(repetition(trial!.id)).toMatchObject({ reflections: 1, recoveries: 0 });
    expect(repetition(trial!.id).stuckSteps).toBeGreaterThanOrEqual(3);
    // The stuck report attaches the last captures, as files in the trial folder.
    const evidence = h.store.trial(trial!.id)!.metrics.evidence as string[];
    expect(evidence).toHaveLength(3);
    for (const path of evidence) expect(existsSync(join(h.dir, runId, trial!.folder!, path))).toBe(true);
    // The reflection turn is recorded: the turn after the pause carries the flag, its actions skipped.
    const turns = h.store.turns(trial!.id);
    expect(turns.filter((t) => t.flags.reflection === true)).toHaveLength(1);
    const skipped = h.store.actions(trial!.id).filter((a) => a.status === "skipped");
    expect(skipped.length).toBeGreaterThanOrEqual(1);
    expect(skipped[0]!.message).toMatch(/paused: .*stayed covered/);
    // It stopped early: well before the 30-turn cap.
    expect(trial!.turns).toBeLessThan(15);
  });

  it("a model that recovers after the reflection passes", async () => {
    const { runId } = await h.run({ tasks: [h.task("cookie-reject-note-bb042")], model: "reference:recover" });
    const [trial] = h.store.trials(runId);
    expect(trial!.verdict).toBe("passed");
    expect(repetition(trial!.id)).toMatchObject({ reflections: 1, recoveries: 1 });
  });

  it("gold trajectories and deliberate waits trigger no reflection in either mode", async () => {
    const { runId } = await h.run({ tasks: [h.task("lazy-note-bb042"), h.task("slow-save-note-bb042")], mode: "both" });
    const trials = h.store.trials(runId);
    expect(trials).toHaveLength(4);
    for (const t of trials) {
      expect(t.verdict).toBe("passed");
      expect(repetition(t.id).reflections).toBe(0);
    }
    // The waits really happened on an unchanged-looking screen (the lazy spinner is masked).
    const waits = trials.flatMap((t) => h.store.actions(t.id)).filter((a) => a.tool === "wait");
    expect(waits.length).toBeGreaterThanOrEqual(4);
  });

  it("a wait longer than its cap is paused like any other repetition (through the CLI)", async () => {
    // The reference model plays the task file it loaded, so the variant is a task file of its own:
    // gold, but waiting three times in a row on the saved note's page, with a wait cap of 1.
    const dir = mkdtempSync(join(tmpdir(), "umpire-waitcap-"));
    const doc = parse(readFixtureTask(join(ROOT, "tasks/lazy-note-bb042.yaml")));
    delete doc.$schema;
    doc.repetition = { ...(doc.repetition ?? {}), waitCap: 1 };
    const wait = { tool: "wait", args: { seconds: 0.2 } };
    doc.reference.splice(doc.reference.length - 1, 0, wait, wait, wait);
    writeFileSync(join(dir, "lazy-wait.yaml"), stringify(doc));
    const stdout = new PassThrough();
    let out = "";
    stdout.on("data", (c) => (out += c));
    const stderr = new PassThrough();
    stderr.resume();
    const code = await main(
      ["run", "lazy-wait.yaml", "--mode", "structured", "--db", "r.db", "--out", "runs", "--json"],
      {
        stdout,
        stderr,
        env: {},
        cwd: dir,
        signal: new AbortController().signal,
      },
    );
    const [trial] = JSON.parse(out).trials;
    expect(trial.metrics.repetition.reflections).toBe(1);
    expect(trial.stopReason).toBe("stuck");
    expect(trial.stopDetail).toMatch(/after 3 attempts to wait/);
    // The note was saved before the waits: verified without a claim, a silent success.
    expect(trial).toMatchObject({ verdict: "passed", claimed: false, verified: true });
    expect(code).toBe(0);
    rmSync(dir, { recursive: true, force: true });
  });
});
