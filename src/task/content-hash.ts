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
