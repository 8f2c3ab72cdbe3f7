/**
 * What a command agent's folder (`agent/`, the one place under `--out` it may write) may hold. An
 * agent that filled `--out` made umpire's own writes (evidence, the final screenshot) fail (issue
 * #38). umpire measures the folder while the agent runs (without following links; disk blocks, so a
 * sparse file counts for what it takes) and ends the agent once it holds more than the cap; then
 * what the agent added beyond umpire's own files is removed, so the run has its space back.
 * A measurement, not a quota: between two measurements (about a second apart) an agent can write
 * past the cap; a full disk then is still a storage fault, never a silent gap.
 */
import { lstat, readdir, rm } from "node:fs/promises";
import { join } from "node:path";

/** Bytes on disk the agent's folder may hold. */
export const AGENT_FOLDER_MAX_BYTES = 64 * 1024 * 1024;
/** Files and folders it may hold (each is measured). */
export const AGENT_FOLDER_MAX_ENTRIES = 2_000;

export interface FolderUsage {
  bytes: number;
  entries: number;
}

/** The folder's usage, counting at most `maxEntries + 1` entries (enough to say it is over). */
export async function folderUsage(dir: string, maxEntries = AGENT_FOLDER_MAX_ENTRIES): Promise<FolderUsage> {
  const usage: FolderUsage = { bytes: 0, entries: 0 };
  const pending = [dir];
  while (pending.length > 0 && usage.entries <= maxEntries) {
    const folder = pending.pop()!;
    let names: string[];
    try {
      names = await readdir(folder);
    } catch {
      continue; // removed meanwhile, or not a folder any more
    }
    for (const name of names) {
      if (++usage.entries > maxEntries) break;
      const path = join(folder, name);
      const stat = await lstat(path).catch(() => null);
      if (!stat) continue;
      usage.bytes += stat.blocks * 512;
      if (stat.isDirectory()) pending.push(path);
    }
  }
  return usage;
}

/** Why the folder is over the cap, or null. */
export function overCap(usage: FolderUsage): string | null {
  const mb = (bytes: number) => `${Math.round(bytes / (1024 * 1024))} MB`;
  if (usage.entries > AGENT_FOLDER_MAX_ENTRIES)
    return `the agent's folder holds more than ${AGENT_FOLDER_MAX_ENTRIES} files, the cap`;
  if (usage.bytes > AGENT_FOLDER_MAX_BYTES)
    return `the agent's folder holds ${mb(usage.bytes)}, more than the cap of ${mb(AGENT_FOLDER_MAX_BYTES)}`;
  return null;
}

/**
 * Removes what the agent added to its folder beyond the names in `keep` (umpire's own files and the
 * contract's), once the agent has ended. Links are removed, never followed. Returns how many
 * entries were removed.
 */
export async function removeAgentExtras(dir: string, keep: ReadonlySet<string>): Promise<number> {
  const names = await readdir(dir).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    if (keep.has(name)) continue;
    await rm(join(dir, name), { recursive: true, force: true }).catch(() => undefined);
    removed += 1;
  }
  return removed;
}

/** Measures the folder at most once every `everyMs` while the agent runs; once over the cap it stays over. */
export function watchAgentFolder(dir: string, everyMs = 1_000): { check(): Promise<string | null> } {
  let last = -Infinity;
  let over: string | null = null;
  return {
    async check() {
      if (over || performance.now() - last < everyMs) return over;
      last = performance.now();
      over = overCap(await folderUsage(dir));
      return over;
    },
  };
}
