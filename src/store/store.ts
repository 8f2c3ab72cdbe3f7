/**
 * The results store: one SQLite file (better-sqlite3, synchronous) holding runs, trials, turns,
 * actions and checks. The run loop writes every turn as it happens and every trial in
 * one transaction when it ends, so a crash loses nothing that finished; reports read it back.
 *
 * Retries: `resetTrial` keeps the failed attempt's turns, actions and checks (they are the
 * evidence of the infrastructure error) under their attempt number; the next `startTrial` takes the
 * next number and the reading queries return the current attempt unless asked for another.
 * Open one with `openStore` (open.ts).
 */
import { hostname } from "node:os";
import type Database from "better-sqlite3";
import { UmpireError, storageError } from "../errors.js";
import { TRIAL_MODES, newRunId, trialId } from "../vocabulary.js";
import { historyRows, type HistoryFilter, type HistoryTrialRow } from "./history-query.js";
import { schemaVersionOf } from "./migrations.js";
import type {
  ActionInput,
  ActionRecord,
  CheckInput,
  CheckRecord,
  DurationHistoryEntry,
  TrialInput,
  RunInput,
  RunCpu,
  RunRecord,
  RunStatus,
  RunSummary,
  TrialRecord,
  TrialResult,
  TrialSandbox,
  TurnInput,
  TurnRecord,
} from "./records.js";
import { redactSecrets } from "./redact.js";
import { scrubDeep } from "../safety/secrets.js";
import { actionFromRow, checkFromRow, checkRow, runFromRow, toBit, toJson, trialFromRow, turnFromRow } from "./rows.js";
import { StoreQueries } from "./queries.js";
import {
  clearRejudged,
  judgementsOf,
  recordRejudgement,
  type JudgementInput,
  type JudgementRecord,
} from "./judgements.js";

/** Which attempt's evidence to read: the trial's current one (default), a given number, or all. */
export type AttemptSelector = { attempt?: number | "all" };

type Row = Record<string, unknown>;

/** The methods that write; wrapped in the constructor so a storage fault names the file. */
const WRITE_METHODS = [
  "recordRejudgement",
  "setRunEnvironment",
  "addRunCpu",
  "createRun",
  "finishRun",
  "markInterrupted",
  "reopenRun",
  "heartbeat",
  "addTrials",
  "startTrial",
  "recordTurn",
  "recordActions",
  "finishTrial",
  "resetTrial",
] as const;

const now = () => new Date().toISOString();

/** This process as a run's owner. */
const owner = () => ({ owner_pid: process.pid, owner_host: hostname() });

export class Store {
  private readonly q: StoreQueries;

  constructor(
    private readonly db: Database.Database,
    /** The path as given, for messages. */
    readonly file: string,
  ) {
    this.q = new StoreQueries(db);
    // Every write is scrubbed of known secrets, and names the database file when the disk is full or read-only (SQLITE_FULL and
    // friends): the caller stops the run with a message that says where and how to fix it.
    for (const name of WRITE_METHODS) {
      const original = this[name] as (...args: unknown[]) => unknown;
      (this as Record<string, unknown>)[name] = (...args: unknown[]) => {
        try {
          // Second line of defence after the sources: no configured key or URL credential is ever stored.
          return original.apply(
            this,
            args.map((a) => scrubDeep(a)),
          );
        } catch (error) {
          throw storageError(error, this.file, "--db");
        }
      };
    }
  }

  /** The schema version of the open database. */
  get schemaVersion(): number {
    return schemaVersionOf(this.db);
  }

  /** Creates a run in status `running`. Options are stored with secrets removed. */
  createRun(input: RunInput): RunRecord {
    const startedAt = input.startedAt ?? now();
    const id = input.id ?? newRunId(new Date(startedAt));
    if (this.q.runById.get(id)) {
      throw new UmpireError(
        "usage",
        `run ${id} already exists in ${this.file}`,
        "resume it with --resume, or choose another --run-id",
      );
    }
    this.q.insertRun.run({
      id,
      started_at: startedAt,
      status: "running",
      tags: toJson(input.tags ?? []),
      options: toJson(redactSecrets(input.options ?? {})),
      umpire_version: input.umpireVersion,
      folder: input.folder ?? null,
      ...owner(),
      heartbeat_at: now(),
    });
    return this.getRun(id);
  }

  /** Records the environment the run ran on (issue 29: browser, Playwright, OS, fonts, target versions). */
  setRunEnvironment(id: string, environment: Record<string, unknown>): void {
    const info = this.db.prepare("UPDATE runs SET environment = ? WHERE id = ?").run(toJson(environment), id);
    if (info.changes === 0) throw new UmpireError("not_found", `no run ${id} in ${this.file}`);
  }

