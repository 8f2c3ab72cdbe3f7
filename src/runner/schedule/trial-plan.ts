/**
 * The trial list: tasks x agent configs x repeats, in one deterministic order, so that the same
 * invocation always yields the same trial ids (resume and shards depend on it).
 */
import type { AgentConfig } from "../../agent/config.js";
import type { Task } from "../../task/schema.js";
import { trialId } from "../../vocabulary.js";
import { taskContentHash } from "../../task/content-hash.js";
import { agentDefinitionHash } from "../../agent/config.js";
import type { TrialInput as StoredPlan } from "../../store/records.js";
import type { CommandAgentSpec } from "../external/command-agent.js";

/** One trial of the run's plan. It carries its agent config itself (model, mode, endpoint, limits): nothing looks it up again by label. */
export interface PlannedTrial {
  id: string;
  seq: number;
  task: Task;
  agent: AgentConfig;
  repeat: number;
  /** Set for an agent that brings its own loop (kind `command`): umpire runs this command per trial. */
  command?: CommandAgentSpec;
}

/** Task-major order: every agent config and repeat of a task sit together, which keeps comparisons readable. */
export function planTrials(
  runId: string,
  tasks: Task[],
  agents: readonly AgentConfig[],
  repeat: number,
  commands: ReadonlyMap<string, CommandAgentSpec> = new Map(),
): PlannedTrial[] {
  const trials: PlannedTrial[] = [];
  const ordered = [...tasks].sort((a, b) => a.id.localeCompare(b.id));
  for (const task of ordered) {
    for (const agent of agents) {
      for (let r = 0; r < repeat; r++) {
        const seq = trials.length;
        const command = commands.get(agent.label);
        trials.push({ id: trialId(runId, seq), seq, task, agent, repeat: r, ...(command ? { command } : {}) });
      }
    }
  }
  return trials;
}

/** Folder name of a trial inside the run folder: readable and unique. */
export function trialFolderName(trial: PlannedTrial, attempt: number): string {
  const agent = trial.agent.label.replace(/[^A-Za-z0-9._-]+/g, "_");
  return `${String(trial.seq).padStart(4, "0")}-${trial.task.id}--${agent}--r${trial.repeat}${attempt > 1 ? `--attempt${attempt}` : ""}`;
}

/**
 * A planned trial as the store keeps it: with the task's title, tags and content hash as planned,
 * so reports and comparisons read the task as it was run, not the file as it is now.
 */
export function storedPlan(trial: PlannedTrial, shard: string | null = null): StoredPlan {
  return {
    id: trial.id,
    seq: trial.seq,
    taskId: trial.task.id,
    taskFile: trial.task.file,
    agentLabel: trial.agent.label,
    model: trial.agent.model,
    // An agent of kind command runs its own loop: neither Holo protocol, whatever its stand-in config says.
    mode: trial.command ? "external" : trial.agent.mode,
    repeat: trial.repeat,
    shard,
    taskTitle: trial.task.title,
    taskTags: trial.task.tags,
    taskHash: taskContentHash(trial.task),
    agentName: trial.agent.name ?? null,
    agentHash: agentDefinitionHash(trial.agent),
  };
}
