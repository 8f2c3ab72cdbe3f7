/**
 * Judgements of a trial (issue 29): `umpire rejudge` judges a stored trial again with today's checks.
 * Both are kept: the run's own judgement is copied into `judgements` (seq 0) the first time, each
 * re-judgement is appended, and the trial row and `checks` table take the latest, so compare,
 * history, show and the reports read it without knowing; `trials.rejudged_at` marks it.
 */
import type Database from "better-sqlite3";
import { checkInput, type CheckInput } from "./records.js";
import { INSERT_CHECK } from "./queries.js";
import { checkFromRow, checkRow, toBit, toJson } from "./rows.js";
import type { Verdict } from "../vocabulary.js";

/** A check that could not be judged from the stored evidence. */
export interface LiveCheckRecord {
  name: string;
  kind: string;
  why: string;
  /** Its earlier result was kept in its place. */
  kept: boolean;
}

export interface JudgementInput {
  /** The hash of the task as it is now (the checks that judged). */
  taskHash: string | null;
  verdict: Verdict;
  claimed: boolean;
  verified: boolean;
  stopDetail: string;
  checks: readonly CheckInput[];
  liveChecks: readonly LiveCheckRecord[];
}

export interface JudgementRecord extends Omit<JudgementInput, "checks"> {
  trialId: string;
  attempt: number;
  seq: number;
  judgedAt: string;
  /** `run`: the trial's own judgement when it ran; `rejudge`: by `umpire rejudge`. */
  source: "run" | "rejudge";
  checks: CheckInput[];
}

type Row = Record<string, unknown>;

const INSERT = `INSERT INTO judgements (trial_id, attempt, seq, judged_at, source, task_hash, verdict, claimed, verified, stop_detail, checks, live_checks)
  VALUES (@trial_id, @attempt, @seq, @judged_at, @source, @task_hash, @verdict, @claimed, @verified, @stop_detail, @checks, @live_checks)`;

function storedChecks(db: Database.Database, trialId: string, attempt: number): CheckInput[] {
  const rows = db
    .prepare("SELECT * FROM checks WHERE trial_id = ? AND attempt = ? ORDER BY idx")
    .all(trialId, attempt) as Row[];
  return rows.map(checkFromRow).map(checkInput);
}

/** Stores a re-judgement of the trial's current attempt and makes it the trial's verdict. One transaction. */
export function recordRejudgement(db: Database.Database, trialId: string, input: JudgementInput, at: string): void {
  db.transaction(() => {
    const trial = db.prepare("SELECT * FROM trials WHERE id = ?").get(trialId) as Row | undefined;
    if (!trial) throw new Error(`no trial ${trialId}`);
    const attempt = Number(trial.attempt);
    const insert = db.prepare(INSERT);
    const last = db
      .prepare("SELECT MAX(seq) AS seq FROM judgements WHERE trial_id = ? AND attempt = ?")
      .get(trialId, attempt) as { seq: number | null };
    if (last.seq === null) {
      insert.run({
        trial_id: trialId,
        attempt,
        seq: 0,
        judged_at: String(trial.ended_at ?? at),
        source: "run",
        task_hash: trial.task_hash ?? null,
        verdict: trial.verdict ?? null,
        claimed: trial.claimed ?? null,
        verified: trial.verified ?? null,
        stop_detail: trial.stop_detail ?? null,
        checks: toJson(storedChecks(db, trialId, attempt)),
        live_checks: "[]",
      });
    }
    insert.run({
      trial_id: trialId,
      attempt,
      seq: (last.seq ?? 0) + 1,
      judged_at: at,
      source: "rejudge",
      task_hash: input.taskHash,
      verdict: input.verdict,
      claimed: toBit(input.claimed),
      verified: toBit(input.verified),
      stop_detail: input.stopDetail,
      checks: toJson(input.checks),
      live_checks: toJson(input.liveChecks),
    });
    db.prepare(
      "UPDATE trials SET verdict = ?, claimed = ?, verified = ?, stop_detail = ?, rejudged_at = ? WHERE id = ?",
    ).run(input.verdict, toBit(input.claimed), toBit(input.verified), input.stopDetail, at, trialId);
    db.prepare("DELETE FROM checks WHERE trial_id = ? AND attempt = ?").run(trialId, attempt);
    const insertCheck = db.prepare(INSERT_CHECK);
    input.checks.forEach((c, idx) => insertCheck.run(checkRow(trialId, attempt, idx, c)));
  })();
}

/**
 * A new attempt is judged afresh: it is not re-judged. (A store opened at an older schema, as
 * migration tests do, has no such column: nothing to clear.)
 */
export function clearRejudged(db: Database.Database, trialId: string): void {
  const hasColumn =
    db.prepare("SELECT 1 FROM pragma_table_info('trials') WHERE name = 'rejudged_at'").get() !== undefined;
  if (hasColumn) db.prepare("UPDATE trials SET rejudged_at = NULL WHERE id = ?").run(trialId);
}

const parse = <T>(text: unknown, fallback: T): T => {
  try {
    return typeof text === "string" ? (JSON.parse(text) as T) : fallback;
  } catch {
    return fallback;
  }
};

/** Every judgement of the trial's current attempt, oldest first; empty when it was never re-judged. */
export function judgementsOf(db: Database.Database, trialId: string): JudgementRecord[] {
  const rows = db
    .prepare(
      "SELECT j.* FROM judgements j JOIN trials t ON t.id = j.trial_id AND t.attempt = j.attempt WHERE j.trial_id = ? ORDER BY j.seq",
    )
    .all(trialId) as Row[];
  return rows.map((r) => ({
    trialId: String(r.trial_id),
    attempt: Number(r.attempt),
    seq: Number(r.seq),
    judgedAt: String(r.judged_at),
    source: r.source === "run" ? "run" : "rejudge",
    taskHash: r.task_hash === null ? null : String(r.task_hash),
    verdict: r.verdict as Verdict,
    claimed: r.claimed === 1,
    verified: r.verified === 1,
    stopDetail: String(r.stop_detail ?? ""),
    checks: parse<CheckInput[]>(r.checks, []),
    liveChecks: parse<LiveCheckRecord[]>(r.live_checks, []),
  }));
}