  /**
   * Adds a session's CPU to the run's (issue 42): a resumed run sums its sessions. A session not
   * measured leaves the seconds as they were and says why; a run never measured keeps seconds null.
   */
  addRunCpu(id: string, span: RunCpu): void {
    const info = this.db
      .prepare(
        `UPDATE runs SET
           cpu_seconds = CASE WHEN @seconds IS NULL THEN cpu_seconds ELSE COALESCE(cpu_seconds, 0) + @seconds END,
           cpu_trials = COALESCE(cpu_trials, 0) + @trials,
           cpu_wall_seconds = COALESCE(cpu_wall_seconds, 0) + @wall,
           cpu_processes = COALESCE(@processes, cpu_processes),
           cpu_not_measured = COALESCE(@notMeasured, cpu_not_measured)
         WHERE id = @id`,
      )
      .run({
        id,
        seconds: span.seconds,
        trials: span.trials,
        wall: span.wallSeconds,
        processes: span.processes,
        notMeasured: span.notMeasured,
      });
    if (info.changes === 0) throw new UmpireError("not_found", `no run ${id} in ${this.file}`);
  }

  /** Stores a re-judgement of the trial (both it and the run's own judgement are kept) and makes it the trial's verdict. */
  recordRejudgement(trialId: string, input: JudgementInput): void {
    this.requireTrial(trialId);
    recordRejudgement(this.db, trialId, input, now());
  }

  /** Every judgement of the trial's current attempt, oldest first; empty when it was never re-judged. */
  judgements(trialId: string): JudgementRecord[] {
    return judgementsOf(this.db, trialId);
  }

  /**
   * Ends a run: `finished` when its loop completed, `interrupted` when it was cancelled or killed.
   * `endedAt` defaults to now (given: a seeded store whose output must not depend on the clock, as the docs' examples).
   */
  finishRun(id: string, status: Exclude<RunStatus, "running"> = "finished", endedAt: string = now()): void {
    const info = this.q.finishRun.run({ id, status, ended_at: endedAt });
    if (info.changes === 0) throw new UmpireError("not_found", `no run ${id} in ${this.file}`);
  }

  /** Marks a run interrupted; its unfinished trials stay as they are for `--resume`. */
  markInterrupted(id: string): void {
    this.finishRun(id, "interrupted");
  }

  /** Marks a resumed run as running again (clears its end time). */
  reopenRun(id: string): void {
    const info = this.q.reopenRun.run({ id, now: now(), ...owner() });
    if (info.changes === 0) throw new UmpireError("not_found", `no run ${id} in ${this.file}`);
  }

  /** Says the run's owner is alive (every HEARTBEAT_MS while it runs); see `runFromRow` for the reading side. */
  heartbeat(id: string): void {
    this.q.heartbeat.run({ id, now: now() });
  }

  /**
   * Adds the planned trials of a run, all in one transaction. Idempotent: a trial whose id already
   * exists is left untouched (resume, or a shard re-planning the same list). Returns them in seq order.
   */
  addTrials(runId: string, planned: readonly TrialInput[]): TrialRecord[] {
    this.getRun(runId);
    // The table takes any name since schema 11; the names are the protocol registry's.
    const stray = planned.find((p) => !(TRIAL_MODES as readonly string[]).includes(p.mode));
    if (stray) throw new Error(`trial mode '${stray.mode}' is not a protocol's name (${TRIAL_MODES.join(", ")})`);
    const ids = this.db.transaction(() =>
      planned.map((p) => {
        const id = p.id ?? trialId(runId, p.seq);
        this.q.insertTrial.run({
          id,
          run_id: runId,
          seq: p.seq,
          task_id: p.taskId,
          task_file: p.taskFile,
          agent_label: p.agentLabel,
          model: p.model,
          mode: p.mode,
          repeat: p.repeat,
          shard: p.shard ?? null,
          task_title: p.taskTitle ?? null,
          task_tags: p.taskTags ? toJson(p.taskTags) : null,
          task_hash: p.taskHash ?? null,
          agent_name: p.agentName ?? null,
          agent_hash: p.agentHash ?? null,
        });
        return id;
      }),
    )();
    return ids.map((id) => this.requireTrial(id)).sort((a, b) => a.seq - b.seq);
  }

