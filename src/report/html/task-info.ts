/**
 * Task titles and tags for the report, read from the task files the trials name. Best effort:
 * the store keeps the path as given at run time (usually relative to where `umpire run` ran),
 * so a file that cannot be found or read simply leaves the task without a title and tags.
 */
import { loadTasks } from "../../task/loader.js";
import type { TaskInfo } from "./view-model.js";

/** Task id -> title and tags, for every given task file that loads. */
export function loadTaskInfo(taskFiles: Iterable<string>, cwd: string): Map<string, TaskInfo> {
  const info = new Map<string, TaskInfo>();
  const files = [...new Set(taskFiles)];
  if (files.length === 0) return info;
  try {
    for (const entry of loadTasks(files, { cwd }).files) {
      if (entry.task) info.set(entry.task.id, { title: entry.task.title ?? null, tags: [...(entry.task.tags ?? [])] });
    }
  } catch {
    // An unreadable path: the report goes on without titles.
  }
  return info;
}
