/**
 * From check results to a trial's verdict, and the claimed / verified pair every trial records.
 *
 * - verdict: `passed` when every required check passed, `failed` when a required check failed,
 *   `error` when the trial could not be judged (the harness, browser, fixture or endpoint broke, or
 *   a required check crashed), `cancelled` when the user stopped it (not the agent's doing: it
 *   counts in no rate and `--resume` runs it again). Advisory checks never change the verdict.
 * - claimed: see `summarizeClaim`.
 */
import type { Verdict } from "../vocabulary.js";
import type { CheckResult } from "./types.js";

export interface VerdictOptions {
  /** The trial hit an infrastructure failure (environment_error, model endpoint down, ...). */
  infraError?: boolean;
  /** The user stopped the trial before it could be judged (Ctrl-C): verdict `cancelled`. */
  cancelled?: boolean;
}

/**
 * The verdict of a trial from its check results.
 * With no required checks at all the verdict is vacuously `passed` (the task validator should
 * warn about such tasks).
 */
export function verdictOf(results: readonly CheckResult[], options: VerdictOptions = {}): Verdict {
  // Cancellation comes first: an environment torn down by Ctrl-C is the user's doing, not an infrastructure error.
  if (options.cancelled === true) return "cancelled";
  if (options.infraError === true) return "error";
  const required = results.filter((r) => r.required);
  if (required.some((r) => r.crashed)) return "error";
  return required.every((r) => r.pass) ? "passed" : "failed";
}

/**
 * Phrases by which an answer says the task was not done. Deliberately plain English; an answer
 * that reports failure in other words is counted as a claim (the error then shows up as a false
 * success, which is visible, rather than a silent one).
 */
const DECLARED_FAILURE =
  /\b(?:could\s+not|couldn['’]t|cannot|can['’]t|unable\s+to|(?:was|were)\s+not\s+able\s+to|wasn['’]t\s+able\s+to|weren['’]t\s+able\s+to|failed\s+to|did\s+not\s+(?:manage|succeed)|didn['’]t\s+(?:manage|succeed)|not\s+possible|impossible|gave\s+up|giving\s+up|does\s+not\s+exist|doesn['’]t\s+exist|do\s+not\s+exist|no\s+such|not\s+found|unsuccessful|task\s+failed|i\s+failed)\b/i;

/** The phrase by which `answer` says the task was not done, or null. */
export function declaredFailure(answer: string): string | null {
  return DECLARED_FAILURE.exec(answer)?.[0] ?? null;
}

export interface ClaimOptions {
  /**
   * The task is infeasible on purpose (e.g. asks for BB-999, which does not exist; tag
   * `infeasible`). Then "BB-999 does not exist" IS the successful answer, so any answer counts
   * as the claim.
   */
  infeasible?: boolean;
}

export interface ClaimSummary {
  /** The agent answered and presented the task as done (see summarizeClaim). */
  claimed: boolean;
  /** The verdict is `passed`: every required check passed. */
  verified: boolean;
  /** Claimed, and the checks judged the trial `failed` (an `error` verdict is not counted). */
  falseSuccess: boolean;
  /** Verified without a claim: e.g. the note was saved but the loop hit its turn cap. */
  silentSuccess: boolean;
  /** The phrase by which the answer declared failure, when it did. */
  declaredFailure: string | null;
}

/**
 * claimed / verified for one trial. Exact definition of `claimed`:
 * - no answer (null or only white space): not claimed;
 * - an infeasible task (`options.infeasible`): claimed whenever the agent answered, since saying
 *   the thing cannot be done is the task's right answer;
 * - otherwise: claimed when the answer does not itself say the task failed or could not be done
 *   (no phrase like "could not", "unable to", "failed to", "does not exist", "not found").
 */
export function summarizeClaim(
  answer: string | null,
  results: readonly CheckResult[],
  options: ClaimOptions & VerdictOptions = {},
): ClaimSummary {
  const answered = answer !== null && answer.trim() !== "";
  const failurePhrase = answered ? declaredFailure(answer) : null;
  const claimed = answered && (options.infeasible === true || failurePhrase === null);
  const verdict = verdictOf(results, { infraError: options.infraError, cancelled: options.cancelled });
  const verified = verdict === "passed";
  return {
    claimed,
    verified,
    falseSuccess: claimed && verdict === "failed",
    silentSuccess: verified && !claimed,
    declaredFailure: failurePhrase,
  };
}
