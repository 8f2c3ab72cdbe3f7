/**
 * The real CLI as a child process (`node bin/umpire.js ...`): what a user or CI runs, for what only
 * a process shows — signals, exit codes, stdout and stderr as a user sees them.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "../..");
const BIN = join(ROOT, "bin/umpire.js");

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** Sees stderr (all of it so far) as it arrives, e.g. to kill the child at a chosen moment. */
  onStderr?: (text: string, child: ChildProcess) => void;
  onSpawn?: (child: ChildProcess) => void;
  /** A hang guard, not a timing assertion: a child still running then is killed (code null). */
  killAfterMs?: number;
}

export interface CliChild {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  done: Promise<CliResult>;
}

/** Starts `umpire <args>` (in the repository root unless `cwd` says otherwise). */
export function startCli(args: string[], options: CliOptions = {}): CliChild {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  options.onSpawn?.(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (c) => (stdout += String(c)));
  child.stderr!.on("data", (c) => {
    stderr += String(c);
    options.onStderr?.(stderr, child);
  });
  const guard = options.killAfterMs ? setTimeout(() => child.kill("SIGKILL"), options.killAfterMs) : undefined;
  const done = new Promise<CliResult>((resolveDone, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(guard);
      resolveDone({ code, signal, stdout, stderr });
    });
  });
  return { child, stdout: () => stdout, stderr: () => stderr, done };
}

/** Runs `umpire <args>` to its end. */
export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return startCli(args, options).done;
}

/** Polls `probe` until it returns a value other than undefined (or throws after `timeoutMs`). */
export async function waitFor<T>(probe: () => T | undefined, what: string, timeoutMs = 120_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = probe();
      if (value !== undefined) return value;
    } catch {
      // not there yet (the database may not exist)
    }
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 150));
  }
}
