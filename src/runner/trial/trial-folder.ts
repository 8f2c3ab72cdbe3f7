/**
 * A trial starts from an empty folder, always. The same `--run-id` and `--out` with a fresh
 * `--db` used to reuse the old trial folder, so a model that only answered "done" passed on the
 * note an earlier run had left in its workspace. A folder that is not empty (or is a link) is
 * moved aside, not deleted: it may be evidence someone still wants, and the new trial must not
 * inherit it.
 */
import { lstatSync, mkdirSync, readdirSync, renameSync } from "node:fs";

export interface FreshFolder {
  folder: string;
  /** Where an earlier, non-empty folder at the same path was moved; undefined when there was none. */
  movedAside?: string;
}

function code(e: unknown): string | undefined {
  return (e as NodeJS.ErrnoException).code;
}

/** Makes `folder` an empty, real directory, moving anything already there to `<folder>.stale-<time>`. */
export function freshTrialFolder(folder: string, now: () => Date = () => new Date()): FreshFolder {
  let stale = false;
  try {
    const stat = lstatSync(folder);
    stale = stat.isSymbolicLink() || !stat.isDirectory() || readdirSync(folder).length > 0;
  } catch (e) {
    if (code(e) !== "ENOENT") throw e;
  }
  let movedAside: string | undefined;
  if (stale) {
    const stamp = now().toISOString().replace(/[:.]/g, "-");
    for (let n = 1; ; n++) {
      const candidate = `${folder}.stale-${stamp}${n > 1 ? `-${n}` : ""}`;
      try {
        lstatSync(candidate);
        continue;
      } catch (e) {
        if (code(e) !== "ENOENT") throw e;
      }
      renameSync(folder, candidate);
      movedAside = candidate;
      break;
    }
  }
  mkdirSync(folder, { recursive: true });
  return movedAside ? { folder, movedAside } : { folder };
}
