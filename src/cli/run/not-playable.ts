/**
 * `umpire run` with a task an agent's protocol cannot play (#41): the task's gold needs a tool the
 * protocol has no way to express (src/agent/protocols/playable.ts). That is neither the agent's failure
 * (it was never asked) nor umpire's error, so no trial of the pair is played or stored as one. A run of
 * one agent, or one where no pair could be played, is refused before any trial (task file, protocol,
 * missing tools, the fix); a run of several agents where only some pairs cannot be played leaves those
 * out, says one line each, and stores them with the run (`umpire show` lists them as not played).
 */
import type { AgentConfig } from "../../agent/config.js";
import { notPlayableText, playability } from "../../agent/protocols/playable.js";
import { UmpireError } from "../../errors.js";
import type { StoredNotPlayed } from "../../store/run-options.js";
import type { Task } from "../../task/schema.js";

/** The task x agent pairs of a run that cannot be played, in task then agent order. */
export function notPlayablePairs(tasks: readonly Task[], agents: readonly AgentConfig[]): StoredNotPlayed[] {
  return tasks.flatMap((task) =>
    agents.flatMap((agent) => {
      const { missing } = playability(task, agent.mode);
      if (missing.length === 0) return [];
      const reason = notPlayableText(agent.mode, missing);
      return [{ task: task.id, file: task.file, agent: agent.label, protocol: agent.mode, missing, reason }];
    }),
  );
}

/**
 * The pairs a run leaves out; throws (usage) when the run should not start: one agent only (its score
 * would silently be over fewer tasks), or no pair left to play.
 */
export function pairsToSkip(
  tasks: readonly Task[],
  agents: readonly AgentConfig[],
  commandAgents: number,
): StoredNotPlayed[] {
  const pairs = notPlayablePairs(tasks, agents);
  if (pairs.length === 0) return [];
  const everyPair = tasks.length * (agents.length + commandAgents);
  if (agents.length + commandAgents > 1 && pairs.length < everyPair) return pairs;
  const ids = [...new Set(pairs.map((p) => p.task))];
  throw new UmpireError(
    "usage",
    `run: ${pairs.map((p) => `${p.file} is ${p.reason}${agents.length > 1 ? ` (agent ${p.agent})` : ""}`).join("; ")}`,
    `run it with another --mode or --agent whose protocol offers those tools (structured and tools offer every tool), or leave the task out (--grep-invert '^(${ids.join("|")})$')`,
  );
}

/** The line a skipped pair gets on stderr when the run starts. */
export function skipLine(pair: StoredNotPlayed): string {
  return `umpire: not playing ${pair.task} with agent ${pair.agent}: ${pair.reason}; left out of the run (not a failure)`;
}
