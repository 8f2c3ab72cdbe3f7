/**
 * Which two trials stand for a flipped task when `compare` looks for where it diverged.
 *
 * A flipped task passed in every counted repeat on one side and in none on the other, so any
 * repeat shows the flip. The pair is the lowest-numbered repeat of the expected verdict on each
 * side: for pass->fail, the baseline's first passing trial and the candidate's first failing
 * one; for fail->pass, the baseline's first failing trial and the candidate's first passing one.
 * Only finished trials judged `passed` or `failed` are counted (as in the paired analysis).
 */
import { resolve } from "node:path";
import type { Store } from "../store/store.js";
import type { RunRecord, TrialRecord } from "../store/records.js";
import type { Comparison, TaskRow } from "./compare.js";
import { findDivergence, trajectoryTurns } from "./divergence.js";
import type { Divergence, DivergenceTools, TrajectorySide } from "./divergence.js";

type CountedVerdict = "passed" | "failed";
/** The verdict wanted on the baseline side, then on the candidate side. */
const PASS_TO_FAIL = ["passed", "failed"] as const;
const FAIL_TO_PASS = ["failed", "passed"] as const;

/** Whether a trial belongs to a compare row (its task id, plus the mode, model or agent the row is keyed by). */
function inRow(t: TrialRecord, row: TaskRow): boolean {
  return (
    t.taskId === row.taskId &&
    (row.mode === undefined || t.mode === row.mode) &&
    (row.model === undefined || t.model === row.model) &&
    (row.agent === undefined || t.agentLabel === row.agent)
  );
}

/** The row's first finished trial (by repeat) with the verdict wanted. */
export function representative(
  trials: readonly TrialRecord[],
  row: TaskRow,
  verdict: CountedVerdict,
): TrialRecord | null {
  const own = trials.filter((t) => t.status === "done" && t.verdict === verdict && inRow(t, row));
  return own.sort((a, b) => a.repeat - b.repeat || a.seq - b.seq)[0] ?? null;
}

function side(store: Store, run: RunRecord, trial: TrialRecord, cwd: string): TrajectorySide {
  const folder = run.folder ? resolve(cwd, run.folder) : null;
  return {
    trialId: trial.id,
    seq: trial.seq,
    runId: run.id,
    repeat: trial.repeat,
    verdict: trial.verdict,
    stopReason: trial.stopReason,
    turns: trajectoryTurns(store.turns(trial.id), store.actions(trial.id), trial.answer, folder),
  };
}

export interface RunTrials {
  run: RunRecord;
  trials: readonly TrialRecord[];
}

/**
 * For each task flipped between `base` and `candidate` (the first paired analysis of a two-run
 * comparison), where the candidate's trajectory left the baseline's.
 */
export function flippedDivergences(
  comparison: Comparison,
  store: Store,
  base: RunTrials,
  candidate: RunTrials,
  tools: DivergenceTools,
  cwd: string,
): Divergence[] {
  const paired = comparison.paired[0];
  if (!paired) return [];
  const rows = new Map(comparison.tasks.map((r) => [r.key, r]));
  const flips = [
    ...paired.flippedToFail.map((key) => ({ key, direction: "pass->fail" as const, want: PASS_TO_FAIL })),
    ...paired.flippedToPass.map((key) => ({ key, direction: "fail->pass" as const, want: FAIL_TO_PASS })),
  ];
  return flips.flatMap(({ key, direction, want }) => {
    const row = rows.get(key);
    const b = row && representative(base.trials, row, want[0]);
    const c = row && representative(candidate.trials, row, want[1]);
    if (!b || !c) return [];
    return [findDivergence(key, direction, side(store, base.run, b, cwd), side(store, candidate.run, c, cwd), tools)];
  });
}
