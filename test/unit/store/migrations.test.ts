import { copyFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openStore } from "../../../src/store/open.js";
import { MIGRATIONS, type Migration } from "../../../src/store/migrations.js";
import { passingCheck, planned, result, tempDir } from "./fixtures.js";

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
      {
        version: MIGRATIONS.length + 1,
        umpireVersion: "9.9.9",
        description: "broken",
        sql: "ALTER TABLE runs ADD COLUMN a TEXT; SELECT * FROM no_such_table;",
      },
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
    const gap: Migration[] = [
      ...MIGRATIONS,
      { version: MIGRATIONS.length + 2, umpireVersion: "1", description: "gap", sql: "" },
    ];
    expect(() => openStore(file, { migrations: gap })).toThrow(/out of order/);
  });
});

describe("migration: verdict cancelled", () => {
  /** A database written by umpire at schema version 1 (see test/fixtures/make-store-v1.ts). */
  const FIXTURE = join(__dirname, "../../fixtures/store-v1.db");

  it("upgrades a version-1 database without losing trials or their children, and then stores `cancelled`", () => {
    const file = join(dir, "umpire.db");
    copyFileSync(FIXTURE, file);
    const old = new Database(file);
    const [first] = old.prepare("SELECT id FROM trials ORDER BY seq").all() as { id: string }[];
    // Schema 1 refuses the new verdict.
    expect(() => old.prepare("UPDATE trials SET verdict = 'cancelled' WHERE id = ?").run(first!.id)).toThrow(
      /CHECK constraint/,
    );
    old.close();

    const store = openStore(file);
    expect(store.schemaVersion).toBe(MIGRATIONS.length);
    expect(store.trial(first!.id)).toMatchObject({ verdict: "passed", status: "done", attempt: 1 });
    // Rebuilding the trials table must not cascade-delete its turns and checks.
    expect(store.turns(first!.id)).toHaveLength(1);
    expect(store.checks(first!.id)).toHaveLength(2);
    const runId = store.trial(first!.id)!.runId;
    const [second] = store.addTrials(runId, [planned(5)]);
    store.startTrial(second.id, { folder: "t5" });
    store.finishTrial(second.id, result({ verdict: "cancelled", stopReason: "cancelled" }), []);
    expect(store.unfinishedTrials(runId).map((t) => t.id)).toEqual([second.id]);
    // A cancelled trial starts again under the next attempt number.
    expect(store.startTrial(second.id, { folder: "t5-2" })).toBe(2);
    store.close();
    const raw = new Database(file, { readonly: true });
    expect(
      (
        raw
          .prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'trials_by_task_agent'")
          .all() as unknown[]
      ).length,
    ).toBe(1);
    raw.close();
  });
});

