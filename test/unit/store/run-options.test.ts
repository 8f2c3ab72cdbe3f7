/**
 * A run's stored options read back through one schema (src/store/run-options.ts): rows written by
 * earlier umpire versions (fields missing, numbers stored as the flag's text) still read, with
 * the defaults their absence meant; a damaged field is an input error naming the run and the field;
 * a merged shard's options are renamed as `umpire merge` writes them, unknown fields kept.
 */
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UmpireError } from "../../../src/errors.js";
import { mergedRunOptions } from "../../../src/store/run-options.js";
import { openStore } from "../../../src/store/open.js";
import { runOptionsOf } from "../../../src/store/run-options.js";
import { tempDir } from "./fixtures.js";

let dir: string;
let cleanup: () => void;
beforeEach(() => {
  ({ dir, cleanup } = tempDir());
});
afterEach(() => cleanup());

/** Stores a run, then overwrites its options column with `json` as an earlier umpire wrote it. */
function runWrittenAs(json: string) {
  const file = join(dir, "umpire.db");
  const store = openStore(file);
  const id = store.createRun({ umpireVersion: "0.1.0", options: {} }).id;
  store.close();
  const db = new Database(file);
  db.prepare("UPDATE runs SET options = ? WHERE id = ?").run(json, id);
  db.close();
  const reader = openStore(file, { readonly: true });
  try {
    return reader.getRun(id);
  } finally {
    reader.close();
  }
}

describe("stored run options", () => {
  it("reads the concurrency policy in every stored form: a number (pinned), the text of earlier adaptive runs, the typed value", () => {
    const read = (concurrency: unknown) => runOptionsOf(runWrittenAs(JSON.stringify({ concurrency }))).concurrency;
    expect(read(4)).toEqual({ mode: "pinned", trials: 4 });
    expect(read("adaptive (max 32)")).toEqual({ mode: "adaptive", start: null, max: 32 });
    expect(read({ mode: "adaptive", start: 2, max: 8 })).toEqual({ mode: "adaptive", start: 2, max: 8 });
    expect(read({ mode: "pinned", trials: 3 })).toEqual({ mode: "pinned", trials: 3 });
    expect(() => read("as fast as it goes")).toThrow(/concurrency/);
  });

  it("reads a row of umpire's first versions: no named or command agents, numbers as text, defaults filled in", () => {
    // The shape 4bd1be1 wrote: no unnamedAgents, commandAgents, config or agentNames; temperature as the flag's text.
    const run = runWrittenAs(
      JSON.stringify({
        paths: ["tasks/a.yaml"],
        agentOptions: { model: ["reference"], temperature: "0.5" },
        repeat: 2,
        concurrency: 4,
        agents: [],
      }),
    );
    const options = runOptionsOf(run);
    expect(options.paths).toEqual(["tasks/a.yaml"]);
    expect(options.repeat).toBe(2);
    expect(options.agentOptions.temperature).toBe(0.5);
    expect(options.unnamedAgents).toBe(true);
    expect(options.commandAgents).toEqual([]);
    expect(options.agentNames).toEqual([]);
    // The record itself stays as stored (runs --json shows it so).
    expect(run.options).not.toHaveProperty("unnamedAgents");
  });

  it("reads a row with no options at all, and keeps fields this version does not know", () => {
    const empty = runOptionsOf(runWrittenAs("{}"));
    expect(empty).toMatchObject({ paths: [], repeat: 1, agents: [], unnamedAgents: true, agentOptions: {} });
    const newer = runOptionsOf(runWrittenAs(JSON.stringify({ repeat: 3, fromTheFuture: { x: 1 } })));
    expect(newer.fromTheFuture).toEqual({ x: 1 });
  });

  it("refuses a damaged field with an input error naming the run, the field and what to do", () => {
    const run = runWrittenAs(JSON.stringify({ repeat: "many" }));
    let error: unknown;
    try {
      runOptionsOf(run);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UmpireError);
    expect((error as UmpireError).code).toBe("input");
    expect((error as UmpireError).message).toContain(`run ${run.id}: its stored options.repeat does not read`);
    expect((error as UmpireError).hint).toContain("start a new run");
  });

  it("merges a shard's options into the run's: shard (with its index) becomes shards (without), the rest as stored", () => {
    const shard = { index: 2, total: 3, trials: 12, balance: "duration", plan: "abc", extra: true };
    const merged = mergedRunOptions({ id: "r1", options: { paths: ["p"], shard, somethingNew: 1 } });
    expect(merged).toEqual({
      paths: ["p"],
      somethingNew: 1,
      shards: { total: 3, trials: 12, balance: "duration", plan: "abc", extra: true },
    });
    expect(mergedRunOptions({ id: "r2", options: { paths: ["p"] } })).toEqual({ paths: ["p"] });
  });
});

describe("per-task part hashes (issue 36)", () => {
  it("survive the store's redaction whatever the task's id: a task named like a secret keeps its parts", () => {
    const file = join(dir, "umpire.db");
    const store = openStore(file);
    const parts = { instruction: "31ddfec2b895", checks: "b1de80b346c0" };
    const taskParts = [
      { task: "cookie-escape-note-bb042", parts },
      { task: "api-note-bb042", parts },
    ];
    const id = store.createRun({ umpireVersion: "0.2.0", options: { taskParts } }).id;
    expect(runOptionsOf(store.getRun(id)).taskParts).toEqual(taskParts);
    store.close();
  });
});
