/**
 * The store's query for `umpire history` and the report's history page: per task and agent, the
 * finished trials of the last N runs that ran that pair, oldest run first.
 *
 * "Last N runs" is counted per (task, agent) series, not over the store: a task that ran in only
 * some nightly runs still gets its own last N. The ranking happens in SQL (a window over the
 * distinct (task, agent, run) triples, which the `trials_by_task_agent_run` index covers) so a
 * store of 100,000 trials is never read whole to keep a few hundred rows.
 *
 * The task-content and agent-definition hashes are read when the store has them (columns added by
 * later schema versions: `task_hash`, `agent_hash`); otherwise they read as null (unknown), which
 * never breaks a series.
 */
import type Database from "better-sqlite3";
import { SELF_TEST_TAG, type Verdict } from "../vocabulary.js";
import { parseJson } from "./rows.js";

export interface HistoryFilter {
  /** Task ids to keep (exact); empty or missing: every task. */
  tasks?: readonly string[];
  /** Agent labels (`model/mode`) or agent names to keep (exact); empty or missing: every agent. */
  agents?: readonly string[];
  /** Only runs carrying every one of these tags. */
  tags?: readonly string[];
  /** The last N runs per (task, agent); default 10. */
  lastRuns?: number;
  /** Only runs started at or before this run (by start time), for a report of an older run. */
  upToRun?: string;
}

/** One finished trial as the history needs it. */
export interface HistoryTrialRow {
  runId: string;
  runStartedAt: string;
  runTags: string[];
  taskId: string;
  agentLabel: string;
  repeat: number;
  verdict: Verdict;
  costUsd: number | null;
  inputTokens: number | null;
  outputTokens: number | null;
  wallMs: number | null;
  /** Hash of the task file's resolved content; null when the store does not know it. */
  taskHash: string | null;
  /** Hash of the agent's resolved definition; null when the store does not know it. */
  agentHash: string | null;
}

export const DEFAULT_HISTORY_RUNS = 10;

function columnsOf(db: Database.Database, table: string): Set<string> {
  return new Set(
    (db.prepare(`SELECT name FROM pragma_table_info(?)`).all(table) as { name: string }[]).map((c) => c.name),
  );
}

/** Builds the SQL once per filter shape; values are always bound, never spliced. */
export function historyRows(db: Database.Database, filter: HistoryFilter = {}): HistoryTrialRow[] {
  const columns = columnsOf(db, "trials");
  const taskHash = columns.has("task_hash") ? "t.task_hash" : "NULL";
  const agentHash = columns.has("agent_hash") ? "t.agent_hash" : "NULL";
  const agentName = columns.has("agent_name") ? "agent_name" : null;
  const params: Record<string, unknown> = { last: filter.lastRuns ?? DEFAULT_HISTORY_RUNS };
  const where: string[] = ["status = 'done'"];
  const list = (name: string, values: readonly string[]) => {
    params[name] = JSON.stringify(values);
    return `(SELECT value FROM json_each(@${name}))`;
  };
  if (filter.tasks?.length) where.push(`task_id IN ${list("tasks", filter.tasks)}`);
  if (filter.agents?.length) {
    const inAgents = list("agents", filter.agents);
    where.push(
      agentName ? `(agent_label IN ${inAgents} OR ${agentName} IN ${inAgents})` : `agent_label IN ${inAgents}`,
    );
  }
  const runWhere: string[] = [];
  if (filter.tags?.length) {
    params.tags = JSON.stringify(filter.tags);
    runWhere.push(
      `NOT EXISTS (SELECT 1 FROM json_each(@tags) wanted WHERE wanted.value NOT IN (SELECT value FROM json_each(r.tags)))`,
    );
  }
  // A self-test's probes (answer-now, negatives) are no agent's history, unless asked for by its tag.
  if (!filter.tags?.includes(SELF_TEST_TAG))
    runWhere.push(`NOT EXISTS (SELECT 1 FROM json_each(r.tags) WHERE value = '${SELF_TEST_TAG}')`);
  if (filter.upToRun) {
    params.up_to = filter.upToRun;
    runWhere.push(`(r.started_at, r.id) <= (SELECT started_at, id FROM runs WHERE id = @up_to)`);
  }
  const sql = `
    WITH series_runs AS (
      SELECT s.task_id, s.agent_label, s.run_id,
        ROW_NUMBER() OVER (PARTITION BY s.task_id, s.agent_label ORDER BY r.started_at DESC, r.id DESC) AS k
      FROM (SELECT DISTINCT task_id, agent_label, run_id FROM trials WHERE ${where.join(" AND ")}) s
      JOIN runs r ON r.id = s.run_id
      ${runWhere.length ? `WHERE ${runWhere.join(" AND ")}` : ""}
    )
    SELECT t.run_id, r.started_at AS run_started_at, r.tags AS run_tags, t.task_id, t.agent_label, t.repeat,
      t.verdict, t.cost_usd, t.input_tokens, t.output_tokens, t.wall_ms,
      ${taskHash} AS task_hash, ${agentHash} AS agent_hash
    FROM series_runs sr
    JOIN trials t ON t.task_id = sr.task_id AND t.agent_label = sr.agent_label AND t.run_id = sr.run_id
    JOIN runs r ON r.id = t.run_id
    WHERE sr.k <= @last AND t.status = 'done'
    ORDER BY t.task_id, t.agent_label, r.started_at, r.id, t.repeat`;
  const rows = db.prepare(sql).all(params) as Record<string, unknown>[];
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  const str = (v: unknown) => (v === null || v === undefined ? null : String(v));
  return rows.map((r) => ({
    runId: String(r.run_id),
    runStartedAt: String(r.run_started_at),
    runTags: parseJson<string[]>(r.run_tags, []),
    taskId: String(r.task_id),
    agentLabel: String(r.agent_label),
    repeat: Number(r.repeat),
    verdict: r.verdict as Verdict,
    costUsd: num(r.cost_usd),
    inputTokens: num(r.input_tokens),
    outputTokens: num(r.output_tokens),
    wallMs: num(r.wall_ms),
    taskHash: str(r.task_hash),
    agentHash: str(r.agent_hash),
  }));
}
