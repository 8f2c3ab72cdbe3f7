/**
 * What a run's stored options say about its agents beyond its trials (#41), for `umpire show`: each
 * named agent's protocol when it was inferred from its model id (or defaulted), as the run's header
 * said it on stderr, and each task x agent pair left out because the agent's protocol cannot offer a
 * tool the task needs (not played: no trial, never a failure).
 */
import { runOptionsOf, type StoredAgentProtocol, type StoredNotPlayed } from "../store/run-options.js";

export interface RunNotes {
  /** Named agents whose protocol came from their model id or the default (not written in their entry). */
  inferredProtocols: StoredAgentProtocol[];
  notPlayed: StoredNotPlayed[];
}

/** The notes of a run; none when its options do not read (an older or damaged row). */
export function runNotes(run: { id: string; options: unknown }): RunNotes {
  try {
    const options = runOptionsOf(run);
    return {
      inferredProtocols: (options.agentProtocols ?? []).filter((a) => a.source === "model" || a.source === "default"),
      notPlayed: options.notPlayed ?? [],
    };
  } catch {
    return { inferredProtocols: [], notPlayed: [] };
  }
}

/** One line per note, as `umpire show` prints them under the run's header. */
export function runNoteLines(notes: RunNotes): string[] {
  return [
    ...notes.inferredProtocols.map((a) =>
      a.source === "model"
        ? `agent ${a.agent}: protocol ${a.protocol} (${a.family}), inferred from its model id ${a.model}`
        : `agent ${a.agent}: protocol ${a.protocol} (${a.family}), the default: umpire knows no native protocol for the model id ${a.model}`,
    ),
    ...notes.notPlayed.map((p) => `not played: ${p.task} with agent ${p.agent}: ${p.reason}`),
  ];
}
