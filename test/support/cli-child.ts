/**
 * The real CLI as a child process (`node bin/umpire.js ...`): what a user or CI runs, for what only
 * a process shows — signals, exit codes, stdout and stderr as a user sees them.
 */
import { execFile, spawn, type ChildProcess, type ExecFileOptions } from "node:child_process";
import { join, resolve } from "node:path";
import { promisify } from "node:util";

/**
 * Every child a test starts is killed after this long unless it says otherwise: below vitest's
 * testTimeout (600 s), so a hung `umpire` fails its one test with its output instead of holding
 * the whole suite (issue 37: a stuck `umpire run` child kept `npm test` waiting for good).
 * test/unit/house/child-hang-guards.test.ts fails on a child started without one.
 */
export const CHILD_KILL_AFTER_MS = 540_000;

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
  /** A hang guard, not a timing assertion: a child still running then is killed (code null). Default CHILD_KILL_AFTER_MS. */
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
    timeout: options.killAfterMs ?? CHILD_KILL_AFTER_MS,
    killSignal: "SIGKILL",
  });
  options.onSpawn?.(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (c) => (stdout += String(c)));
  child.stderr!.on("data", (c) => {
    stderr += String(c);
    options.onStderr?.(stderr, child);
  });
  const done = new Promise<CliResult>((resolveDone, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => {
      resolveDone({ code, signal, stdout, stderr });
    });
  });
  return { child, stdout: () => stdout, stderr: () => stderr, done };
}

/**
 * `promisify(execFile)` with the suite's hang guard: a child still running after `timeout`
 * (default CHILD_KILL_AFTER_MS) is killed, and the rejection carries its stdout and stderr.
 */
export function execChild(
  file: string,
  args: string[],
  options: ExecFileOptions & { maxBuffer?: number } = {},
): Promise<{ stdout: string; stderr: string }> {
  return promisify(execFile)(file, args, {
    timeout: CHILD_KILL_AFTER_MS,
    killSignal: "SIGKILL",
    ...options,
    encoding: "utf8",
  }) as Promise<{ stdout: string; stderr: string }>;
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
