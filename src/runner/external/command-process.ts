/**
 * A command agent's process as umpire watches it: its own process group (so the deadline ends the
 * command and everything it started), stdout and stderr captured into capped files in the trial's
 * agent folder (opened before the command started: agent-files.ts), its exit, and, in the sandbox,
 * whether the sandbox said it was up.
 */
import type { ChildProcess } from "node:child_process";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { OwnLog } from "./agent-files.js";
import { SANDBOX_READY_FD } from "./agent-sandbox.js";
import { firstLineOf } from "../../errors.js";

/** How long a command gets between SIGTERM and SIGKILL of its process group. */
export const KILL_GRACE_MS = 2_000;
/** Each of stdout.log and stderr.log keeps at most this much. */
const LOG_CAP = 256 * 1024;

export interface CommandExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** The program could not be started at all. */
  spawnError?: string;
}

export interface WatchedCommand {
  /** Resolves when the process exits (or could not start). */
  exit: Promise<CommandExit>;
  /** The exit, once it happened. */
  exited: () => CommandExit | null;
  /** The last 2,000 characters of stderr, for the crash's one-line reason. */
  stderrTail: () => string;
  /** In the sandbox: whether the sandbox said it was up; outside it, true. */
  sandboxUp: Promise<boolean>;
  /** SIGTERM to the group, then SIGKILL after the grace period (or at once when it exited). */
  killGroup: () => Promise<void>;
}

/** The command's stdout.log and stderr.log, created before it starts (a link it plants later is not followed). */
export interface CommandLogs {
  stdout: OwnLog;
  stderr: OwnLog;
  /** The first failed write of either (a full disk), or null. */
  failed(): { path: string; error: unknown } | null;
  close(): void;
}

export function openCommandLogs(agentDir: string): CommandLogs {
  const stdout = new OwnLog(join(agentDir, "stdout.log"), LOG_CAP);
  let stderr: OwnLog;
  try {
    stderr = new OwnLog(join(agentDir, "stderr.log"), LOG_CAP);
  } catch (error) {
    stdout.close();
    throw error;
  }
  return {
    stdout,
    stderr,
    failed: () => {
      const log = [stdout, stderr].find((l) => l.failed());
      return log ? { path: log.path, error: log.failed() } : null;
    },
    close: () => {
      stdout.close();
      stderr.close();
    },
  };
}

export function watchCommand(child: ChildProcess, logs: CommandLogs, sandboxed: boolean): WatchedCommand {
  const sandboxUp = sandboxed ? readySignal(child.stdio[SANDBOX_READY_FD] as Readable | null) : Promise.resolve(true);
  const pgid = child.pid;
  child.stdout!.on("data", (chunk: Buffer) => logs.stdout.append(chunk));
  let stderrTail = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    logs.stderr.append(chunk);
    stderrTail = (stderrTail + chunk.toString("utf8")).slice(-2_000);
  });
  const exit = new Promise<CommandExit>((resolve) => {
    child.once("error", (e) => resolve({ code: null, signal: null, spawnError: firstLineOf(e) }));
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  let exited: CommandExit | null = null;
  void exit.then((e) => (exited = e));
  const killGroup = async () => {
    if (pgid === undefined) return;
    signalGroup(pgid, "SIGTERM");
    const graceEnd = Date.now() + KILL_GRACE_MS;
    while (!exited && Date.now() < graceEnd) await sleep(50);
    signalGroup(pgid, "SIGKILL");
  };
  return { exit, exited: () => exited, stderrTail: () => stderrTail, sandboxUp, killGroup };
}

/**
 * Whether the sandbox said it was up (sandbox-init.mjs writes one line on SANDBOX_READY_FD before
 * the agent's command starts): resolves once it did, or once the descriptor closed without it.
 */
function readySignal(stream: Readable | null): Promise<boolean> {
  if (!stream) return Promise.resolve(false);
  return new Promise((resolve) => {
    // A hang guard only: the descriptor closes when the sandbox exits, and the line comes first.
    setTimeout(() => resolve(false), 10_000).unref();
    stream.once("data", () => {
      resolve(true);
      stream.resume();
    });
    stream.once("close", () => resolve(false));
    stream.once("end", () => resolve(false));
    stream.once("error", () => resolve(false));
  });
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}