  /**
   * Marks a trial running with its folder. `attempt` defaults to the next number (1 on the first
   * start), so evidence of an earlier, interrupted or retried attempt is never overwritten.
   * Returns the attempt number.
   */
  startTrial(
    id: string,
    opts: { folder: string; attempt?: number; startedAt?: string; sandbox?: TrialSandbox | null },
  ): number {
    const trial = this.requireTrial(id);
    // A cancelled trial may start again (--resume); its cancelled attempt stays stored under its number.
    if (trial.status === "done" && trial.verdict !== "cancelled") {
      throw new UmpireError("usage", `trial ${id} is already done`, "call resetTrial(id) before running it again");
    }
    const attempt = opts.attempt ?? trial.attempt + 1;
    this.q.startTrial.run({ id, attempt, folder: opts.folder, started_at: opts.startedAt ?? now() });
    clearRejudged(this.db, id);
    // Prepared only when given (schema 10's column), so a store opened at an older schema still starts trials.
    if (opts.sandbox !== undefined) this.db.prepare("UPDATE trials SET sandbox = ? WHERE id = ?").run(opts.sandbox, id);
    return attempt;
  }

  /** Stores one turn as soon as it happens, under the trial's current attempt. */
  recordTurn(turn: TurnInput): void {
    const attempt = this.currentAttempt(turn.trialId);
    this.q.insertTurn.run({
      trial_id: turn.trialId,
      attempt,
      idx: turn.idx,
      started_at: turn.startedAt ?? now(),
      outcome: turn.outcome,
      finish_reason: turn.finishReason ?? null,
      model_ms: turn.modelMs,
      ttft_ms: turn.ttftMs ?? null,
      retries: turn.retries ?? 0,
      input_tokens: turn.usage?.inputTokens ?? null,
      output_tokens: turn.usage?.outputTokens ?? null,
      reasoning_tokens: turn.usage?.reasoningTokens ?? null,
      cached_tokens: turn.usage?.cachedTokens ?? null,
      cost_usd: turn.costUsd,
      note: turn.note ?? null,
      thought: turn.thought ?? null,
      content: turn.content ?? null,
      reasoning: turn.reasoning ?? null,
      screenshot_path: turn.screenshot?.path ?? null,
      screenshot_width: turn.screenshot?.width ?? null,
      screenshot_height: turn.screenshot?.height ?? null,
      flags: toJson(turn.flags ?? {}),
    });
  }

  /** Stores the results of one turn's actions together. */
  recordActions(actions: readonly ActionInput[]): void {
    this.db.transaction(() => {
      for (const a of actions) {
        this.q.insertAction.run({
          trial_id: a.trialId,
          attempt: this.currentAttempt(a.trialId),
          turn_idx: a.turnIdx,
          idx: a.idx,
          call_id: a.callId,
          tool: a.tool,
          args: toJson(a.args),
          status: a.status,
          message: a.message,
          executor_ms: a.executorMs,
        });
      }
    })();
  }

  /** Stores a trial's result and its checks in one transaction and marks it done. */
  finishTrial(id: string, result: TrialResult, checks: readonly CheckInput[]): TrialRecord {
    const attempt = this.currentAttempt(id);
    this.db.transaction(() => {
      this.q.finishTrial.run({
        id,
        stop_reason: result.stopReason,
        stop_detail: result.stopDetail,
        verdict: result.verdict,
        claimed: toBit(result.claimed),
        verified: toBit(result.verified),
        turns: result.turns,
        actions: result.actions,
        input_tokens: result.usage?.inputTokens ?? null,
        output_tokens: result.usage?.outputTokens ?? null,
        reasoning_tokens: result.usage?.reasoningTokens ?? null,
        cached_tokens: result.usage?.cachedTokens ?? null,
        cost_usd: result.costUsd,
        wall_ms: result.timing.wallMs,
        model_ms: result.timing.modelMs,
        executor_ms: result.timing.executorMs,
        capture_ms: result.timing.captureMs,
        check_ms: result.timing.checkMs,
        ttft_ms_avg: result.ttftMsAvg ?? null,
        error: result.error ?? null,
        metrics: toJson(result.metrics ?? {}),
        ended_at: result.endedAt ?? now(),
        answer: result.answer ?? null,
      });
      this.q.deleteChecks.run({ trial_id: id, attempt });
      checks.forEach((c, idx) => this.q.insertCheck.run(checkRow(id, attempt, idx, c)));
    })();
    return this.requireTrial(id);
  }

  /**
   * Prepares a trial for an automatic retry: back to `pending`, result fields cleared, `retried`
   * set. The failed attempt's turns, actions and checks stay, under their attempt number.
   */
  resetTrial(id: string): void {
    this.requireTrial(id);
    this.q.resetTrial.run({ id });
    clearRejudged(this.db, id);
  }

