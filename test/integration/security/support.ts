/** Shared pieces of the attack tests: temp folders, trial folders and trial logs of a CLI run. */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface Scratch {
  dir: string;
  out: string;
  db: string;
  cleanup(): void;
}

export function scratch(prefix: string): Scratch {
  const dir = mkdtempSync(join(tmpdir(), `umpire-${prefix}-`));
  return {
    dir,
    out: join(dir, "runs"),
    db: join(dir, "umpire.db"),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The folder of a trial's first attempt, from its id (`<runId>-<seq4>`). */
export function trialFolder(out: string, runId: string, trialId: string): string {
  const seq = trialId.slice(runId.length + 1, runId.length + 5);
  const name = readdirSync(join(out, runId)).find((n) => n.startsWith(`${seq}-`) && !n.includes("--attempt"));
  if (!name) throw new Error(`no folder for trial ${trialId} in ${join(out, runId)}`);
  return join(out, runId, name);
}

/** Every event of a trial log. */
export function events(folder: string): { type: string; data: Record<string, any> }[] {
  return readFileSync(join(folder, "events.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}
