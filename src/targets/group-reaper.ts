/**
 * A target's app runs in a process group of its own (so umpire can end it and everything it
 * started), which also means it outlives an umpire that is killed with SIGKILL: a TiddlyWiki pool's
 * servers stayed up after each of three kills (issue #38). Node has no PR_SET_PDEATHSIG, so each app
 * group gets a reaper: a tiny shell loop, in a group of its own, that watches umpire and the app's
 * group, and ends the group (SIGTERM, then SIGKILL 2 s later) once umpire is gone. When the group
 * ends first (umpire stopped it), the reaper just exits.
 */
import { spawn } from "node:child_process";

const REAPER = `umpire=$1; group=$2
while kill -0 "$umpire" 2>/dev/null && kill -0 -"$group" 2>/dev/null; do sleep 0.5; done
kill -0 "$umpire" 2>/dev/null && exit 0
kill -TERM -"$group" 2>/dev/null; sleep 2; kill -KILL -"$group" 2>/dev/null; exit 0`;

export interface GroupReaper {
  /** Ends the reaper (umpire is stopping the group itself). */
  stop(): void;
}

/** Starts a reaper for process group `pgid` of this process; a no-op where no shell can start it. */
export function reapWithUmpire(pgid: number): GroupReaper {
  try {
    const reaper = spawn("/bin/sh", ["-c", REAPER, "umpire-reaper", String(process.pid), String(pgid)], {
      detached: true,
      stdio: "ignore",
    });
    reaper.on("error", () => undefined);
    // Never holds umpire open: it is umpire's death the reaper waits for.
    reaper.unref();
    return {
      stop: () => {
        try {
          reaper.kill("SIGKILL");
        } catch {
          // already gone
        }
      },
    };
  } catch {
    return { stop: () => undefined };
  }
}