  /**
   * A run by exact id, unique id prefix, or `latest`. Throws `not_found` (with the candidates
   * when a prefix is ambiguous).
   */
  getRun(ref: string): RunRecord {
    const row = ref === "latest" ? this.q.latestRun.get() : (this.q.runById.get(ref) as Row | undefined);
    if (row) return runFromRow(row as Row);
    const matches = this.q.runsByPrefix.all({ prefix: `${ref.replace(/[\\%_]/g, (c) => `\\${c}`)}%` }) as Row[];
    if (matches.length === 1) return runFromRow(matches[0]);
    if (matches.length > 1) {
      throw new UmpireError(
        "not_found",
        `run '${ref}' is ambiguous in ${this.file}: ${matches.map((m) => String(m.id)).join(", ")}`,
        "give more characters of the run id",
      );
    }
    throw new UmpireError(
      "not_found",
      `no run '${ref}' in ${this.file}`,
      "`umpire runs` lists the stored runs; `latest` names the newest",
    );
  }

  /** The newest run carrying `tag`, optionally skipping one run id; undefined when there is none. */
  latestRunWithTag(tag: string, exceptId?: string): RunRecord | undefined {
    const row = this.q.latestRunWithTag.get({ tag, except: exceptId ?? null }) as Row | undefined;
    return row ? runFromRow(row) : undefined;
  }

  /** Every run, newest first, with its trials counted. */
  listRuns(): RunSummary[] {
    return (this.q.runSummaries.all() as Row[]).map((r) => ({
      ...runFromRow(r),
      trials: Number(r.n_trials),
      done: Number(r.n_done),
      passed: Number(r.n_passed),
      failed: Number(r.n_failed),
      errors: Number(r.n_errors),
      cancelled: Number(r.n_cancelled),
      costUsd: Number(r.n_cost_unknown) > 0 ? null : Number(r.cost_sum ?? 0),
      models: r.models ? String(r.models).split("\u001f") : [],
      modes: r.modes ? String(r.modes).split("\u001f") : [],
    }));
  }

  /** A run's trials in their deterministic order. */
  trials(runId: string): TrialRecord[] {
    return (this.q.trialsOfRun.all({ run_id: runId }) as Row[]).map(trialFromRow);
  }

  trial(id: string): TrialRecord | undefined {
    const row = this.q.trialById.get({ id }) as Row | undefined;
    return row ? trialFromRow(row) : undefined;
  }

  /**
   * Trials without a judged verdict (pending, running when the run was killed, or cancelled by the
   * user), in order: what `--resume` runs. A run is finished only when this is empty.
   */
  unfinishedTrials(runId: string): TrialRecord[] {
    return (this.q.unfinishedOfRun.all({ run_id: runId }) as Row[]).map(trialFromRow);
  }

  turns(trialId: string, sel: AttemptSelector = {}): TurnRecord[] {
    return (this.q.turns.all(this.attemptParams(trialId, sel)) as Row[]).map(turnFromRow);
  }

  actions(trialId: string, sel: AttemptSelector = {}): ActionRecord[] {
    return (this.q.actions.all(this.attemptParams(trialId, sel)) as Row[]).map(actionFromRow);
  }

  checks(trialId: string, sel: AttemptSelector = {}): CheckRecord[] {
    return (this.q.checks.all(this.attemptParams(trialId, sel)) as Row[]).map(checkFromRow);
  }

  /**
   * Mean wall time per task and agent config over every finished trial in the store, for
   * duration-aware shards. Trials with verdict `error` are left out: an infrastructure failure's
   * duration says nothing about the task's, nor does a cancelled trial's.
   */
  durationHistory(): DurationHistoryEntry[] {
    return (this.q.durationHistory.all() as Row[]).map((r) => ({
      taskId: String(r.task_id),
      agentLabel: String(r.agent_label),
      meanWallMs: Number(r.mean_wall_ms),
      trials: Number(r.n),
    }));
  }

  /**
   * Finished trials of the last N runs of each (task, agent), oldest run first, for
   * `umpire history` and the report's history page (src/store/history-query.ts).
   */
  history(filter: HistoryFilter = {}): HistoryTrialRow[] {
    return historyRows(this.db, filter);
  }

  /**
   * Runs `fn` (calls of this store's own write methods) in one transaction: a generator or an
   * import writing thousands of trials commits once instead of once per trial.
   */
  batch<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  close(): void {
    if (this.db.open) this.db.close();
  }

  private requireTrial(id: string): TrialRecord {
    const trial = this.trial(id);
    if (!trial) throw new UmpireError("not_found", `no trial ${id} in ${this.file}`);
    return trial;
  }

  private currentAttempt(trialId: string): number {
    const row = this.q.trialAttempt.get({ id: trialId }) as { attempt: number } | undefined;
    if (!row) throw new UmpireError("not_found", `no trial ${trialId} in ${this.file}`);
    return row.attempt;
  }

  private attemptParams(trialId: string, sel: AttemptSelector): { trial_id: string; attempt: number | null } {
    if (sel.attempt === "all") return { trial_id: trialId, attempt: null };
    return { trial_id: trialId, attempt: sel.attempt ?? this.currentAttempt(trialId) };
  }
}
