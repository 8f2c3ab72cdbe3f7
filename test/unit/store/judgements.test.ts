/**
 * Judgements (issue 29): a re-judged trial keeps the run's own judgement and every re-judgement,
 * oldest first, while the trial row and its checks take the latest; a new attempt starts clean.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/open.js";
import type { Store } from "../../../src/store/store.js";
import { seedRun } from "../report/seed.js";

let dir: string;
let store: Store;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "umpire-judgements-"));
  store = openStore(join(dir, "umpire.db"));
});
afterEach(() => {
  store.close();
  rmSync(dir, { recursive: true, force: true });
});

const check = (pass: boolean) => ({
  kind: "page",
  name: "the page",
  required: true,
  pass,
  confidence: "observed" as const,
  reason: pass ? "shown" : "not shown",
  evidence: {},
  ms: 1,
});

describe("store judgements", () => {
  it("keeps the run's judgement and each re-judgement; the trial takes the latest", () => {
    const run = seedRun(store, {
      model: "reference",
      startedAt: "2026-01-01T00:00:00.000Z",
      trials: [{ task: "t", verdict: "passed", taskHash: "sha256:a" }],
    });
    const [trial] = store.trials(run);
    expect(store.judgements(trial!.id)).toEqual([]);
    expect(trial!.rejudgedAt).toBeUndefined();
    store.recordRejudgement(trial!.id, {
      taskHash: "sha256:b",
      verdict: "failed",
      claimed: true,
      verified: false,
      stopDetail: "model finished (re-judged), not shown",
      checks: [check(false)],
      liveChecks: [],
    });
    store.recordRejudgement(trial!.id, {
      taskHash: "sha256:c",
      verdict: "passed",
      claimed: true,
      verified: true,
      stopDetail: "model finished (re-judged), all required checks passed",
      checks: [check(true)],
      liveChecks: [{ name: "c", kind: "custom", why: "custom", kept: true }],
    });
    const judgements = store.judgements(trial!.id);
    expect(judgements.map((j) => [j.seq, j.source, j.verdict, j.taskHash])).toEqual([
      [0, "run", "passed", "sha256:a"],
      [1, "rejudge", "failed", "sha256:b"],
      [2, "rejudge", "passed", "sha256:c"],
    ]);
    expect(judgements[0]!.checks.map((c) => c.name)).toEqual(["check 0"]);
    expect(judgements[2]!.liveChecks).toEqual([{ name: "c", kind: "custom", why: "custom", kept: true }]);
    const after = store.trial(trial!.id)!;
    expect(after).toMatchObject({
      verdict: "passed",
      verified: true,
      stopDetail: "model finished (re-judged), all required checks passed",
      rejudgedAt: expect.any(String),
    });
    expect(store.checks(trial!.id).map((c) => [c.name, c.pass])).toEqual([["the page", true]]);
  });

  it("a new attempt of the trial is not marked re-judged, and its judgements start again", () => {
    const run = seedRun(store, {
      model: "reference",
      startedAt: "2026-01-01T00:00:00.000Z",
      trials: [{ task: "t", verdict: "passed" }],
    });
    const [trial] = store.trials(run);
    store.recordRejudgement(trial!.id, {
      taskHash: null,
      verdict: "failed",
      claimed: true,
      verified: false,
      stopDetail: "x",
      checks: [check(false)],
      liveChecks: [],
    });
    store.resetTrial(trial!.id);
    store.startTrial(trial!.id, { folder: "again" });
    expect(store.trial(trial!.id)!.rejudgedAt).toBeUndefined();
    expect(store.judgements(trial!.id)).toEqual([]);
  });
});
