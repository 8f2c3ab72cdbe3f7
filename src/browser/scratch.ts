/**
 * A temp folder per umpire process for Chromium's profile (Playwright makes the profile with
 * `mkdtemp(os.tmpdir())`), a command agent's trial browser and its sandbox's socket folder. Named
 * after the host and pid, so a later umpire can tell a leftover of a process that died (kill -9,
 * or a Ctrl-C that did not finish, leaves them behind) from a live one, and remove it.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";

const PREFIX = "umpire-browser-";

let claimed: string | undefined;

/** Folder names `umpire-browser-<host>-<pid>`; host names may contain '-', the pid is the last part. */
function ownerOf(name: string): { host: string; pid: number } | undefined {
  const match = /^umpire-browser-(.+)-(\d+)$/.exec(name);
  return match ? { host: match[1]!, pid: Number(match[2]) } : undefined;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code !== "ESRCH";
  }
}

/** Removes the browser folders of umpire processes on this host that no longer exist. Returns what it removed. */
export function removeDeadBrowserFolders(base = tmpdir()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return removed;
  }
  for (const name of names) {
    const owner = ownerOf(name);
    if (!owner || owner.host !== hostname() || owner.pid === process.pid || alive(owner.pid)) continue;
    try {
      rmSync(join(base, name), { recursive: true, force: true });
      removed.push(name);
    } catch {
      /* another umpire removed it first, or it is not ours to remove */
    }
  }
  return removed;
}

/**
 * This process's browser folder (created on first call, after removing dead processes' leftovers),
 * removed again when the process exits normally.
 */
export function browserScratchDir(): string {
  if (claimed) return claimed;
  const base = tmpdir();
  removeDeadBrowserFolders(base);
  claimed = join(base, `${PREFIX}${hostname()}-${process.pid}`);
  mkdirSync(claimed, { recursive: true });
  const dir = claimed;
  process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
  return claimed;
}

/** A new folder inside this process's temp folder (removed with it, and by the next umpire if this one is killed). */
export function processTempDir(prefix: string): string {
  return mkdtempSync(join(browserScratchDir(), prefix));
}
