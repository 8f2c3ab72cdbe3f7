/**
 * Shards and `umpire merge` through the real CLI: one run made unsharded, the same run made as
 * shards 1/3, 2/3, 3/3 "on three machines" (own databases and result folders), merged, and compared
 * trial for trial. The reference model makes results deterministic.
 */
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { main } from "../../../src/cli/main.js";
import { SCHEMA_VERSION } from "../../../src/store/migrations.js";
import { openStore } from "../../../src/store/open.js";
import type { RunRecord, TrialRecord } from "../../../src/store/records.js";
import { capture } from "./support.js";

const TASKS = ["answer-only-bb042", "infeasible-bb999", "api-note-bb042"];
let dir: string;
const machine = (i: number) => join(dir, `m${i}`, "results");

async function umpire(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const { io, text } = capture();
  const code = await main(args, io);
  return { code, ...text };
}

function trialsOf(file: string, runId: string): TrialRecord[] {
  const store = openStore(file, { readonly: true });
  try {
    return store.trials(runId);
  } finally {
    store.close();
  }
}

/** Every row of every table, in key order: two equal dumps are equal stores. */
function runOf(file: string, runId: string): RunRecord {
  const store = openStore(file, { readonly: true });
  try {
    return store.getRun(runId);
  } finally {
    store.close();
  }
}

function dump(file: string): string {
  const db = new Database(file, { readonly: true });
  try {
    const tables = (
      db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all() as { name: string }[]
    ).map((t) => t.name);
    return JSON.stringify(
      tables.map((t) => [
        t,
        db
          .prepare(`SELECT * FROM ${t}`)
          .all()
          .map((row) => JSON.stringify(row))
          .sort(),
      ]),
    );
  } finally {
    db.close();
  }
}

/** Turn screenshots and trial folders of every attempt, as paths under the run folder; all must exist. */
function missingFiles(file: string, runId: string): string[] {
  const store = openStore(file, { readonly: true });
  try {
    const folder = store.getRun(runId).folder!;
    const paths = store
      .trials(runId)
      .flatMap((t) => [...store.turns(t.id, { attempt: "all" }).map((turn) => turn.screenshot!.path), t.folder!]);
    expect(paths.length).toBeGreaterThan(6);
    return paths.filter((p) => !existsSync(join(folder, p)));
  } finally {
    store.close();
  }
}

const comparable = (t: TrialRecord) => ({
  seq: t.seq,
  id: t.id.slice(t.runId.length),
  task: t.taskId,
  agent: t.agentLabel,
  repeat: t.repeat,
  verdict: t.verdict,
  stop: t.stopReason,
  turns: t.turns,
  status: t.status,
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "umpire-merge-"));
  const common = ["--mode", "both", "--concurrency", "2", "--json"];
  const whole = await umpire(
    "run",
    ...TASKS,
    ...common,
    "--run-id",
    "WHOLE",
    "--db",
    join(dir, "whole", "umpire.db"),
    "--out",
    join(dir, "whole", "runs"),
  );
  expect(whole.code, whole.err).toBe(0);
  for (const i of [1, 2, 3]) {
    const shard = await umpire(
      "run",
      ...TASKS,
      ...common,
      "--shard",
      `${i}/3`,
      "--run-id",
      "SHARDED",
      "--db",
      join(machine(i), `shard-${i}.db`),
      "--out",
      join(machine(i), "runs"),
    );
    expect(shard.code, shard.err).toBe(0);
  }
}, 300_000);
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("shards of one run", () => {
  it("hold disjoint trials that together are the unsharded run's, with the same ids", () => {
    const parts = [1, 2, 3].map((i) => trialsOf(join(machine(i), `shard-${i}.db`), "SHARDED"));
    const ids = parts.flat().map((t) => t.id.replace("SHARDED", ""));
    expect(new Set(ids).size).toBe(ids.length);
    expect([...ids].sort()).toEqual(
      trialsOf(join(dir, "whole", "umpire.db"), "WHOLE")
        .map((t) => t.id.replace("WHOLE", ""))
        .sort(),
    );
    parts.forEach((part, i) => {
      expect(part.length).toBe(2);
      expect(part.every((t) => t.shard === `${i + 1}/3`)).toBe(true);
    });
  });
});

