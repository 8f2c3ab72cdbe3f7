/** Why a trial's loop stopped: exactly one of these per trial (see shared/DESIGN.md). */
export const STOP_REASONS = [
  "answered",
  "turn_limit",
  "action_limit",
  "token_budget",
  "timeout",
  "cancelled",
  "stuck",
  "model_refused",
  "model_truncated",
  "model_error",
  "invalid_output",
  "environment_error",
] as const;
export type StopReason = (typeof STOP_REASONS)[number];

/** Stop reasons that mean the infrastructure broke rather than the agent: the verdict is `error`. */
export const INFRASTRUCTURE_STOPS: ReadonlySet<StopReason> = new Set<StopReason>(["model_error", "environment_error"]);

/** The first half of the human line beside a stop reason; the check outcome completes it. */
export const STOP_WORDS: Record<StopReason, string> = {
  answered: "model finished",
  turn_limit: "turn cap reached",
  action_limit: "action cap reached",
  token_budget: "token budget exhausted",
  timeout: "time limit reached",
  cancelled: "cancelled by the user",
  stuck: "stuck",
  model_refused: "model refused",
  model_truncated: "model output cut off",
  model_error: "model endpoint failed",
  invalid_output: "model output invalid too many times",
  environment_error: "environment failed",
};
