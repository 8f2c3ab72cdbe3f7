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
  | "not_found"; // a run, trial or task that does not exist

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
