/**
 * The fixture's task files name their custom checks by a path relative to the task file
 * (`module: ./checks/cricket.ts`). A test that copies a task file elsewhere reads it through
 * here, so the copy names the same module by its absolute path.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const FIXTURE_CHECKS_DIR = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "tasks", "checks");

/** The text of a fixture task file, its custom check modules made absolute. */
export function readFixtureTask(file: string): string {
  return readFileSync(file, "utf8").replace(/^(\s*module: )\.\/checks\//gm, `$1${FIXTURE_CHECKS_DIR}/`);
}
