/** What the runner says about each stop reason; the list itself is a shared word (src/vocabulary.ts). */
import type { StopReason } from "../../vocabulary.js";

/** Stop reasons that mean the infrastructure broke rather than the agent: the verdict is `error`. */
export const INFRASTRUCTURE_STOPS: ReadonlySet<StopReason> = new Set<StopReason>(["model_error", "environment_error"]);

/** The first half of the human line beside a stop reason; the check outcome completes it. */
export const STOP_WORDS: Record<StopReason, string> = {
  answered: "model finished",
  turn_limit: "turn cap reached",
  action_limit: "action cap reached",
  token_budget: "token budget exhausted",
  cost_limit: "money limit reached",
  timeout: "time limit reached",
  episode_done: "the environment ended its episode",
  cancelled: "cancelled by the user",
  stuck: "stuck",
  model_refused: "model refused",
  model_truncated: "model output cut off",
  model_error: "model endpoint failed",
  invalid_output: "model output invalid too many times",
  environment_error: "environment failed",
  agent_crashed: "agent command crashed",
};
