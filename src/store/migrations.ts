/**
 * The store's schema, as an ordered list of migrations, and the code that applies them.
 *
 * Rules for adding a migration: append it with the next version number and the umpire version that
 * first ships it; never edit a released one. A database whose version is newer than the last
 * migration here was written by a newer umpire and is refused untouched (never "repaired").
 *
 * Design notes for merging shards (`umpire merge`, issue 9): every key is text or a composite of
 * natural columns, never an autoincrement number, so rows from several stores of the same logical
 * run (shared `--run-id`, trial ids `<runId>-<seq>`) merge with `INSERT OR IGNORE` and no renumbering;
 * screenshot paths are relative to the run folder; `trials.shard` records which shard ran a trial.
 */
import type Database from "better-sqlite3";
import { UmpireError } from "../errors.js";

export interface Migration {
  version: number;
  /** The first umpire version that writes this schema; quoted when an older umpire refuses it. */
  umpireVersion: string;
  description: string;
  sql: string;
  /**
   * Code run after `sql` in the same transaction, for changes SQL alone cannot say (SQLite cannot
   * alter a CHECK constraint: the table is rebuilt from its stored definition).
   */
  run?: (db: Database.Database) => void;
  /**
   * The migration rebuilds a table that others reference: foreign keys are switched off around it
   * (otherwise dropping the old table would cascade-delete the children) and checked before commit.
   */
  rebuildsTables?: boolean;
}

const V1 = `
CREATE TABLE runs (
  id             TEXT PRIMARY KEY,
  started_at     TEXT NOT NULL,
  ended_at       TEXT,
  status         TEXT NOT NULL CHECK (status IN ('running', 'finished', 'interrupted')),
  tags           TEXT NOT NULL DEFAULT '[]',
  options        TEXT NOT NULL DEFAULT '{}',
  umpire_version TEXT NOT NULL,
  folder         TEXT
);

CREATE TABLE trials (
  id               TEXT PRIMARY KEY,
  run_id           TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
  seq              INTEGER NOT NULL,
  task_id          TEXT NOT NULL,
  task_file        TEXT NOT NULL,
  agent_label      TEXT NOT NULL,
  model            TEXT NOT NULL,
  mode             TEXT NOT NULL CHECK (mode IN ('structured', 'tools')),
  repeat           INTEGER NOT NULL,
  status           TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done')),
  attempt          INTEGER NOT NULL DEFAULT 0,
  retried          INTEGER NOT NULL DEFAULT 0,
  stop_reason      TEXT,
  stop_detail      TEXT,
  verdict          TEXT CHECK (verdict IS NULL OR verdict IN ('passed', 'failed', 'error')),
  claimed          INTEGER,
  verified         INTEGER,
  turns            INTEGER NOT NULL DEFAULT 0,
  actions          INTEGER NOT NULL DEFAULT 0,
  input_tokens     INTEGER,
  output_tokens    INTEGER,
  reasoning_tokens INTEGER,
  cached_tokens    INTEGER,
  cost_usd         REAL,
  wall_ms          REAL,
  model_ms         REAL,
  executor_ms      REAL,
  capture_ms       REAL,
  check_ms         REAL,
  ttft_ms_avg      REAL,
  folder           TEXT,
  error            TEXT,
  metrics          TEXT NOT NULL DEFAULT '{}',
  started_at       TEXT,
  ended_at         TEXT,
  shard            TEXT,
  UNIQUE (run_id, seq)
);
CREATE INDEX trials_by_task_agent ON trials (task_id, agent_label);

CREATE TABLE turns (
  trial_id          TEXT NOT NULL REFERENCES trials (id) ON DELETE CASCADE,
  attempt           INTEGER NOT NULL,
  idx               INTEGER NOT NULL,
  started_at        TEXT NOT NULL,
  outcome           TEXT NOT NULL,
  finish_reason     TEXT,
  model_ms          REAL NOT NULL,
  ttft_ms           REAL,
  retries           INTEGER NOT NULL DEFAULT 0,
  input_tokens      INTEGER,
  output_tokens     INTEGER,
  reasoning_tokens  INTEGER,
  cached_tokens     INTEGER,
  cost_usd          REAL,
  note              TEXT,
  thought           TEXT,
  content           TEXT,
  reasoning         TEXT,
  screenshot_path   TEXT,
  screenshot_width  INTEGER,
  screenshot_height INTEGER,
  flags             TEXT NOT NULL DEFAULT '{}',
  PRIMARY KEY (trial_id, attempt, idx)
);

CREATE TABLE actions (
  trial_id    TEXT NOT NULL REFERENCES trials (id) ON DELETE CASCADE,
  attempt     INTEGER NOT NULL,
  turn_idx    INTEGER NOT NULL,
  idx         INTEGER NOT NULL,
  call_id     TEXT NOT NULL,
  tool        TEXT NOT NULL,
  args        TEXT NOT NULL,
  status      TEXT NOT NULL CHECK (status IN ('success', 'rejected', 'failed', 'skipped')),
  message     TEXT NOT NULL,
  executor_ms REAL NOT NULL,
  PRIMARY KEY (trial_id, attempt, turn_idx, idx)
);

CREATE TABLE checks (
  trial_id   TEXT NOT NULL REFERENCES trials (id) ON DELETE CASCADE,
  attempt    INTEGER NOT NULL,
  idx        INTEGER NOT NULL,
  kind       TEXT NOT NULL,
  name       TEXT NOT NULL,
  required   INTEGER NOT NULL,
  pass       INTEGER NOT NULL,
  confidence TEXT NOT NULL CHECK (confidence IN ('verified', 'observed', 'claimed')),
  reason     TEXT NOT NULL,
  evidence   TEXT NOT NULL DEFAULT 'null',
  ms         REAL NOT NULL,
  PRIMARY KEY (trial_id, attempt, idx)
);

CREATE TABLE artifacts (
  trial_id TEXT NOT NULL REFERENCES trials (id) ON DELETE CASCADE,
  attempt  INTEGER NOT NULL,
  kind     TEXT NOT NULL,
  path     TEXT NOT NULL,
  sha256   TEXT NOT NULL,
  bytes    INTEGER NOT NULL,
  PRIMARY KEY (trial_id, attempt, path)
);
`;

