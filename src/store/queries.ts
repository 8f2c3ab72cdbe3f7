/**
 * Every SQL statement the store runs, prepared once per connection (better-sqlite3 prepares
 * writing statements on a read-only connection too; they fail only if run).
 */
import type Database from "better-sqlite3";
import { SELF_TEST_TAG } from "../vocabulary.js";

/** One check row (`checkRow` in rows.ts), written when a trial ends and when it is judged again. */
export const INSERT_CHECK = `
  INSERT INTO checks (trial_id, attempt, idx, kind, name, required, pass, confidence, reason, evidence, ms)
  VALUES (@trial_id, @attempt, @idx, @kind, @name, @required, @pass, @confidence, @reason, @evidence, @ms)`;

/** Named so the emitted .d.ts can spell it (an inferred type would name a namespace it cannot reach). */
type Statement = Database.Statement;

const TRIAL_RESULT_CLEARED = `
  stop_reason = NULL, stop_detail = NULL, verdict = NULL, claimed = NULL, verified = NULL,
  turns = 0, actions = 0, input_tokens = NULL, output_tokens = NULL, reasoning_tokens = NULL,
  cached_tokens = NULL, cost_usd = NULL, wall_ms = NULL, model_ms = NULL, executor_ms = NULL,
  capture_ms = NULL, check_ms = NULL, ttft_ms_avg = NULL, error = NULL, metrics = '{}', ended_at = NULL, answer = NULL`;

/** Rows of one trial's evidence for one attempt, or every attempt when :attempt is NULL. */
const ofAttempt = (table: string, order: string) =>
  `SELECT * FROM ${table} WHERE trial_id = @trial_id AND (@attempt IS NULL OR attempt = @attempt) ORDER BY ${order}`;

export class StoreQueries {
  readonly insertRun: Statement;
  readonly finishRun: Statement;
  readonly reopenRun: Statement;
  readonly heartbeat: Statement;
  readonly runById: Statement;
  readonly runsByPrefix: Statement;
  readonly latestRun: Statement;
  readonly latestRunWithTag: Statement;
  readonly runSummaries: Statement;
  readonly insertTrial: Statement;
  readonly startTrial: Statement;
  readonly finishTrial: Statement;
  readonly resetTrial: Statement;
  readonly trialById: Statement;
  readonly trialAttempt: Statement;
  readonly trialsOfRun: Statement;
  readonly unfinishedOfRun: Statement;
  readonly insertTurn: Statement;
  readonly insertAction: Statement;
  readonly insertCheck: Statement;
  readonly deleteChecks: Statement;
  readonly turns: Statement;
  readonly actions: Statement;
  readonly checks: Statement;
  readonly durationHistory: Statement;

