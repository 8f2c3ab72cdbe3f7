/**
 * umpire's typed errors. Each carries a stable code, a message that names the file / field
 * where it can, and a hint that says how to fix it. The CLI's one top-level handler prints
 * them and maps the code to an exit code; nothing else calls process.exit.
 */
export type ErrorCode =
  | "usage" // bad CLI arguments
  | "input" // a bad task file or other user-supplied file
  | "config" // an agent configuration that cannot work (missing key, unsupported mode)
  | "browser" // no browser could be found or launched
  | "store" // the database is unusable (newer schema, corrupt)
  | "not_found" // a run, trial or task that does not exist
  | "storage"; // umpire's own files or database cannot be written (disk full, read-only): umpire cannot continue

export class UmpireError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly hint?: string,
  ) {
    super(message);
    this.name = "UmpireError";
  }
}

export function isUmpireError(e: unknown): e is UmpireError {
  return e instanceof UmpireError;
}

/** Node's file-system codes that mean "this filesystem will not take our writes": not the agent's doing. */
const FS_FAULTS = new Set(["ENOSPC", "EDQUOT", "EROFS", "EIO", "EFBIG"]);
/** SQLite's (better-sqlite3 `SqliteError.code`) equivalents: full, I/O error, read-only. */
const SQLITE_FAULT = /^SQLITE_(FULL|IOERR|READONLY|CANTOPEN)/;

/**
 * True when `error` says umpire's own storage failed (a full or read-only disk, an I/O error), as
 * opposed to anything a trial did. Such a fault stops the run: storing a verdict that the harness
 * could not record truthfully would blame the agent for the harness.
 */
export function isStorageFault(error: unknown): boolean {
  if (error instanceof UmpireError) return error.code === "storage";
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (FS_FAULTS.has(code) || SQLITE_FAULT.test(code));
}

/** A `storage` error: which path, under which flag, and what the filesystem said. */
export class StorageFault extends UmpireError {
  constructor(
    /** The folder under --out or the --db file that could not be written. */
    readonly path: string,
    readonly flag: "--out" | "--db",
    /** In words: "no space left on the device", "the filesystem is read-only", ... */
    readonly what: string,
    /** The system's or SQLite's code, e.g. ENOSPC, SQLITE_FULL. */
    readonly systemCode: string,
    message = `cannot write ${path}: ${what} (${systemCode})`,
    hint = `free space there, or pass ${flag} on another filesystem`,
  ) {
    super("storage", message, hint);
  }
}

function faultWords(code: string): string {
  if (/ENOSPC|EDQUOT|EFBIG|SQLITE_FULL/.test(code)) return "no space left on the device";
  if (/EROFS|READONLY/.test(code)) return "the filesystem is read-only";
  if (/CANTOPEN/.test(code)) return "the file cannot be created or opened there (a read-only or unwritable folder)";
  return "the disk reported an I/O error";
}

/**
 * The `storage` error for a fault while writing `path` (a folder under --out or the --db file):
 * names the path and what went wrong. Whether the run was stored, and so what the fix is, only the
 * command knows (src/cli/run/storage-fault.ts words it). Returns `error` itself when it is not a storage fault.
 */
export function storageError(error: unknown, path: string, flag: "--out" | "--db"): unknown {
  if (!isStorageFault(error) || error instanceof UmpireError) return error;
  const code = String((error as { code?: unknown }).code);
  return new StorageFault(path, flag, faultWords(code), code);
}

/** Lines of a crashed program's output that say nothing about why: stack frames, Node's banner, carets. */
const NOISE_LINE =
  /^(\s+at |\s*\^+\s*$|Node\.js v\d|Traceback \(most recent call last\)|\s+File "|file:\/\/|node:internal\/|\/\S+:\d+$)/;
/** An error's own line: `TypeError: x`, `Error [ERR_X]: y`, Python's `ValueError: z`. */
const ERROR_LINE = /^(?:Uncaught )?(?:[A-Za-z_][\w.]*)?(?:Error|Exception)\b(?: \[[A-Z0-9_]+\])?:/;

/**
 * Why a command failed, from what it printed (stderr, else stdout): the error's own line when it
 * printed one (a Node or Python crash), else its last line that is not a stack frame or banner.
 * Clipped at a word, so a reason never starts or ends mid-word.
 */
export function failureLine(output: string, max = 300): string | undefined {
  const lines = output
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== "" && !NOISE_LINE.test(line));
  const line = (lines.find((l) => ERROR_LINE.test(l.trim())) ?? lines.at(-1))?.trim();
  if (!line || line.length <= max) return line;
  const cut = line.slice(0, max);
  return `${cut.slice(0, cut.lastIndexOf(" ") > max / 2 ? cut.lastIndexOf(" ") : max)}…`;
}

/**
 * What a thrown value says, as text: an Error's message (or an error-like object's `message`), else
 * the value itself as a string. The one way to put a caught `unknown` into a message.
 */
export function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  const message = (error as { message?: unknown } | null | undefined)?.message;
  return typeof message === "string" ? message : String(error);
}

/** The first line of `messageOf`: Playwright's errors append a call log after it, which a reason does not need. */
export function firstLineOf(error: unknown): string {
  return messageOf(error).split("\n")[0]!;
}