/**
 * Rebuilds `table` from its own stored definition with `edit` applied (SQLite's documented
 * procedure for a schema change ALTER TABLE cannot make), keeping every row, column and index.
 * Reading the definition from the database, not from V1, keeps columns later migrations added.
 */
export function rebuildTable(db: Database.Database, table: string, edit: (createSql: string) => string): void {
  const row = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) as
    | { sql: string }
    | undefined;
  if (!row) throw new Error(`store migration: no table ${table}`);
  const edited = edit(row.sql);
  if (edited === row.sql) throw new Error(`store migration: the definition of ${table} did not change`);
  const indexes = db
    .prepare("SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL")
    .all(table) as { sql: string }[];
  const temp = `${table}__rebuilt`;
  db.exec(edited.replace(new RegExp(`^CREATE TABLE\\s+"?${table}"?`), `CREATE TABLE ${temp}`));
  db.exec(`INSERT INTO ${temp} SELECT * FROM ${table}`);
  db.exec(`DROP TABLE ${table}`);
  db.exec(`ALTER TABLE ${temp} RENAME TO ${table}`);
  for (const index of indexes) db.exec(index.sql);
}

/**
 * Trial mode: any protocol name (issue 41). Each model family's protocol is a mode, and a CHECK
 * listing them would need a table rebuild per protocol; the names are checked in code
 * (`TRIAL_MODES`, src/vocabulary.ts) before a row is written, so the store asks only for a name.
 */
function allowAnyProtocolMode(db: Database.Database): void {
  rebuildTable(db, "trials", (sql) => sql.replace(/mode IN \('structured', 'tools', 'external'\)/, "length(mode) > 0"));
}

/** Verdict `cancelled` (issue 12): a trial stopped by the user is not a failure, and --resume runs it again. */
function allowCancelledVerdict(db: Database.Database): void {
  rebuildTable(db, "trials", (sql) =>
    sql.replace(/verdict IN \('passed', 'failed', 'error'\)/, "verdict IN ('passed', 'failed', 'error', 'cancelled')"),
  );
}

/**
 * The stored trial is complete (issue #12 §3): the agent's final answer, and the task as it was
 * run (title, tags, content hash), so reports never re-read task files that may have changed or
 * moved, and `compare` can tell when a task's content differs between two runs. Rows written
 * before this version keep NULL (unknown), never a guessed value.
 */
