import { copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UmpireError } from "../../../src/errors.js";
import { emptyStore, openStore } from "../../../src/store/open.js";
import { SCHEMA_VERSION } from "../../../src/store/migrations.js";
import type { Store } from "../../../src/store/store.js";
import { failingCheck, passingCheck, planned, result, tempDir } from "./fixtures.js";

let dir: string;
let cleanup: () => void;
const open: Store[] = [];
const openAt = (file: string, opts?: Parameters<typeof openStore>[1]) => {
  const s = openStore(file, opts);
  open.push(s);
  return s;
};

beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(() => {
  for (const s of open.splice(0)) s.close();
  cleanup();
});

describe("openStore", () => {
  it("creates missing folders, uses WAL and foreign keys, and records the schema version", () => {
    const file = join(dir, "deep", "er", "umpire.db");
    openAt(file).close();
    expect(existsSync(file)).toBe(true);
    const raw = new Database(file);
    expect(raw.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(raw.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({
      value: String(SCHEMA_VERSION),
    });
    raw.close();
    const store = openAt(file);
    const run = store.createRun({ umpireVersion: "0.1.0" });
    expect(() => store.addTrials("nope", [planned(0)])).toThrow(/no run 'nope'/);
    expect(() =>
      store.recordTurn({ trialId: "nope", idx: 0, outcome: "actions", modelMs: 1, usage: null, costUsd: null }),
    ).toThrow(/no trial nope/);
    expect(store.addTrials(run.id, [planned(0)])).toHaveLength(1);
  });

  it("refuses a database written by a newer umpire and leaves its data intact", () => {
    const file = join(dir, "umpire.db");
    const store = openAt(file);
    const run = store.createRun({ umpireVersion: "0.1.0", tags: ["keep-me"] });
    store.close();
    const raw = new Database(file);
    // One past the newest schema this umpire knows, whatever that is.
    const newer = String(SCHEMA_VERSION + 1);
    raw.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(newer);
    raw.prepare("UPDATE meta SET value = '3.2.0' WHERE key = 'min_umpire_version'").run();
    raw.close();

    for (const readonly of [false, true]) {
      let error: unknown;
      try {
        openStore(file, { readonly });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(UmpireError);
      expect((error as UmpireError).code).toBe("store");
      expect((error as UmpireError).message).toContain(`schema version ${newer}`);
      expect((error as UmpireError).message).toContain("umpire 3.2.0");
    }
    const check = new Database(file, { readonly: true });
    expect(check.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({ value: newer });
    expect(check.prepare("SELECT id, tags FROM runs").all()).toEqual([{ id: run.id, tags: '["keep-me"]' }]);
    check.close();
  });

  it("refuses a file that is not a database, or somebody else's database, without changing it", () => {
    const text = join(dir, "notes.txt");
    writeFileSync(text, "these are my notes, not a database\n".repeat(100));
    const before = readFileSync(text);
    expect(() => openStore(text)).toThrow(/cannot use this file as umpire's database/);
    expect(readFileSync(text).equals(before)).toBe(true);

    const foreign = join(dir, "other.db");
    const raw = new Database(foreign);
    raw.exec("CREATE TABLE invoices (id INTEGER PRIMARY KEY, total REAL); INSERT INTO invoices VALUES (1, 9.5)");
    raw.close();
    expect(() => openStore(foreign)).toThrow(/not umpire's \(it holds tables invoices\)/);
    const again = new Database(foreign);
    expect(again.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all()).toEqual([{ name: "invoices" }]);
    again.close();
  });

  it("read-only mode needs an existing file and cannot write", () => {
    expect(() => openStore(join(dir, "missing.db"), { readonly: true })).toThrow(/no umpire database/);
    const file = join(dir, "umpire.db");
    openAt(file).createRun({ umpireVersion: "0.1.0" });
    const reader = openAt(file, { readonly: true });
    expect(reader.listRuns()).toHaveLength(1);
    expect(() => reader.createRun({ umpireVersion: "0.1.0" })).toThrow(/readonly/i);
  });

  it("untouched mode migrates an older database in memory, with what a live writer left in its WAL, and writes nothing to the file", () => {
    const file = join(dir, "umpire.db");
    copyFileSync(join(import.meta.dirname, "../../fixtures/store-v1.db"), file);
    // A writer that stays open: its change sits in the WAL, not yet in the main file.
    const writer = new Database(file);
    writer.prepare("UPDATE runs SET tags = ?").run(JSON.stringify(["late"]));
    try {
      expect(readFileSync(`${file}-wal`).length).toBeGreaterThan(0);
      const mainBefore = readFileSync(file);
      const reader = openAt(file, { readonly: true, untouched: true });
      expect(reader.schemaVersion).toBe(SCHEMA_VERSION);
      expect(reader.getRun("latest")).toMatchObject({ id: "20260101-000000-v1", tags: ["late"] });
      expect(reader.trials("20260101-000000-v1").map((t) => t.verdict)).toEqual(["passed", "failed"]);
      expect(readFileSync(file).equals(mainBefore)).toBe(true);
      expect(writer.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({ value: "1" });
    } finally {
      writer.close();
    }
  });

  it("emptyStore stands in for a missing database: the current schema, no runs, no file", () => {
    const file = join(dir, "none", "umpire.db");
    const store = emptyStore(file);
    open.push(store);
    expect(store.schemaVersion).toBe(SCHEMA_VERSION);
    expect(store.listRuns()).toEqual([]);
    expect(store.durationHistory()).toEqual([]);
    expect(existsSync(join(dir, "none"))).toBe(false);
  });
});

describe("runs", () => {
  it("stores tags and options with secrets removed, finds runs by id, prefix, latest and tag", () => {
    const store = openAt(join(dir, "umpire.db"));
    const a = store.createRun({
      umpireVersion: "0.1.0",
      startedAt: "2025-06-01T10:00:00.000Z",
      tags: ["baseline"],
      options: {
        model: "holo3-1-35b-a3b",
        apiKey: "sk-abcdefghijkl",
        apiKeyEnv: "HAI_API_KEY",
        headers: { Authorization: "Bearer xyz" },
        note: "Bearer abc.def",
        maxTokens: 2048,
        token: "t0k3n",
      },
    });
    const b = store.createRun({ umpireVersion: "0.1.0", startedAt: "2025-06-02T10:00:00.000Z", tags: ["candidate"] });
    expect(a.id).toMatch(/^20250601-100000-[0-9a-f]{4}$/);
    expect(a.options).toEqual({
      model: "holo3-1-35b-a3b",
      apiKey: "[redacted]",
      apiKeyEnv: "HAI_API_KEY",
      headers: { Authorization: "[redacted]" },
      note: "[redacted]",
      maxTokens: 2048,
      token: "[redacted]",
    });
    expect(JSON.stringify(store.getRun(a.id))).not.toContain("sk-abcdefghijkl");
    expect(store.getRun("latest").id).toBe(b.id);
    expect(store.getRun("20250601").id).toBe(a.id);
    expect(() => store.getRun("2025060")).toThrow(/ambiguous/);
    expect(() => store.getRun("1999")).toThrow(UmpireError);
    expect(store.latestRunWithTag("baseline")?.id).toBe(a.id);
    expect(store.latestRunWithTag("baseline", a.id)).toBeUndefined();
    expect(() => store.createRun({ id: a.id, umpireVersion: "0.1.0" })).toThrow(/already exists/);
  });

  it("finishes and interrupts runs; listRuns counts trials and leaves unknown cost unknown", () => {
    const store = openAt(join(dir, "umpire.db"));
    const run = store.createRun({ umpireVersion: "0.1.0" });
    const [t0, t1, t2] = store.addTrials(run.id, [
      planned(0),
      planned(1, { repeat: 1 }),
      planned(2, { mode: "tools", agentLabel: "reference/tools" }),
    ]);
    store.startTrial(t0.id, { folder: "t0" });
    store.finishTrial(t0.id, result(), [passingCheck]);
    store.startTrial(t1.id, { folder: "t1" });
    store.finishTrial(t1.id, result({ verdict: "failed", verified: false, costUsd: null }), [failingCheck]);
    store.markInterrupted(run.id);
    const [summary] = store.listRuns();
    expect(summary).toMatchObject({
      id: run.id,
      status: "interrupted",
      trials: 3,
      done: 2,
      passed: 1,
      failed: 1,
      errors: 0,
      costUsd: null,
    });
    expect(summary.modes).toEqual(["structured", "tools"]);
    expect(summary.endedAt).not.toBeNull();
    expect(store.unfinishedTrials(run.id).map((t) => t.id)).toEqual([t2.id]);
  });
});

describe("trials", () => {
  it("writes turns and actions as they happen: a second connection sees them before the trial ends", () => {
    const file = join(dir, "umpire.db");
    const writer = openAt(file);
    const run = writer.createRun({ umpireVersion: "0.1.0" });
    const [trial] = writer.addTrials(run.id, [planned(0)]);
    expect(writer.startTrial(trial.id, { folder: "trials/0" })).toBe(1);
    writer.recordTurn({
      trialId: trial.id,
      idx: 0,
      outcome: "actions",
      modelMs: 2000,
      ttftMs: 450,
      usage: { inputTokens: 3000, outputTokens: 200, reasoningTokens: 120, cachedTokens: 0 },
      costUsd: 0.0076,
      note: "search box visible",
      reasoning: "r".repeat(50_000),
      screenshot: { path: "trials/0/screens/ab12.png", width: 1280, height: 800 },
      flags: { reflection: false },
    });
    writer.recordActions([
      {
        trialId: trial.id,
        turnIdx: 0,
        idx: 0,
        callId: "call_1",
        tool: "click",
        args: { x: 500, y: 300, element: "search box" },
        status: "success",
        message: "input sent",
        executorMs: 40,
      },
      {
        trialId: trial.id,
        turnIdx: 0,
        idx: 1,
        callId: "call_2",
        tool: "click",
        args: { x: 5000, y: 1 },
        status: "rejected",
        message: "x outside [0, 1000]",
        executorMs: 0,
      },
    ]);
    // Simulate a crash: the writer never finishes the trial; a fresh reader opens the file.
    const reader = openAt(file, { readonly: true });
    const [turn] = reader.turns(trial.id);
    expect(turn.reasoning).toHaveLength(50_000);
    expect(turn.usage).toEqual({ inputTokens: 3000, outputTokens: 200, reasoningTokens: 120, cachedTokens: 0 });
    expect(turn.screenshot).toEqual({ path: "trials/0/screens/ab12.png", width: 1280, height: 800 });
    expect(reader.actions(trial.id).map((a) => [a.callId, a.status, a.args])).toEqual([
      ["call_1", "success", { x: 500, y: 300, element: "search box" }],
      ["call_2", "rejected", { x: 5000, y: 1 }],
    ]);
    expect(reader.unfinishedTrials(run.id)).toMatchObject([{ id: trial.id, status: "running", folder: "trials/0" }]);
  });

  it("finishTrial stores the result and every check in one transaction", () => {
    const store = openAt(join(dir, "umpire.db"));
    const run = store.createRun({ umpireVersion: "0.1.0" });
    const [trial] = store.addTrials(run.id, [planned(0)]);
    store.startTrial(trial.id, { folder: "t" });
    // A check with an invalid confidence makes the transaction fail: nothing of it may remain.
    const bad = { ...passingCheck, confidence: "certain" as never };
    expect(() => store.finishTrial(trial.id, result(), [passingCheck, bad])).toThrow();
    expect(store.trial(trial.id)?.status).toBe("running");
    expect(store.checks(trial.id)).toEqual([]);

    const done = store.finishTrial(
      trial.id,
      result({ stopReason: "turn_limit", stopDetail: "turn cap reached, note verified" }),
      [passingCheck, failingCheck],
    );
    expect(done).toMatchObject({
      status: "done",
      stopReason: "turn_limit",
      verdict: "passed",
      claimed: true,
      inputTokens: 12_000,
      costUsd: 0.0304,
      wallMs: 12_500,
      metrics: { stuckSteps: 0, reflections: 0, recoveries: 0 },
    });
    expect(store.checks(trial.id).map((c) => [c.idx, c.kind, c.pass, c.confidence, c.evidence])).toEqual([
      [0, "file", true, "verified", { path: "notes/BB-042.md", bytes: 120 }],
      [1, "answer", false, "claimed", { answer: 'done <ok> & "quoted"' }],
    ]);
    expect(() => store.startTrial(trial.id, { folder: "t" })).toThrow(/already done/);
  });

  it("a retry keeps the failed attempt's evidence under its attempt number", () => {
    const store = openAt(join(dir, "umpire.db"));
    const run = store.createRun({ umpireVersion: "0.1.0" });
    const [trial] = store.addTrials(run.id, [planned(0)]);
    store.startTrial(trial.id, { folder: "t/a1" });
    store.recordTurn({ trialId: trial.id, idx: 0, outcome: "error", modelMs: 100, usage: null, costUsd: null });
    store.recordActions([
      {
        trialId: trial.id,
        turnIdx: 0,
        idx: 0,
        callId: "c1",
        tool: "click",
        args: { x: 1, y: 2 },
        status: "failed",
        message: "browser crashed",
        executorMs: 5,
      },
    ]);
    store.finishTrial(
      trial.id,
      result({ verdict: "error", stopReason: "environment_error", error: "browser crashed" }),
      [],
    );

    store.resetTrial(trial.id);
    expect(store.trial(trial.id)).toMatchObject({
      status: "pending",
      retried: true,
      verdict: null,
      error: null,
      attempt: 1,
    });
    expect(store.startTrial(trial.id, { folder: "t/a2" })).toBe(2);
    store.recordTurn({ trialId: trial.id, idx: 0, outcome: "actions", modelMs: 900, usage: null, costUsd: null });
    store.finishTrial(trial.id, result(), [passingCheck]);

    expect(store.turns(trial.id).map((t) => [t.attempt, t.outcome])).toEqual([[2, "actions"]]);
    expect(store.turns(trial.id, { attempt: 1 }).map((t) => t.outcome)).toEqual(["error"]);
    expect(store.turns(trial.id, { attempt: "all" })).toHaveLength(2);
    expect(store.actions(trial.id)).toEqual([]);
    expect(store.actions(trial.id, { attempt: 1 })).toMatchObject([
      { attempt: 1, callId: "c1", status: "failed", message: "browser crashed" },
    ]);
    expect(store.trial(trial.id)).toMatchObject({ verdict: "passed", retried: true, attempt: 2 });
  });

  it("addTrials is idempotent and ids are deterministic per run and seq", () => {
    const store = openAt(join(dir, "umpire.db"));
    const run = store.createRun({ umpireVersion: "0.1.0", id: "shared-run" });
    const first = store.addTrials(run.id, [planned(1), planned(0)]);
    expect(first.map((t) => t.id)).toEqual(["shared-run-0000", "shared-run-0001"]);
    store.startTrial(first[0].id, { folder: "x" });
    const again = store.addTrials(run.id, [planned(0), planned(1)]);
    expect(again[0].status).toBe("running");
    expect(store.trials(run.id)).toHaveLength(2);
  });

  it("durationHistory averages finished, non-error trials per task and agent config", () => {
    const store = openAt(join(dir, "umpire.db"));
    const run = store.createRun({ umpireVersion: "0.1.0" });
    const trials = store.addTrials(run.id, [
      planned(0),
      planned(1, { repeat: 1 }),
      planned(2, { repeat: 2 }),
      planned(3, { mode: "tools", agentLabel: "reference/tools" }),
    ]);
    const walls = [10_000, 14_000, 99_000, 5_000];
    trials.forEach((t, i) => {
      store.startTrial(t.id, { folder: "f" });
      const verdict = i === 2 ? "error" : "passed";
      store.finishTrial(
        t.id,
        result({ verdict, timing: { wallMs: walls[i], modelMs: 0, executorMs: 0, captureMs: 0, checkMs: 0 } }),
        [],
      );
    });
    expect(store.durationHistory()).toEqual([
      { taskId: "save-bb042", agentLabel: "reference/structured", meanWallMs: 12_000, trials: 2 },
      { taskId: "save-bb042", agentLabel: "reference/tools", meanWallMs: 5_000, trials: 1 },
    ]);
  });
});
