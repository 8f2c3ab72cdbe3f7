/**
 * The content hash of a resolved task: what `compare` uses to tell "the same task" from "a task of
 * the same id whose content changed". Hashes the resolved task (defaults filled in, so writing a
 * default out explicitly changes nothing) without `file`: moving or renaming the file is not a
 * change of the task.
 */
import { definitionHash } from "../definition-hash.js";
import type { Task } from "./schema.js";

export function taskContentHash(task: Task): string {
  const { file: _file, ...content } = task;
  return definitionHash(content);
}

/**
 * A short hash of each top-level part of the resolved task (instruction, checks, reference, ...),
 * stored with a run so that `compare` can say WHAT changed in a task whose content hash differs
 * ("task x changed: instruction, checks") without storing the task itself.
 */
export function taskPartHashes(task: Task): Record<string, string> {
  const { file: _file, ...content } = task;
  return Object.fromEntries(
    Object.entries(content)
      .filter(([, v]) => v !== undefined)
      .map(([part, v]) => [part, definitionHash(v).slice("sha256:".length, "sha256:".length + 12)]),
  );
}