const TRIAL_ANSWER_AND_TASK = `
ALTER TABLE trials ADD COLUMN answer     TEXT;
ALTER TABLE trials ADD COLUMN task_title TEXT;
ALTER TABLE trials ADD COLUMN task_tags  TEXT;
ALTER TABLE trials ADD COLUMN task_hash  TEXT;
`;

/**
 * The agent under test as data (issue #16): each trial records the named agent it ran (NULL for an
 * agent made of --model/--mode flags) and a hash of the agent's resolved definition, so `compare`
 * can tell when an agent of the same name changed between two runs. Older rows keep NULL: unknown,
 * never "changed".
 */
const TRIALS_AGENT_NAME_AND_HASH = `
ALTER TABLE trials ADD COLUMN agent_name TEXT;
ALTER TABLE trials ADD COLUMN agent_hash TEXT;
`;

/**
 * Issue 24: which sandbox held a command agent's trial (`bubblewrap`, or `none` when the run went
 * without one: --no-sandbox, or bubblewrap could not start), set as each attempt starts. NULL for
 * umpire's own loop (no agent code ran) and for rows stored before: unknown, never a guess.
 */
const TRIALS_SANDBOX = `
ALTER TABLE trials ADD COLUMN sandbox TEXT;
`;

/**
 * The `artifacts` table of schema 1 (issue #14): nothing in umpire ever wrote it (only tests did), so
 * it said "no artifacts" about every trial. It goes; an empty one is dropped. A store must lose
 * nothing it holds, so if an outside writer put rows there, the table is kept, rows and all, as
 * `artifacts_legacy`: umpire no longer reads it, merges it or writes it.
 */
function retireArtifactsTable(db: Database.Database): void {
  const exists =
    db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'artifacts'").get() !== undefined;
  if (!exists) return;
  const hasRows = db.prepare("SELECT 1 FROM artifacts LIMIT 1").get() !== undefined;
  if (hasRows) db.exec("ALTER TABLE artifacts RENAME TO artifacts_legacy");
  else db.exec("DROP TABLE artifacts");
}

/**
 * Trial mode `external` (issue #14 leftovers): an agent of kind command runs its own loop, yet its
 * trials were stored as `structured` because the CHECK allowed nothing else, so `compare --by mode`
 * lumped it with the structured protocol. `external` rather than NULL: the mode is known (not
 * unknown, which is what NULL means in this store), every reader keeps a non-null string, and
 * `--by mode` gets a group of its own. Rows already stored are corrected from the run's own
 * record: a trial whose agent label is a command agent listed in its run's options.
 */
function allowExternalMode(db: Database.Database): void {
  rebuildTable(db, "trials", (sql) =>
    sql.replace(/mode IN \('structured', 'tools'\)/, "mode IN ('structured', 'tools', 'external')"),
  );
  // Read in code, not json_each: one run with unparsable options must not stop the migration.
  const fix = db.prepare(
    "UPDATE trials SET mode = 'external' WHERE run_id = ? AND agent_label = ? AND mode = 'structured'",
  );
  for (const run of db.prepare("SELECT id, options FROM runs WHERE options LIKE '%commandAgents%'").all() as {
    id: string;
    options: string;
  }[]) {
    let listed: unknown;
    try {
      listed = (JSON.parse(run.options) as { commandAgents?: unknown }).commandAgents;
    } catch {
      continue;
    }
    if (!Array.isArray(listed)) continue;
    for (const agent of listed) {
      const name = (agent as { name?: unknown } | null)?.name;
      if (typeof name === "string") fix.run(run.id, name);
    }
  }
}

/**
 * Issue 29. `judgements`: every judgement of a trial's attempt, oldest first: seq 0 is the run's own
 * (copied in when the trial is first re-judged), then one row per `umpire rejudge`, with when, the
 * task hash it judged with, its checks and the checks that needed a live app. The trial row and the
 * `checks` table hold the latest, so every reader uses it; `trials.rejudged_at` marks it.
 * `runs.environment`: the browser, Playwright, OS, scale factors, fonts and target versions (JSON).
 */
