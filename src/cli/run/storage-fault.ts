/**
 * What a full or unwritable disk means for `umpire run`, said for where the run got to: a fault
 * before the run was stored leaves nothing to resume (run the command again); a fault while a
 * resumed run had not been reopened leaves that run as it was; a fault after the run was stored
 * stopped it, marked it interrupted, and `--resume <that run>` finishes it. A resumed run keeps
 * its folder, so `--out` cannot move it: the fix for a full `--out` is space there.
 */
import { resolve } from "node:path";
import { StorageFault } from "../../errors.js";

/** How far the run got; the command fills it in as it goes. */
export interface RunStage {
  /** Set by --resume once the stored run was read (not yet reopened). */
  resuming?: string;
  /** Set once the run (new or resumed) is stored and running. */
  stored?: { runId: string; runDir: string };
}

/** `error` worded for the run's stage when it is a storage fault; anything else as it is. */
export function storageFaultInRun(error: unknown, stage: RunStage): unknown {
  if (!(error instanceof StorageFault)) return error;
  const cannot = `cannot write ${error.path}: ${error.what} (${error.systemCode})`;
  const room = error.what.startsWith("no space")
    ? "free space there"
    : error.what.includes("I/O")
      ? "check that disk"
      : "make it writable";
  if (stage.stored) {
    const { runId, runDir } = stage.stored;
    const fix =
      error.flag === "--db"
        ? `${room}, then finish it: umpire run --resume ${runId} --db ${error.path}`
        : `${room}, then finish it: umpire run --resume ${runId} ` +
          `(a resumed run writes into its own folder, ${runDir}, whatever --out says)`;
    return fault(error, `${cannot}; run ${runId} was stopped and marked interrupted (finished trials are kept)`, fix);
  }
  if (stage.resuming) {
    const runId = stage.resuming;
    const fix = `${room}, then umpire run --resume ${runId}`;
    return fault(error, `${cannot}; run ${runId} was not resumed and is as it was`, fix);
  }
  const fix = `${room}, or pass ${error.flag} on another filesystem; then run the same command again`;
  return fault(error, `${cannot}; the run did not start and nothing of it was stored`, fix);
}

function fault(from: StorageFault, message: string, hint: string): StorageFault {
  return new StorageFault(from.path, from.flag, from.what, from.systemCode, message, hint);
}

/**
 * The line `--resume` prints when `--out` names another place than the run's folder: a resumed
 * run keeps its folder (its earlier attempts, its report links), so --out is not used. Null when
 * --out was not given or names the same place.
 */
export function resumeIgnoresOut(outGiven: boolean, outDir: string, runDir: string, runId: string): string | null {
  if (!outGiven || resolve(runDir) === resolve(outDir, runId)) return null;
  return (
    `umpire: --out ${outDir} is ignored by --resume: run ${runId} keeps its folder, ${runDir} ` +
    "(its earlier attempts and report links are there); new attempts are written there too"
  );
}
