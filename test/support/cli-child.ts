/**
 * The real CLI as a child process (`node bin/umpire.js ...`): what a user or CI runs. Collects
 * stdout and stderr, resolves with the exit code; `onStderr` sees stderr as it arrives (to kill
 * the child at a chosen moment).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";

export const ROOT = join(import.meta.dirname, "../..");

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface CliOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  onStderr?: (text: string, child: ChildProcess) => void;
  onSpawn?: (child: ChildProcess) => void;
}

export function runCli(args: string[], options: CliOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(ROOT, "bin/umpire.js"), ...args], {
      cwd: options.cwd ?? ROOT,
      env: { ...process.env, FORCE_COLOR: "0", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    options.onSpawn?.(child);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => {
      stderr += c;
      options.onStderr?.(stderr, child);
    });
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}