describe("umpire merge", () => {
  const merged = () => join(dir, "merged", "umpire.db");

  it("merges the three shard stores into a run that reads like the unsharded one, trial for trial", async () => {
    const result = await umpire(
      "merge",
      ...[1, 2, 3].map((i) => join(machine(i), `shard-${i}.db`)),
      "--into",
      merged(),
    );
    expect(result.code, result.err).toBe(0);
    expect(result.out).toContain("run SHARDED: finished, 6 of 6 trials done");
    expect(trialsOf(merged(), "SHARDED").map(comparable)).toEqual(
      trialsOf(join(dir, "whole", "umpire.db"), "WHOLE").map(comparable),
    );
    const store = openStore(merged(), { readonly: true });
    try {
      const run = store.getRun("SHARDED");
      expect(run.status).toBe("finished");
      expect(run.options).not.toHaveProperty("shard");
      expect(run.options).toMatchObject({ shards: { total: 3, trials: 6 } });
      expect(run.folder).toBe(join(dir, "merged", "runs", "SHARDED"));
      // CPU per episode divides the CPU of all three shards by all six trials (the first shard's alone before).
      const shards = [1, 2, 3].map((i) => runOf(join(machine(i), `shard-${i}.db`), "SHARDED").cpu!);
      expect(shards.every((c) => c.seconds !== null && c.seconds > 0)).toBe(true);
      expect(run.cpu?.trials).toBe(6);
      expect(run.cpu?.seconds).toBeCloseTo(
        shards.reduce((n, c) => n + (c.seconds ?? 0), 0),
        6,
      );
      expect(run.cpu?.notMeasured).toBeNull();
    } finally {
      store.close();
    }
  });

  it("brings the trial folders together so every stored screenshot path and trial folder resolves", () => {
    expect(missingFiles(merged(), "SHARDED")).toEqual([]);
  });

  it("is idempotent: merging the same stores again (the target among them) changes nothing", async () => {
    const before = dump(merged());
    const filesBefore = readdirSync(join(dir, "merged", "runs", "SHARDED")).sort();
    const again = await umpire(
      "merge",
      join(dir, "merged", "umpire.db"),
      ...[3, 1, 2].map((i) => join(machine(i), `shard-${i}.db`)),
      "--into",
      merged(),
    );
    expect(again.code, again.err).toBe(0);
    expect(again.out).toContain("it is the target");
    expect(dump(merged())).toBe(before);
    expect(readdirSync(join(dir, "merged", "runs", "SHARDED")).sort()).toEqual(filesBefore);
    // A merged store merged into another gives the same rows there too.
    const copy = join(dir, "copy", "umpire.db");
    expect((await umpire("merge", merged(), "--into", copy)).code).toBe(0);
    expect((await umpire("merge", merged(), "--into", copy)).code).toBe(0);
    expect(trialsOf(copy, "SHARDED").map(comparable)).toEqual(trialsOf(merged(), "SHARDED").map(comparable));
  });

  it("marks a run with a shard missing as interrupted and says which shard", async () => {
    const partial = await umpire(
      "merge",
      join(machine(1), "shard-1.db"),
      join(machine(3), "shard-3.db"),
      "--into",
      join(dir, "partial", "umpire.db"),
    );
    expect(partial.code).toBe(0);
    expect(partial.out).toContain("run SHARDED: interrupted, 4 of 6 trials done");
    expect(partial.err).toContain("shard(s) 2/3 not merged yet");
    const cpu = runOf(join(dir, "partial", "umpire.db"), "SHARDED").cpu;
    expect(cpu?.seconds).toBeNull();
    expect(cpu?.notMeasured).toContain("merged without shard(s) 2/3");
  });

  it("works in the CI layout: every machine's results/ downloaded into one folder, the machines gone", async () => {
    const results = join(dir, "ci", "results");
    mkdirSync(results, { recursive: true });
    for (const i of [1, 2, 3]) cpSync(machine(i), results, { recursive: true });
    for (const i of [1, 2, 3]) rmSync(join(dir, `m${i}`), { recursive: true, force: true });
    const ci = await umpire(
      "merge",
      join(results, "shard-1.db"),
      join(results, "shard-2.db"),
      join(results, "shard-3.db"),
      "--into",
      join(results, "umpire.db"),
    );
    expect(ci.code, ci.err).toBe(0);
    expect(ci.err).not.toContain("warning");
    expect(missingFiles(join(results, "umpire.db"), "SHARDED")).toEqual([]);
    expect(trialsOf(join(results, "umpire.db"), "SHARDED").map(comparable)).toEqual(
      trialsOf(join(dir, "whole", "umpire.db"), "WHOLE").map(comparable),
    );
  });

  it("refuses a store with another schema version, naming both versions and files, and leaves the target untouched", async () => {
    const other = join(dir, "other-version.db");
    cpSync(join(dir, "whole", "umpire.db"), other);
    const db = new Database(other);
    // Another version than the current one (an older store written by an earlier umpire).
    const otherVersion = SCHEMA_VERSION - 1;
    db.prepare(`UPDATE meta SET value = ? WHERE key = 'schema_version'`).run(String(otherVersion));
    db.close();
    const before = dump(merged());
    const refused = await umpire("merge", other, "--into", merged());
    expect(refused.code).toBe(2);
    expect(refused.err).toContain(
      `cannot merge ${other} (store schema version ${otherVersion}) into ${merged()} (store schema version ${SCHEMA_VERSION})`,
    );
    expect(dump(merged())).toBe(before);
    const fresh = join(dir, "never-made", "umpire.db");
    expect((await umpire("merge", other, "--into", fresh)).code).toBe(2);
    expect(existsSync(fresh)).toBe(false);
  });

  it("refuses stores that reuse a run id for different trials, writing nothing", async () => {
    const make = (file: string, task: string) => {
      const store = openStore(file);
      store.createRun({ id: "REUSED", umpireVersion: "test" });
      store.addTrials("REUSED", [
        {
          seq: 0,
          taskId: task,
          taskFile: `${task}.yaml`,
          agentLabel: "reference/structured",
          model: "reference",
          mode: "structured",
          repeat: 0,
        },
      ]);
      store.close();
    };
    make(join(dir, "a.db"), "answer-only-bb042");
    make(join(dir, "b.db"), "infeasible-bb999");
    const target = join(dir, "reused", "umpire.db");
    const refused = await umpire("merge", join(dir, "a.db"), join(dir, "b.db"), "--into", target);
    expect(refused.code).toBe(2);
    expect(refused.err).toMatch(
      /trial REUSED-0000 is seq 0 answer-only-bb042 .* but seq 0 infeasible-bb999 .*: these are not shards of one run/,
    );
    const store = openStore(target, { readonly: true });
    try {
      expect(store.listRuns()).toEqual([]);
    } finally {
      store.close();
    }
  });
});
