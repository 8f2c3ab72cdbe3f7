/**
 * Where a conversation stands, derived from the request alone (the reference model keeps no
 * per-trial state, so concurrent trials never interfere and a retried request gets the same
 * answer): the turn number, how many trajectory steps were played, trailing "hold" turns
 * (waits the policy inserted while a mark was missing) and where a reflection arrived.
 */
import { isObservation, isReflection, textOf, type WireMessage } from "./request.js";

/** Written into the thought/content of a hold turn so later requests can recognise it. */
export const HOLD_PHRASE = "Waiting for the page to show";

export interface Progress {
  /** 0-based index of the turn being requested: earlier `<observation>` messages, else earlier assistant turns. */
  turn: number;
  /** Trajectory steps already played: assistant turns that were not holds. */
  stepsPlayed: number;
  /** Hold turns at the end of the history, for the step about to be played. */
  trailingHolds: number;
  /** Steps played before the first `<reflection>` message; null when none arrived. */
  stepsBeforeReflection: number | null;
}

/** Reads the conversation's progress from its messages. */
export function readProgress(messages: readonly WireMessage[]): Progress {
  let observations = 0;
  let assistants = 0;
  let stepsPlayed = 0;
  let trailingHolds = 0;
  let stepsBeforeReflection: number | null = null;
  for (const message of messages) {
    if (isObservation(message)) observations += 1;
    if (stepsBeforeReflection === null && isReflection(message)) stepsBeforeReflection = stepsPlayed;
    if (message.role !== "assistant") continue;
    assistants += 1;
    if (isHoldTurn(message)) {
      trailingHolds += 1;
    } else {
      stepsPlayed += 1;
      trailingHolds = 0;
    }
  }
  // The current request's own observation is the last one: earlier ones are past turns.
  const turn = observations > 0 ? observations - 1 : assistants;
  return { turn, stepsPlayed, trailingHolds, stepsBeforeReflection };
}

function isHoldTurn(message: WireMessage): boolean {
  return textOf(message.content).includes(HOLD_PHRASE);
}
