/**
 * Whether a task can be played in a protocol (#41). A task needs the tools its gold trajectory uses
 * (the gold is the proof the task can be done with them); a protocol offers the tools its `tools`
 * says (`protocol.ts`). A tool the task needs and the protocol cannot offer makes the pair not
 * playable: neither the task's fault (it is sound elsewhere) nor the agent's (it was never asked),
 * so the self-test reports it apart and `umpire run` does not play it.
 */
import { TOOL_NAMES, type ToolName } from "../../toolbox/tools.js";
import type { Task } from "../../task/schema.js";
import type { ProtocolName } from "./protocol.js";
import { PROTOCOLS } from "./registry.js";

/** The tools a list of steps uses, each once, in the toolbox's order. */
export function toolsOfSteps(steps: readonly { tool: ToolName }[]): ToolName[] {
  const used = new Set(steps.map((s) => s.tool));
  return TOOL_NAMES.filter((t) => used.has(t));
}

/** What a task needs of a protocol: the tools its gold trajectory uses, in the toolbox's order. */
export function toolsNeeded(task: Pick<Task, "reference">): ToolName[] {
  return toolsOfSteps(task.reference);
}

/** The tools of `needed` that a protocol cannot offer, in the order given. */
export function missingTools(needed: readonly ToolName[], protocol: ProtocolName): ToolName[] {
  const offers = PROTOCOLS[protocol].tools;
  return needed.filter((tool) => !offers[tool]);
}

export interface Playability {
  playable: boolean;
  /** The tools the task needs that the protocol cannot offer (empty when playable). */
  missing: ToolName[];
}

/** Whether a task can be played in a protocol, and the tools that stop it. */
export function playability(task: Pick<Task, "reference">, protocol: ProtocolName): Playability {
  const missing = missingTools(toolsNeeded(task), protocol);
  return { playable: missing.length === 0, missing };
}

/** The words every report of a pair uses: "not playable in ui-tars: needs http_get, write_note, which ...". */
export function notPlayableText(protocol: ProtocolName, missing: readonly string[]): string {
  return `not playable in ${protocol}: needs ${missing.join(", ")}, which ${protocol}'s action space has no way to express`;
}