  constructor(db: Database.Database) {
    this.insertRun = db.prepare(`
      INSERT INTO runs (id, started_at, status, tags, options, umpire_version, folder, owner_pid, owner_host, heartbeat_at)
      VALUES (@id, @started_at, @status, @tags, @options, @umpire_version, @folder, @owner_pid, @owner_host, @heartbeat_at)`);
    this.finishRun = db.prepare(`UPDATE runs SET status = @status, ended_at = @ended_at WHERE id = @id`);
    this.reopenRun = db.prepare(
      `UPDATE runs SET status = 'running', ended_at = NULL, owner_pid = @owner_pid, owner_host = @owner_host, heartbeat_at = @now WHERE id = @id`,
    );
    this.heartbeat = db.prepare(`UPDATE runs SET heartbeat_at = @now WHERE id = @id AND status = 'running'`);
    this.runById = db.prepare(`SELECT * FROM runs WHERE id = ?`);
    this.runsByPrefix = db.prepare(
      `SELECT * FROM runs WHERE id LIKE @prefix ESCAPE '\\' ORDER BY started_at DESC, id DESC`,
    );
    // `latest` is the newest evaluation: a self-test's run (its probes) is named by its id.
    this.latestRun = db.prepare(`
      SELECT * FROM runs
      WHERE NOT EXISTS (SELECT 1 FROM json_each(runs.tags) WHERE json_each.value = '${SELF_TEST_TAG}')
      ORDER BY started_at DESC, id DESC LIMIT 1`);
    this.latestRunWithTag = db.prepare(`
      SELECT * FROM runs
      WHERE EXISTS (SELECT 1 FROM json_each(runs.tags) WHERE json_each.value = @tag)
        AND (@except IS NULL OR id != @except)
      ORDER BY started_at DESC, id DESC LIMIT 1`);
    // Unit separator joins the distinct models/modes; they never contain it.
    this.runSummaries = db.prepare(`
      SELECT runs.*,
        COUNT(t.id) AS n_trials,
        COALESCE(SUM(t.status = 'done'), 0) AS n_done,
        COALESCE(SUM(t.verdict = 'passed'), 0) AS n_passed,
        COALESCE(SUM(t.verdict = 'failed'), 0) AS n_failed,
        COALESCE(SUM(t.verdict = 'error'), 0) AS n_errors,
        COALESCE(SUM(t.verdict = 'cancelled'), 0) AS n_cancelled,
        SUM(t.cost_usd) AS cost_sum,
        COALESCE(SUM(t.status = 'done' AND t.cost_usd IS NULL), 0) AS n_cost_unknown,
        (SELECT group_concat(model, char(31)) FROM (SELECT DISTINCT model FROM trials WHERE run_id = runs.id ORDER BY model)) AS models,
        (SELECT group_concat(mode, char(31)) FROM (SELECT DISTINCT mode FROM trials WHERE run_id = runs.id ORDER BY mode)) AS modes
      FROM runs LEFT JOIN trials t ON t.run_id = runs.id
      GROUP BY runs.id
      ORDER BY runs.started_at DESC, runs.id DESC`);

    this.insertTrial = db.prepare(`
      INSERT INTO trials (id, run_id, seq, task_id, task_file, agent_label, model, mode, repeat, shard, task_title, task_tags, task_hash, agent_name, agent_hash)
      VALUES (@id, @run_id, @seq, @task_id, @task_file, @agent_label, @model, @mode, @repeat, @shard, @task_title, @task_tags, @task_hash, @agent_name, @agent_hash)
      ON CONFLICT (id) DO NOTHING`);
    this.startTrial = db.prepare(`
      UPDATE trials SET status = 'running', attempt = @attempt, folder = @folder, started_at = @started_at,
        ${TRIAL_RESULT_CLEARED}
      WHERE id = @id`);
    this.finishTrial = db.prepare(`
      UPDATE trials SET status = 'done',
        stop_reason = @stop_reason, stop_detail = @stop_detail, verdict = @verdict,
        claimed = @claimed, verified = @verified, turns = @turns, actions = @actions,
        input_tokens = @input_tokens, output_tokens = @output_tokens,
        reasoning_tokens = @reasoning_tokens, cached_tokens = @cached_tokens, cost_usd = @cost_usd,
        wall_ms = @wall_ms, model_ms = @model_ms, executor_ms = @executor_ms, capture_ms = @capture_ms,
        check_ms = @check_ms, ttft_ms_avg = @ttft_ms_avg, error = @error, metrics = @metrics,
        ended_at = @ended_at, answer = @answer
      WHERE id = @id`);
    this.resetTrial = db.prepare(
      `UPDATE trials SET status = 'pending', retried = 1, ${TRIAL_RESULT_CLEARED} WHERE id = @id`,
    );
    this.trialById = db.prepare(`SELECT * FROM trials WHERE id = @id`);
    this.trialAttempt = db.prepare(`SELECT attempt FROM trials WHERE id = @id`);
    this.trialsOfRun = db.prepare(`SELECT * FROM trials WHERE run_id = @run_id ORDER BY seq`);
    // A cancelled trial is done with its attempt but not judged: --resume runs it again.
    this.unfinishedOfRun = db.prepare(
      `SELECT * FROM trials WHERE run_id = @run_id AND (status != 'done' OR verdict = 'cancelled') ORDER BY seq`,
    );

    this.insertTurn = db.prepare(`
      INSERT INTO turns (trial_id, attempt, idx, started_at, outcome, finish_reason, model_ms, ttft_ms, retries,
        input_tokens, output_tokens, reasoning_tokens, cached_tokens, cost_usd, note, thought, content, reasoning,
        screenshot_path, screenshot_width, screenshot_height, flags)
      VALUES (@trial_id, @attempt, @idx, @started_at, @outcome, @finish_reason, @model_ms, @ttft_ms, @retries,
        @input_tokens, @output_tokens, @reasoning_tokens, @cached_tokens, @cost_usd, @note, @thought, @content, @reasoning,
        @screenshot_path, @screenshot_width, @screenshot_height, @flags)`);
    this.insertAction = db.prepare(`
      INSERT INTO actions (trial_id, attempt, turn_idx, idx, call_id, tool, args, status, message, executor_ms)
      VALUES (@trial_id, @attempt, @turn_idx, @idx, @call_id, @tool, @args, @status, @message, @executor_ms)`);
    this.insertCheck = db.prepare(INSERT_CHECK);
    this.deleteChecks = db.prepare(`DELETE FROM checks WHERE trial_id = @trial_id AND attempt = @attempt`);

    this.turns = db.prepare(ofAttempt("turns", "attempt, idx"));
    this.actions = db.prepare(ofAttempt("actions", "attempt, turn_idx, idx"));
    this.checks = db.prepare(ofAttempt("checks", "attempt, idx"));
    this.durationHistory = db.prepare(`
      SELECT task_id, agent_label, AVG(wall_ms) AS mean_wall_ms, COUNT(*) AS n
      FROM trials
      WHERE status = 'done' AND verdict NOT IN ('error', 'cancelled') AND wall_ms IS NOT NULL
      GROUP BY task_id, agent_label
      ORDER BY task_id, agent_label`);
  }
}