const JUDGEMENTS_AND_ENVIRONMENT = `
CREATE TABLE judgements (
  trial_id    TEXT NOT NULL REFERENCES trials (id) ON DELETE CASCADE,
  attempt     INTEGER NOT NULL,
  seq         INTEGER NOT NULL,
  judged_at   TEXT NOT NULL,
  source      TEXT NOT NULL CHECK (source IN ('run', 'rejudge')),
  task_hash   TEXT,
  verdict     TEXT,
  claimed     INTEGER,
  verified    INTEGER,
  stop_detail TEXT,
  checks      TEXT NOT NULL DEFAULT '[]',
  live_checks TEXT NOT NULL DEFAULT '[]',
  PRIMARY KEY (trial_id, attempt, seq)
);
ALTER TABLE trials ADD COLUMN rejudged_at TEXT;
ALTER TABLE runs ADD COLUMN environment TEXT;
`;

/** Every schema version, oldest first. */
export const MIGRATIONS: readonly Migration[] = [
  { version: 1, umpireVersion: "0.1.0", description: "runs, trials, turns, actions, checks, artifacts", sql: V1 },
  // Issue 13 item 8: a run killed with -9 stayed `running` forever. The owning process and a
  // heartbeat let readers tell a live run from a dead one (self-contained: renumber freely).
  {
    version: 2,
    umpireVersion: "0.2.0",
    description: "run owner: pid, host and heartbeat",
    sql: `
ALTER TABLE runs ADD COLUMN owner_pid INTEGER;
ALTER TABLE runs ADD COLUMN owner_host TEXT;
ALTER TABLE runs ADD COLUMN heartbeat_at TEXT;
`,
  },
  {
    version: 3,
    umpireVersion: "0.2.0",
    description: "verdict cancelled",
    sql: "",
    run: allowCancelledVerdict,
    rebuildsTables: true,
  },
  {
    version: 4,
    umpireVersion: "0.2.0",
    description: "trials: answer, task title, tags and content hash",
    sql: TRIAL_ANSWER_AND_TASK,
  },
  // Issue 16: the named agent and its definition hash per trial (self-contained: renumber freely).
  {
    version: 5,
    umpireVersion: "0.2.0",
    description: "trials: agent name and definition hash",
    sql: TRIALS_AGENT_NAME_AND_HASH,
  },
  // Issue 17: `umpire history` ranks each (task, agent)'s runs and `runs` lists runs newest first;
  // measured in `npm run bench` on 100,000 trials. Self-contained: renumber freely.
  {
    version: 6,
    umpireVersion: "0.2.0",
    description: "indexes for history and the runs list",
    sql: `
CREATE INDEX IF NOT EXISTS trials_by_task_agent_run ON trials (task_id, agent_label, run_id, status);
CREATE INDEX IF NOT EXISTS trials_by_run_summary ON trials (run_id, status, verdict, cost_usd, model, mode);
`,
  },
  // Issue 14 (leftovers): the artifacts table nothing wrote. Self-contained: renumber freely.
  {
    version: 7,
    umpireVersion: "0.2.0",
    description: "drop the unused artifacts table (kept as artifacts_legacy when it holds rows)",
    sql: "",
    run: retireArtifactsTable,
  },
  // Issue 14 (leftovers): agents of kind command are stored as mode `external`. Self-contained: renumber freely.
  {
    version: 8,
    umpireVersion: "0.2.0",
    description: "trial mode external (agents of kind command)",
    sql: "",
    run: allowExternalMode,
    rebuildsTables: true,
  },
  // Issue 29: re-judging without re-running, and the environment of every run. Self-contained: renumber freely.
  {
    version: 9,
    umpireVersion: "0.2.0",
    description: "judgements (a trial judged again keeps every judgement) and the run's environment",
    sql: JUDGEMENTS_AND_ENVIRONMENT,
  },
  // Issue 24: the sandbox of a command agent's trial. Self-contained: renumber freely.
  {
    version: 10,
    umpireVersion: "0.2.0",
    description: "trials: the sandbox a command agent ran in",
    sql: TRIALS_SANDBOX,
  },
  // Issue 41: a trial's mode is any protocol's name. Self-contained: renumber freely.
  {
    version: 11,
    umpireVersion: "0.2.0",
    description: "trial mode: any protocol name (the registry in src/agent/protocols/ decides)",
    sql: "",
    run: allowAnyProtocolMode,
    rebuildsTables: true,
  },
  // Issue 42: the CPU a run's trials spent (umpire and every process it started). Self-contained: renumber freely.
  {
    version: 12,
    umpireVersion: "0.2.0",
    description: "runs: CPU seconds of the trials, how many trials and how long, or why not measured",
    sql: `
ALTER TABLE runs ADD COLUMN cpu_seconds REAL;
ALTER TABLE runs ADD COLUMN cpu_trials INTEGER;
ALTER TABLE runs ADD COLUMN cpu_wall_seconds REAL;
ALTER TABLE runs ADD COLUMN cpu_processes INTEGER;
ALTER TABLE runs ADD COLUMN cpu_not_measured TEXT;
`,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

function hasMetaTable(db: Database.Database): boolean {
  return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get() !== undefined;
}

/** The schema version recorded in the database; 0 for a database umpire never wrote. */
export function schemaVersionOf(db: Database.Database): number {
  if (!hasMetaTable(db)) return 0;
  const row = db.prepare("SELECT value FROM meta WHERE key = 'schema_version'").get() as { value: string } | undefined;
  return row ? Number(row.value) : 0;
}

function metaValue(db: Database.Database, key: string): string | undefined {
  if (!hasMetaTable(db)) return undefined;
  const row = db.prepare("SELECT value FROM meta WHERE key = ?").get(key) as { value: string } | undefined;
  return row?.value;
}

/**
 * Throws a `store` error when the database cannot be used by this umpire: written by a newer one,
 * or an SQLite file that holds somebody else's tables. Reads only.
 */
export function assertCompatible(
  db: Database.Database,
  file: string,
  migrations: readonly Migration[] = MIGRATIONS,
): number {
  const known = migrations[migrations.length - 1].version;
  const current = schemaVersionOf(db);
  if (current > known) {
    const needs = metaValue(db, "min_umpire_version") ?? "a newer umpire";
    throw new UmpireError(
      "store",
      `${file} has store schema version ${current}, written by umpire ${needs} or later; this umpire reads schema versions up to ${known}`,
      `upgrade umpire to ${needs} or later, or pass --db with another file; the database was left untouched`,
    );
  }
  if (current === 0) {
    const foreign = db
      .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
      .all() as { name: string }[];
    if (foreign.length > 0) {
      throw new UmpireError(
        "store",
        `${file} is an SQLite database but not umpire's (it holds tables ${foreign.map((t) => t.name).join(", ")})`,
        "pass --db with a new file name or an umpire database; the file was left untouched",
      );
    }
  }
  return current;
}

/**
 * Applies the migrations newer than the database's version, in order, each in its own
 * transaction together with the version bump, so a failure leaves the last good version.
 * Returns the resulting version.
 */
export function migrate(db: Database.Database, file: string, migrations: readonly Migration[] = MIGRATIONS): number {
  migrations.forEach((m, i) => {
    if (m.version !== i + 1) throw new Error(`store migrations out of order: entry ${i} has version ${m.version}`);
  });
  let current = assertCompatible(db, file, migrations);
  for (const m of migrations) {
    if (m.version <= current) continue;
    // PRAGMA foreign_keys is a no-op inside a transaction: switch it off before, restore after.
    const foreignKeys = db.pragma("foreign_keys", { simple: true }) as number;
    if (m.rebuildsTables && foreignKeys) db.pragma("foreign_keys = OFF");
    try {
      // IMMEDIATE takes the write lock first, then re-reads the version: two umpires opening one
      // new file at once would otherwise both create its tables, and the second would fail.
      db.transaction(() => {
        if (assertCompatible(db, file, migrations) >= m.version) return;
        db.exec("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)");
        if (m.sql) db.exec(m.sql);
        m.run?.(db);
        if (m.rebuildsTables) {
          const broken = db.pragma("foreign_key_check") as unknown[];
          if (broken.length > 0)
            throw new Error(`store migration ${m.version} would break ${broken.length} foreign key(s)`);
        }
        const put = db.prepare(
          "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
        );
        put.run("schema_version", String(m.version));
        put.run("min_umpire_version", m.umpireVersion);
      }).immediate();
    } finally {
      if (m.rebuildsTables && foreignKeys) db.pragma("foreign_keys = ON");
    }
    current = m.version;
  }
  return current;
}
