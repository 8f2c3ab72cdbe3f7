/**
 * Merging stores (`umpire merge`): the stores of the shards of one run, or of runs made on
 * different machines, into one file that reads as if one machine had made them.
 *
 * - Rows are copied as they are: every key is text (`<runId>-<seq>` for trials), so nothing is
 *   renumbered and the same row from two files is the same row.
 * - A trial present in several files keeps its most advanced state (higher attempt, then
 *   pending < running < done); evidence rows (turns, actions, checks) are unioned by
 *   their keys. So merging the same files again, or a file into itself, changes nothing.
 * - A merged run's status is recomputed: `finished` when every trial of the whole plan is present
 *   and done (shards record the plan's size), `running` while a source is still running, else
 *   `interrupted`. Its `shard` option (this store ran shard i of n) becomes `shards` (n, plan size).
 * - A merged run's CPU is its shards' summed, only when this merge reads every shard (`mergedCpu`).
 * - Files must share the schema version; anything else is refused before the target is touched.
 *   One transaction: a refusal midway (a run id reused for different trials) leaves no trace.
 * - Sources are never migrated here: `checkVersions` refuses a source at another schema version
 *   (open it once with this umpire to upgrade it), so every table below exists in every source.
 *   A store that kept an outside writer's rows as `artifacts_legacy` (migration 7) keeps them in
 *   its own file; they are not umpire's data and are not merged.
 * Trial files (screenshots) are not this module's business: paths are relative to the run folder,
 * and the merged run's folder is set by `runFolder` (the CLI copies the files there).
 */
import { existsSync, realpathSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import Database from "better-sqlite3";
import { UmpireError, isUmpireError, messageOf } from "../errors.js";
import { SCHEMA_VERSION, schemaVersionOf } from "./migrations.js";
import { openStore } from "./open.js";
import type { RunStatus } from "./records.js";
import { mergedRunOptions, runOptionsOf, type StoredShard } from "./run-options.js";

export interface MergeOptions {
  /** Store files to read; the target itself, if listed, is skipped. */
  sources: readonly string[];
  /** The store to merge into; created when missing. */
  into: string;
  /** Folder of a merged run, stored on its row. Default `<folder of into>/runs/<runId>`. */
  runFolder?: (runId: string) => string;
}

export interface MergedRunSource {
  file: string;
  status: RunStatus;
  /** The run's folder as that store recorded it (on the machine that made it). */
  folder: string | null;
  trials: number;
}

export interface MergedRun {
  id: string;
  status: RunStatus;
  /** Trials present after the merge, and how many of them are done. */
  trials: number;
  done: number;
  /** Trials in the run's whole plan (all shards); equals `trials` for an unsharded run. */
  planned: number;
  folder: string;
  sources: MergedRunSource[];
}

export interface MergeResult {
  into: string;
  runs: MergedRun[];
  /** Sources left out because they are the target. */
  skipped: string[];
  /** Things the user should know: missing shards, shards planned on different histories, conflicts. */
  warnings: string[];
}

type Row = Record<string, unknown>;

const CHILD_TABLES = ["turns", "actions", "checks", "judgements"] as const;
const STATUS_RANK: Record<string, number> = { pending: 0, running: 1, done: 2 };
/** Columns that say which trial a row is; two files disagreeing here are not shards of one run. */
const TRIAL_IDENTITY = ["run_id", "seq", "task_id", "agent_label", "model", "mode", "repeat"] as const;

function samePath(a: string, b: string): boolean {
  const real = (p: string) => (existsSync(p) ? realpathSync(p) : resolve(p));
  return real(a) === real(b);
}

function openSource(file: string): Database.Database {
  if (!existsSync(file))
    throw new UmpireError(
      "not_found",
      `no umpire database at ${file}`,
      "check the path (in CI: that every shard's results were downloaded)",
    );
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    db.pragma("busy_timeout = 5000");
    schemaVersionOf(db); // the first read: a file that is not SQLite fails here
    return db;
  } catch (error) {
    if (isUmpireError(error)) throw error;
    throw new UmpireError(
      "store",
      `${file}: cannot read it as umpire's database (${messageOf(error)})`,
      "pass the .db files that umpire run wrote",
    );
  }
}

/** The schema version the target will have once opened (a missing or empty file gets the current one). */
function targetVersion(into: string): number {
  if (!existsSync(into)) return SCHEMA_VERSION;
  const db = openSource(into);
  try {
    return Math.max(schemaVersionOf(db), SCHEMA_VERSION);
  } finally {
    db.close();
  }
}

