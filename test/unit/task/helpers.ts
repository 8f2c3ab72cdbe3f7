/** Shared helpers for the task tests: temp folders with task files, and a valid base task. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { stringify } from "yaml";

/** The fixture suite's own check module (custom checks: note, answer). */
export const FIXTURE_CHECKS = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  "..",
  "..",
  "..",
  "tasks",
  "checks",
  "cricket.ts",
);

/** A small task that passes every rule; tests change one thing at a time. */
export function validTask(id = "sample-task"): Record<string, unknown> {
  return {
    id,
    title: "Sample task",
    instruction: "Find match BB-042 and save a note with its scores and result.",
    givens: ["BB-042"],
    tools: ["click", "write", "press", "scroll", "wait", "answer"],
    checks: [
      { kind: "file", path: "notes/BB-042.md", contains: ["BB-042", "Jaipur Kites won by 6 wickets"] },
      { kind: "effects", require: [{ type: "note_saved", count: 1, where: { name: "BB-042.md" } }] },
      // The fixture suite's cricket answer check: a custom check module, by absolute path.
      {
        kind: "custom",
        required: false,
        module: FIXTURE_CHECKS,
        export: "answer",
        options: { scores: ["168/6", "169/4"] },
      },
    ],
    reference: [
      { tool: "click", target: "search-box" },
      { tool: "write", args: { content: "BB-042", press_enter: true } },
      { tool: "answer", args: { content: "Saved." } },
    ],
  };
}

export interface TempTasks {
  dir: string;
  /** Writes `name` (relative to dir) with YAML text or an object to stringify; returns its path. */
  write(name: string, content: string | Record<string, unknown>): string;
  cleanup(): void;
}

export function tempTasks(): TempTasks {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "umpire-tasks-"));
  return {
    dir,
    write(name, content) {
      const file = path.join(dir, name);
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, typeof content === "string" ? content : stringify(content));
      return file;
    },
    cleanup: () => fs.rmSync(dir, { recursive: true, force: true }),
  };
}

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
