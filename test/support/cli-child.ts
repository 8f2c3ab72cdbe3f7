/**
 * The real CLI as a child process (`node bin/umpire.js ...`): for what only a process shows —
 * signals, exit codes, stdout and stderr as a user sees them.
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

export interface CliChild {
  child: ChildProcess;
  stdout: () => string;
  stderr: () => string;
  done: Promise<CliResult>;
}

/** Starts `umpire <args>` in the repository root. */
export function startCli(args: string[], env: NodeJS.ProcessEnv = {}): CliChild {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: "1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (c) => (stdout += String(c)));
  child.stderr!.on("data", (c) => (stderr += String(c)));
  const done = new Promise<CliResult>((resolveDone) => {
    child.on("close", (code, signal) => resolveDone({ code, signal, stdout, stderr }));
  });
  return { child, stdout: () => stdout, stderr: () => stderr, done };
}

/** Runs `umpire <args>` to its end. */
export function runCli(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return startCli(args, env).done;
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