function checkVersions(sources: { file: string; db: Database.Database }[], into: string): void {
  const target = targetVersion(into);
  for (const { file, db } of sources) {
    const version = schemaVersionOf(db);
    if (version === 0)
      throw new UmpireError(
        "store",
        `${file} is not an umpire database (it has no store schema version)`,
        "pass the .db files that umpire run wrote",
      );
    if (version !== target) {
      throw new UmpireError(
        "store",
        `cannot merge ${file} (store schema version ${version}) into ${into} (store schema version ${target}): the versions differ`,
        version < target
          ? `upgrade ${file} first: open it once with this umpire (e.g. \`umpire runs --db ${file}\`), then merge again`
          : `merge with the umpire that wrote ${file}, or upgrade umpire; ${into} was left untouched`,
      );
    }
  }
}

/** Merges `sources` into `into`. Throws before writing anything when a source cannot be merged. */
export function mergeStores(options: MergeOptions): MergeResult {
  const into = resolve(options.into);
  const runFolder = options.runFolder ?? ((runId: string) => join(dirname(into), "runs", runId));
  const skipped: string[] = [];
  const files: string[] = [];
  for (const given of options.sources) {
    const file = resolve(given);
    if (samePath(file, into)) skipped.push(given);
    else if (!files.some((f) => samePath(f, file))) files.push(file);
  }
  const sources = files.map((file) => ({ file, db: openSource(file) }));
  try {
    checkVersions(sources, into);
    openStore(into).close(); // creates or migrates the target, with the store's own checks
    const db = new Database(into);
    try {
      db.pragma("foreign_keys = ON");
      db.pragma("busy_timeout = 5000");
      return db.transaction(() => mergeInto(db, sources, runFolder, into, skipped))();
    } finally {
      db.close();
    }
  } finally {
    for (const s of sources) s.db.close();
  }
}

interface RunAccumulator {
  sources: MergedRunSource[];
  rows: Row[];
  /** The target held this run before this merge (an earlier merge's CPU may stand). */
  inTarget: boolean;
  plans: Set<string>;
  shardIndexes: Set<number>;
}

function mergeInto(
  db: Database.Database,
  sources: { file: string; db: Database.Database }[],
  runFolder: (id: string) => string,
  into: string,
  skipped: string[],
): MergeResult {
  const columns = (table: string) =>
    (db.prepare(`PRAGMA table_info(${table})`).all() as { name: string }[]).map((c) => c.name);
  const insertOrIgnore = (table: string) => {
    const cols = columns(table);
    return {
      cols,
      stmt: db.prepare(
        `INSERT OR IGNORE INTO ${table} (${cols.join(", ")}) VALUES (${cols.map((c) => `@${c}`).join(", ")})`,
      ),
    };
  };
  const trialCols = columns("trials");
  const upsertTrial = db.prepare(
    `INSERT INTO trials (${trialCols.join(", ")}) VALUES (${trialCols.map((c) => `@${c}`).join(", ")})
     ON CONFLICT (id) DO UPDATE SET ${trialCols
       .filter((c) => c !== "id")
       .map((c) => `${c} = excluded.${c}`)
       .join(", ")}`,
  );
  const runCols = columns("runs");
  const insertRun = db.prepare(
    `INSERT OR IGNORE INTO runs (${runCols.join(", ")}) VALUES (${runCols.map((c) => `@${c}`).join(", ")})`,
  );
  const trialById = db.prepare(`SELECT * FROM trials WHERE id = ?`);
  const children = CHILD_TABLES.map((t) => ({ table: t, ...insertOrIgnore(t) }));
  const warnings: string[] = [];
  const runs = new Map<string, RunAccumulator>();

  for (const { file, db: src } of sources) {
    for (const run of src.prepare(`SELECT * FROM runs ORDER BY id`).all() as Row[]) {
      const id = String(run.id);
      const trials = src.prepare(`SELECT * FROM trials WHERE run_id = ? ORDER BY seq`).all(id) as Row[];
      const acc = runs.get(id) ?? {
        sources: [],
        rows: [],
        inTarget: db.prepare(`SELECT 1 FROM runs WHERE id = ?`).get(id) !== undefined,
        plans: new Set<string>(),
        shardIndexes: new Set<number>(),
      };
      runs.set(id, acc);
      acc.sources.push({
        file,
        status: run.status as RunStatus,
        folder: (run.folder as string | null) ?? null,
        trials: trials.length,
      });
      acc.rows.push(run);
      const shard = shardOf(run);
      if (shard?.plan) acc.plans.add(String(shard.plan));
      if (typeof shard?.index === "number") acc.shardIndexes.add(shard.index);

      insertRun.run(
        pick(run, runCols, { folder: runFolder(id), options: JSON.stringify(mergedRunOptions(storedRun(run))) }),
      );
      for (const trial of trials) {
        const existing = trialById.get(trial.id) as Row | undefined;
        if (!existing) {
          upsertTrial.run(pick(trial, trialCols));
          continue;
        }
        const differs = TRIAL_IDENTITY.filter((c) => existing[c] !== trial[c]);
        if (differs.length > 0) {
          throw new UmpireError(
            "store",
            `trial ${String(trial.id)} is ${describe(existing)} in ${into} but ${describe(trial)} in ${file}: these are not shards of one run`,
            "a --run-id was reused for a different suite; merge these files into separate targets, or rerun with distinct run ids",
          );
        }
        const ahead = compareProgress(trial, existing);
        if (ahead > 0) upsertTrial.run(pick(trial, trialCols));
        else if (
          ahead === 0 &&
          trial.status === "done" &&
          (trial.verdict !== existing.verdict || trial.turns !== existing.turns)
        ) {
          warnings.push(
            `trial ${String(trial.id)} was run twice (attempt ${String(trial.attempt)}): ${String(existing.verdict)} in ${into}, ${String(trial.verdict)} in ${file}; kept the first`,
          );
        }
      }
      for (const child of children) {
        const rows = src
          .prepare(`SELECT * FROM ${child.table} WHERE trial_id IN (SELECT id FROM trials WHERE run_id = ?)`)
          .all(id) as Row[];
        for (const row of rows) child.stmt.run(pick(row, child.cols));
      }
    }
  }

  const merged: MergedRun[] = [];
  for (const [id, acc] of runs) merged.push(settleRun(db, id, acc, runFolder(id), warnings));
  return { into, runs: merged, skipped, warnings };
}