describe("schema 4 (answer and task columns): the stored trial is complete", () => {
  /** A database written by umpire at schema version 1 (see test/fixtures/make-store-v1.ts). */
  const FIXTURE = join(__dirname, "../../fixtures/store-v1.db");

  it("upgrades a database written by schema 1 without losing a row; old trials read as unknown", () => {
    const file = join(dir, "old.db");
    copyFileSync(FIXTURE, file);
    const before = new Database(file, { readonly: true });
    const count = (db: Database.Database, table: string) =>
      (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
    const tables = ["runs", "trials", "turns", "actions", "checks"];
    const counts = Object.fromEntries(tables.map((t) => [t, count(before, t)]));
    expect(before.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({ value: "1" });
    before.close();
    expect(counts).toEqual({ runs: 1, trials: 2, turns: 1, actions: 1, checks: 3 });

    const store = openStore(file);
    expect(store.schemaVersion).toBe(MIGRATIONS.length);
    const trials = store.trials("20260101-000000-v1");
    expect(trials.map((t) => [t.taskId, t.verdict])).toEqual([
      ["save-bb042", "passed"],
      ["infeasible-bb999", "failed"],
    ]);
    expect(trials[0]).toMatchObject({
      answer: null,
      taskTitle: null,
      taskTags: null,
      taskHash: null,
      turns: 4,
      costUsd: 0.0304,
    });
    expect(store.checks(trials[0]!.id)).toHaveLength(2);
    expect(store.turns(trials[0]!.id)[0]).toMatchObject({ note: "n", thought: "t" });
    expect(store.actions(trials[0]!.id)[0]).toMatchObject({ tool: "click", args: { x: 500, y: 300 } });
    expect(store.getRun("20260101-000000-v1")).toMatchObject({ tags: ["gold"], status: "finished" });
    store.close();

    const after = new Database(file, { readonly: true });
    expect(Object.fromEntries(tables.map((t) => [t, count(after, t)]))).toEqual(counts);
    after.close();
  });

  it("stores the answer with the result and the task's title, tags and hash with the plan", () => {
    const store = openStore(join(dir, "new.db"));
    const run = store.createRun({ umpireVersion: "test" });
    const [t] = store.addTrials(run.id, [
      {
        seq: 0,
        taskId: "a",
        taskFile: "tasks/a.yaml",
        agentLabel: "r/s",
        model: "r",
        mode: "structured",
        repeat: 0,
        taskTitle: "Save a note",
        taskTags: ["trap", "notes"],
        taskHash: "sha256:abc",
      },
    ]);
    expect(t).toMatchObject({
      taskTitle: "Save a note",
      taskTags: ["trap", "notes"],
      taskHash: "sha256:abc",
      answer: null,
    });
    store.startTrial(t!.id, { folder: "t0" });
    store.finishTrial(
      t!.id,
      {
        stopReason: "answered",
        stopDetail: "",
        verdict: "passed",
        answer: "Saved notes/BB-042.md",
        claimed: true,
        verified: true,
        turns: 1,
        actions: 1,
        usage: null,
        costUsd: null,
        timing: { wallMs: 1, modelMs: 1, executorMs: 0, captureMs: 0, checkMs: 0 },
      },
      [],
    );
    expect(store.trial(t!.id)!.answer).toBe("Saved notes/BB-042.md");
    // A retry clears the result, the answer with it; the task as planned stays.
    store.resetTrial(t!.id);
    expect(store.trial(t!.id)).toMatchObject({ answer: null, taskTitle: "Save a note", taskHash: "sha256:abc" });
    store.close();
  });
});

describe("schema 7: the artifacts table nothing wrote is retired", () => {
  /** A database written by umpire at schema version 1 (see test/fixtures/make-store-v1.ts); it holds one artifact row. */
  const FIXTURE = join(__dirname, "../../fixtures/store-v1.db");
  const TABLES = ["runs", "trials", "turns", "actions", "checks"];
  const tableNames = (db: Database.Database) =>
    (db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").all() as { name: string }[]).map(
      (t) => t.name,
    );
  const all = (db: Database.Database, table: string) => db.prepare(`SELECT * FROM ${table} ORDER BY rowid`).all();

  /** The fixture copied to `name`, optionally edited with raw SQL, and every row of the kept tables. */
  function copyFixture(name: string, edit?: string): { file: string; before: Record<string, unknown[]> } {
    const file = join(dir, name);
    copyFileSync(FIXTURE, file);
    const raw = new Database(file);
    if (edit) raw.exec(edit);
    const before = Object.fromEntries(TABLES.map((t) => [t, all(raw, t)]));
    raw.close();
    return { file, before };
  }

  it("drops the empty table of a schema-1 database and keeps every other row", () => {
    // Umpire itself never wrote an artifact row: a store it made has the table empty.
    const { file, before } = copyFixture("empty-artifacts.db", "DELETE FROM artifacts");
    const store = openStore(file);
    expect(store.schemaVersion).toBe(MIGRATIONS.length);
    expect("artifacts" in store).toBe(false);
    const [first] = store.trials("20260101-000000-v1");
    expect(store.turns(first!.id)).toHaveLength(1);
    expect(store.checks(first!.id)).toHaveLength(2);
    store.close();

    const after = new Database(file, { readonly: true });
    expect(tableNames(after)).not.toContain("artifacts");
    expect(tableNames(after)).not.toContain("artifacts_legacy");
    // Every kept table holds the same rows as before (later migrations add columns, NULL for old rows).
    for (const t of TABLES) expect(all(after, t), t).toMatchObject(before[t] as object[]);
    after.close();
  });

  it("keeps an outside writer's artifact rows under artifacts_legacy", () => {
    const { file, before } = copyFixture("with-artifacts.db");
    const raw = new Database(file, { readonly: true });
    const legacyRows = all(raw, "artifacts");
    raw.close();
    expect(legacyRows).toEqual([
      expect.objectContaining({
        kind: "events",
        path: "0000-save-bb042/events.jsonl",
        sha256: "0".repeat(64),
        bytes: 10,
        attempt: 1,
      }),
    ]);

    openStore(file).close();
    const after = new Database(file, { readonly: true });
    expect(tableNames(after)).not.toContain("artifacts");
    expect(all(after, "artifacts_legacy")).toEqual(legacyRows);
    for (const t of TABLES) expect(all(after, t), t).toMatchObject(before[t] as object[]);
    expect(after.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get()).toEqual({
      value: String(MIGRATIONS.length),
    });
    after.close();

    // Opening it again (now at the current version) changes nothing.
    openStore(file).close();
    const again = new Database(file, { readonly: true });
    expect(all(again, "artifacts_legacy")).toEqual(legacyRows);
    again.close();
  });

  it("a new store never has the table", () => {
    const file = join(dir, "new.db");
    openStore(file).close();
    const raw = new Database(file, { readonly: true });
    expect(tableNames(raw).filter((t) => t.startsWith("artifacts"))).toEqual([]);
    raw.close();
  });
});

describe("schema 8: trials of agents of kind command are stored as mode external", () => {
  it("accepts external for new trials and corrects the rows stored as structured before", () => {
    const file = join(dir, "v7.db");
    const seven = openStore(file, { migrations: MIGRATIONS.slice(0, 7) });
    expect(seven.schemaVersion).toBe(7);
    // As an umpire at schema 7 stored a run of one command agent and one model agent.
    const run = seven.createRun({
      umpireVersion: "0.2.0",
      options: { commandAgents: [{ name: "ts-agent", kind: "command" }] },
    });
    const other = seven.createRun({ umpireVersion: "0.2.0", options: {} });
    seven.addTrials(run.id, [
      planned(0, { agentLabel: "ts-agent", model: "command:ts-agent", mode: "structured" }),
      planned(1, { agentLabel: "reference/structured", model: "reference", mode: "structured" }),
    ]);
    // A model agent that happens to share the name in another run is not touched.
    seven.addTrials(other.id, [planned(0, { agentLabel: "ts-agent", model: "reference", mode: "structured" })]);
    expect(() => seven.addTrials(run.id, [planned(2, { mode: "external" })])).toThrow(/CHECK constraint/);
    const [done] = seven.trials(run.id);
    seven.startTrial(done!.id, { folder: "t0" });
    seven.recordTurn({ trialId: done!.id, idx: 0, outcome: "actions", modelMs: 1, usage: null, costUsd: null });
    seven.finishTrial(done!.id, result(), [passingCheck]);
    seven.close();

    const store = openStore(file);
    expect(store.schemaVersion).toBe(MIGRATIONS.length);
    expect(store.trials(run.id).map((t) => [t.agentLabel, t.mode])).toEqual([
      ["ts-agent", "external"],
      ["reference/structured", "structured"],
    ]);
    expect(store.trials(other.id).map((t) => t.mode)).toEqual(["structured"]);
    // Rebuilding the trials table kept the evidence of the finished trial.
    expect(store.turns(done!.id)).toHaveLength(1);
    expect(store.checks(done!.id)).toHaveLength(1);
    const [added] = store.addTrials(run.id, [planned(2, { agentLabel: "py-agent", mode: "external" })]);
    expect(store.trial(added!.id)!.mode).toBe("external");
    expect(() => store.addTrials(run.id, [planned(3, { mode: "other" as never })])).toThrow(/not a protocol's name/);
    store.close();
  });
});
