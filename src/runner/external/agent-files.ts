/**
 * The files umpire shares with a command agent in the trial's `agent/` folder, a folder the agent
 * controls (issue #38 §1). umpire never follows the agent's names there:
 * - what umpire writes (stdout.log, stderr.log, events.jsonl's empty start, trial.json) is
 *   created once, before the agent starts, with O_CREAT|O_EXCL|O_NOFOLLOW, and written through that
 *   descriptor only: a link the agent puts in its place later changes nothing umpire writes (a link
 *   to the task's custom check module once made umpire append the agent's output to it);
 * - what the agent writes (events.jsonl, result.json) is read with O_NOFOLLOW|O_NONBLOCK, refused
 *   unless fstat says it is a regular file with one link, at most a capped number of bytes, and
 *   asynchronously (a named pipe in its place once froze the whole process for good).
 */
import { closeSync, constants, openSync, writeSync } from "node:fs";
import { open } from "node:fs/promises";

const NO_FOLLOW_NEW = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;
const NO_FOLLOW_READ = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Creates `path` (it must not exist: not a file, not a link) and returns its descriptor, mode 0600.
 * Throws when something is already there: the folder was supposed to be fresh.
 */
export function createOwnFile(path: string): number {
  return openSync(path, NO_FOLLOW_NEW, 0o600);
}

/** Creates `path` as `createOwnFile` does and writes `text` to it. */
export function writeOwnFile(path: string, text: string): void {
  const fd = createOwnFile(path);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * A capped log umpire appends the agent's output to, through a descriptor opened before the agent
 * started. A failed write (a full disk) is kept for the caller to raise, never thrown from a stream
 * handler (which would crash the process) and never ignored.
 */
export class OwnLog {
  private size = 0;
  private fault: unknown = null;
  private readonly fd: number;

  constructor(
    readonly path: string,
    private readonly cap: number,
  ) {
    this.fd = createOwnFile(path);
  }

  append(chunk: Buffer): void {
    if (this.fault || this.size >= this.cap) return;
    const part = chunk.subarray(0, this.cap - this.size);
    this.size += part.length;
    try {
      writeSync(this.fd, part);
    } catch (error) {
      this.fault = error;
    }
  }

  /** The error of the first write that failed, or null. */
  failed(): unknown {
    return this.fault;
  }

  close(): void {
    try {
      closeSync(this.fd);
    } catch {
      // already closed
    }
  }
}

export type AgentFileRead =
  | { status: "read"; bytes: Buffer; size: number }
  | { status: "missing" }
  /** There, but not something umpire reads: a link, a pipe, a device, a folder, a hard link. */
  | { status: "refused"; reason: string };

/**
 * Reads what the agent wrote at `path` from byte `offset`, at most `cap` bytes, without following
 * a link and without blocking on a pipe or device.
 */
export async function readAgentFile(path: string, offset: number, cap: number): Promise<AgentFileRead> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, NO_FOLLOW_READ);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { status: "missing" };
    if (code === "ELOOP" || code === "EMLINK")
      return { status: "refused", reason: "it is a symbolic link; umpire does not read through links" };
    return { status: "refused", reason: `it cannot be opened (${code ?? "error"})` };
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) return { status: "refused", reason: `it is ${kindOf(stat)}, not a regular file` };
    if (stat.nlink > 1)
      return { status: "refused", reason: `it has ${stat.nlink} links (a hard link to another file)` };
    const length = Math.max(0, Math.min(stat.size - offset, cap));
    const bytes = Buffer.alloc(length);
    const { bytesRead } = length > 0 ? await handle.read(bytes, 0, length, offset) : { bytesRead: 0 };
    return { status: "read", bytes: bytes.subarray(0, bytesRead), size: stat.size };
  } finally {
    await handle.close().catch(() => undefined);
  }
}

function kindOf(stat: { isFIFO(): boolean; isDirectory(): boolean; isSocket(): boolean }): string {
  if (stat.isFIFO()) return "a named pipe";
  if (stat.isDirectory()) return "a folder";
  if (stat.isSocket()) return "a socket";
  return "a device";
}