/** Recomputes a merged run's status, times, tags and options from its trials and sources. */
function settleRun(
  db: Database.Database,
  id: string,
  acc: RunAccumulator,
  folder: string,
  warnings: string[],
): MergedRun {
  const target = db.prepare(`SELECT * FROM runs WHERE id = ?`).get(id) as Row;
  const options = mergedRunOptions(storedRun(target));
  const { shards } = runOptionsOf({ id, options });
  // A cancelled trial is not judged: the merged run is finished only when every trial has a verdict of its own.
  const counts = db
    .prepare(
      `SELECT COUNT(*) AS n, COALESCE(SUM(status = 'done' AND verdict IS NOT 'cancelled'), 0) AS done FROM trials WHERE run_id = ?`,
    )
    .get(id) as { n: number; done: number };
  const planned = typeof shards?.trials === "number" ? shards.trials : counts.n;
  const complete = counts.n >= planned && counts.done === counts.n;
  const status: RunStatus = complete
    ? "finished"
    : acc.rows.some((r) => r.status === "running")
      ? "running"
      : "interrupted";
  const rows = [target, ...acc.rows];
  const startedAt = rows.map((r) => String(r.started_at)).sort()[0];
  const ends = rows
    .map((r) => r.ended_at)
    .filter((e): e is string => typeof e === "string")
    .sort();
  const endedAt = status === "running" ? null : (ends.at(-1) ?? null);
  const tags = [...new Set(rows.flatMap((r) => parseArray(r.tags)))];
  db.prepare(
    `UPDATE runs SET status = ?, started_at = ?, ended_at = ?, tags = ?, options = ?, folder = ? WHERE id = ?`,
  ).run(status, startedAt, endedAt, JSON.stringify(tags), JSON.stringify(options), folder, id);
  const cpu = mergedCpu(acc, shards?.total);
  if (cpu)
    db.prepare(`UPDATE runs SET ${CPU_COLUMNS.map((c) => `${c} = @${c}`).join(", ")} WHERE id = @id`).run({
      ...cpu,
      id,
    });

  if (acc.plans.size > 1) {
    warnings.push(
      `run ${id}: its shards computed different assignments (plans ${[...acc.plans].join(", ")}): they saw different duration histories, so some trials may be missing or run twice; give every shard the same --shard-history`,
    );
  }
  if (counts.n < planned) {
    const total = shards?.total ?? 0;
    const seen = new Set([
      ...acc.shardIndexes,
      ...(
        db.prepare(`SELECT DISTINCT shard FROM trials WHERE run_id = ? AND shard IS NOT NULL`).all(id) as {
          shard: string;
        }[]
      ).map((r) => Number(r.shard.split("/")[0])),
    ]);
    const missing = Array.from({ length: total }, (_, i) => i + 1).filter((i) => !seen.has(i));
    warnings.push(
      `run ${id}: ${counts.n} of ${planned} planned trials present${missing.length ? `; shard(s) ${missing.map((i) => `${i}/${total}`).join(", ")} not merged yet` : ""}`,
    );
  }
  return { id, status, trials: counts.n, done: counts.done, planned, folder, sources: acc.sources };
}

