/**
 * The trial list: tasks x agent configs x repeats, in one deterministic order, so that the same
 * invocation always yields the same trial ids (resume and shards depend on it).
 */
import { randomBytes } from "node:crypto";
import type { Task } from "../task/schema.js";
import type { CommandAgentSpec } from "./external-trial.js";

export interface AgentPlan {
  /** e.g. "reference/structured", "holo3-1-35b-a3b/tools". */
  label: string;
  model: string;
  mode: "structured" | "tools";
  /** Set for an agent that brings its own loop (kind `command`): umpire runs this command per trial. */
  command?: CommandAgentSpec;
}

export interface PlannedTrial {
  id: string;
  seq: number;
  task: Task;
  agent: AgentPlan;
  repeat: number;
}

/** A run id that sorts by time: 20261129-235501-3fa2. */
export function newRunId(now: Date = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${randomBytes(2).toString("hex")}`;
}

export function trialId(runId: string, seq: number): string {
  return `${runId}-${String(seq).padStart(4, "0")}`;
}

/** Task-major order: every agent config and repeat of a task sit together, which keeps comparisons readable. */
export function planTrials(runId: string, tasks: Task[], agents: AgentPlan[], repeat: number): PlannedTrial[] {
  const trials: PlannedTrial[] = [];
  const ordered = [...tasks].sort((a, b) => a.id.localeCompare(b.id));
  for (const task of ordered) {
    for (const agent of agents) {
      for (let r = 0; r < repeat; r++) {
        const seq = trials.length;
        trials.push({ id: trialId(runId, seq), seq, task, agent, repeat: r });
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
