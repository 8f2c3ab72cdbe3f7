import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore, MIGRATIONS, type Migration } from "../../../src/store/index.js";
import { planned, result, tempDir } from "./fixtures.js";

let dir: string;
let cleanup: () => void;
beforeEach(() => ({ dir, cleanup } = tempDir()));
afterEach(() => cleanup());

/** The real migrations plus a hypothetical next one that adds a column with a default. */
const withV2: Migration[] = [
  ...MIGRATIONS,
  {
    version: MIGRATIONS.length + 1,
    umpireVersion: "9.9.9",
    description: "test: a host column on runs",
    sql: "ALTER TABLE runs ADD COLUMN host TEXT NOT NULL DEFAULT 'unknown';",
  },
];

describe("migrations", () => {
  it("upgrades an older database in order and keeps its rows", () => {
    const file = join(dir, "umpire.db");
    const v1 = openStore(file);
    const run = v1.createRun({ umpireVersion: "0.1.0", tags: ["old"] });
    v1.close();

    const v2 = openStore(file, { migrations: withV2 });
    expect(v2.schemaVersion).toBe(MIGRATIONS.length + 1);
    expect(v2.getRun(run.id).tags).toEqual(["old"]);
    v2.close();

    const raw = new Database(file, { readonly: true });
    expect(raw.prepare("SELECT host FROM runs").get()).toEqual({ host: "unknown" });
    expect(raw.prepare("SELECT value FROM meta WHERE key = 'min_umpire_version'").get()).toEqual({ value: "9.9.9" });
    raw.close();

    // The current umpire (which knows only the real migrations) now refuses the upgraded file.
    expect(() => openStore(file)).toThrow(/umpire 9\.9\.9 or later/);
  });

  it("a read-only open of an older schema migrates it first", () => {
    const file = join(dir, "umpire.db");
    openStore(file).close();
    const reader = openStore(file, { readonly: true, migrations: withV2 });
    expect(reader.schemaVersion).toBe(MIGRATIONS.length + 1);
    reader.close();
  });

  it("a failing migration leaves the last good version and every row", () => {
    const file = join(dir, "umpire.db");
    const v1 = openStore(file);
    const run = v1.createRun({ umpireVersion: "0.1.0" });
    v1.close();
    const broken: Migration[] = [
      ...MIGRATIONS,
      { version: MIGRATIONS.length + 1, umpireVersion: "9.9.9", description: "broken", sql: "ALTER TABLE runs ADD COLUMN a TEXT; SELECT * FROM no_such_table;" },
    ];
    expect(() => openStore(file, { migrations: broken })).toThrow(/no such table/);
    const again = openStore(file);
    expect(again.schemaVersion).toBe(MIGRATIONS.length);
    expect(again.getRun(run.id).id).toBe(run.id);
    again.close();
    const raw = new Database(file, { readonly: true });
    const columns = (raw.prepare("PRAGMA table_info(runs)").all() as { name: string }[]).map((c) => c.name);
    expect(columns).not.toContain("a");
    raw.close();
  });

  it("rejects a migration list that is out of order", () => {
    const file = join(dir, "umpire.db");
    const gap: Migration[] = [...MIGRATIONS, { version: MIGRATIONS.length + 2, umpireVersion: "1", description: "gap", sql: "" }];
    expect(() => openStore(file, { migrations: gap })).toThrow(/out of order/);
  });
});

describe("migration: verdict cancelled", () => {
  it("upgrades a version-1 database without losing trials or their children, and then stores `cancelled`", () => {
    const file = join(dir, "umpire.db");
    // A database as the previous umpire wrote it: only the first migration.
    const old = openStore(file, { migrations: MIGRATIONS.slice(0, 1) });
    const run = old.createRun({ umpireVersion: "0.1.0" });
    const [trial] = old.addTrials(run.id, [planned(0)]);
    old.startTrial(trial.id, { folder: "t0" });
    old.recordTurn({ trialId: trial.id, idx: 0, outcome: "actions", modelMs: 5, usage: null, costUsd: null });
    old.finishTrial(trial.id, result(), [{ kind: "file", name: "note", required: true, pass: true, confidence: "verified", reason: "ok", ms: 1 }]);
    expect(() => old.finishTrial(trial.id, result({ verdict: "cancelled" as never }), [])).toThrow(/CHECK constraint/);
    old.close();

    const store = openStore(file);
    expect(store.schemaVersion).toBe(MIGRATIONS.length);
    expect(store.trial(trial.id)).toMatchObject({ verdict: "passed", status: "done", attempt: 1 });
    // Rebuilding the trials table must not cascade-delete its turns and checks.
    expect(store.turns(trial.id)).toHaveLength(1);
    expect(store.checks(trial.id)).toHaveLength(1);
    const [second] = store.addTrials(run.id, [planned(1)]);
    store.startTrial(second.id, { folder: "t1" });
    store.finishTrial(second.id, result({ verdict: "cancelled", stopReason: "cancelled" }), []);
    expect(store.unfinishedTrials(run.id).map((t) => t.id)).toEqual([second.id]);
    // A cancelled trial starts again under the next attempt number.
    expect(store.startTrial(second.id, { folder: "t1-2" })).toBe(2);
    store.close();
    const raw = new Database(file, { readonly: true });
    expect((raw.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'trials_by_task_agent'").all() as unknown[]).length).toBe(1);
    raw.close();
  });
});