const CPU_COLUMNS = ["cpu_seconds", "cpu_trials", "cpu_wall_seconds", "cpu_processes", "cpu_not_measured"] as const;
type CpuColumns = Record<(typeof CPU_COLUMNS)[number], number | string | null>;

/**
 * A merged run's CPU (issue 42 §3): the sum of its shards' when this merge reads every shard's store,
 * each once, so the CPU covers exactly the trials it is divided by. A merged run merged again keeps
 * its CPU; an unsharded run found in several files is one run (its first row). Otherwise, when some
 * shard is missing, the CPU is "not measured" with why, unless the target already held the run (an
 * earlier merge's CPU stands). Null: leave the row's CPU as it is.
 */
function mergedCpu(acc: RunAccumulator, total: number | undefined): CpuColumns | null {
  const cpuOf = (r: Row): CpuColumns =>
    Object.fromEntries(CPU_COLUMNS.map((c) => [c, (r[c] as number | string | null) ?? null])) as CpuColumns;
  const alreadyMerged = acc.rows.find((r) => runOptionsOf(storedRun(r)).shards !== undefined);
  if (alreadyMerged) return cpuOf(alreadyMerged);
  const byShard = new Map<number, Row>();
  for (const r of acc.rows) {
    const index = shardOf(r)?.index;
    if (typeof index === "number" && !byShard.has(index)) byShard.set(index, r);
  }
  if (byShard.size === 0 || !total) return cpuOf(acc.rows[0]!);
  const missing = Array.from({ length: total }, (_, i) => i + 1).filter((i) => !byShard.has(i));
  if (missing.length > 0) {
    if (acc.inTarget) return null;
    return {
      cpu_seconds: null,
      cpu_trials: 0,
      cpu_wall_seconds: null,
      cpu_processes: null,
      cpu_not_measured: `merged without shard(s) ${missing.map((i) => `${i}/${total}`).join(", ")}; a merged run's CPU is summed only when one merge reads every shard's store`,
    };
  }
  const shardRows = [...byShard.entries()].sort(([a], [b]) => a - b);
  const unmeasured = shardRows.filter(([, r]) => r.cpu_seconds === null || r.cpu_seconds === undefined);
  const notes = shardRows
    .filter(([, r]) => typeof r.cpu_not_measured === "string")
    .map(([i, r]) => `shard ${i}/${total}: ${String(r.cpu_not_measured)}`);
  const sum = (c: string) => shardRows.reduce((n, [, r]) => n + Number(r[c] ?? 0), 0);
  return {
    cpu_seconds: unmeasured.length > 0 ? null : sum("cpu_seconds"),
    cpu_trials: sum("cpu_trials"),
    cpu_wall_seconds: sum("cpu_wall_seconds"),
    cpu_processes: Math.max(...shardRows.map(([, r]) => Number(r.cpu_processes ?? 0))),
    cpu_not_measured: notes.length > 0 ? notes.join("; ") : null,
  };
}

/** Positive when `a` is further along than `b`: a later attempt, or the same attempt in a later state. */
function compareProgress(a: Row, b: Row): number {
  return (
    Number(a.attempt) - Number(b.attempt) || (STATUS_RANK[String(a.status)] ?? 0) - (STATUS_RANK[String(b.status)] ?? 0)
  );
}

function describe(trial: Row): string {
  return `seq ${String(trial.seq)} ${String(trial.task_id)} [${String(trial.agent_label)} #${String(trial.repeat)}]`;
}

function shardOf(run: Row): StoredShard | undefined {
  return runOptionsOf(storedRun(run)).shard;
}

/** A run row's id and options, for the options' schema (`run-options.ts`). */
function storedRun(run: Row): { id: string; options: Record<string, unknown> } {
  return { id: String(run.id), options: parseObject(run.options) };
}

function parseObject(text: unknown): Record<string, unknown> {
  try {
    const value = JSON.parse(String(text));
    return value && typeof value === "object" && !Array.isArray(value) ? value : {};
  } catch {
    return {};
  }
}

function parseArray(text: unknown): string[] {
  try {
    const value = JSON.parse(String(text));
    return Array.isArray(value) ? value.map(String) : [];
  } catch {
    return [];
  }
}

/** The named columns of a row (undefined ones as null), with overrides. */
function pick(row: Row, cols: readonly string[], overrides: Row = {}): Row {
  return Object.fromEntries(cols.map((c) => [c, c in overrides ? overrides[c] : (row[c] ?? null)]));
}
