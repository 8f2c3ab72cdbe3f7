/**
 * The `restore` reset: the app's data (a folder, or one file such as a SQLite database) replaced whole
 * by a seed copy before each trial, so every trial starts from the same state without a reset script.
 */
import { existsSync } from "node:fs";
import { cp, rm, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { TargetResetError } from "./contract.js";
import { messageOf } from "../errors.js";

export async function restoreSeed(from: string, to: string, target: string): Promise<void> {
  const seed = await stat(from).catch(() => undefined);
  if (!seed) throw new TargetResetError(`target ${target}: the restore reset's seed ${from} does not exist`);
  try {
    // Whole replacement: files the last trial created must not survive into the next.
    await rm(to, { recursive: true, force: true });
    // A SQLite database's journal and WAL belong to the state too: the seed's copies (or none) replace them.
    if (seed.isFile())
      await Promise.all(["-wal", "-shm", "-journal"].map((suffix) => rm(to + suffix, { force: true })));
    await cp(from, to, { recursive: true, preserveTimestamps: true });
    if (seed.isFile()) {
      for (const suffix of ["-wal", "-shm", "-journal"]) {
        if (await stat(from + suffix).catch(() => undefined)) await cp(from + suffix, to + suffix);
      }
    }
  } catch (error) {
    throw new TargetResetError(
      `target ${target}: the restore reset could not copy ${from} to ${to}: ${messageOf(error)}`,
    );
  }
}

/**
 * `umpire validate`'s look at the restore resets before any run: each `from:` that names a fixed
 * path (no `${...}`, which only an instance fills in) must exist, resolved as the reset resolves it
 * (against the config file's folder). Returns one line per missing seed: target, field, path.
 */
export function missingSeeds(
  targets: Readonly<Record<string, { reset: { kind: string; from?: string } }>>,
  configDir: string,
): { target: string; from: string; resolved: string }[] {
  const missing: { target: string; from: string; resolved: string }[] = [];
  for (const [target, decl] of Object.entries(targets)) {
    const from = decl.reset.kind === "restore" ? decl.reset.from : undefined;
    if (!from || from.includes("${")) continue;
    const resolved = resolve(configDir, from);
    if (!existsSync(resolved)) missing.push({ target, from, resolved });
  }
  return missing;
}
