/**
 * The real CLI as a child process (`node bin/umpire.js ...`), for tests that reproduce an attack
 * the way a user or CI would meet it: separate process, real exit code, real stdout/stderr.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { CHILD_KILL_AFTER_MS } from "./cli-child.js";

export const REPO_ROOT = join(import.meta.dirname, "../..");
const BIN = join(REPO_ROOT, "bin/umpire.js");

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `umpire <args>` to completion. `killAfterMs` is a hang guard, not a timing assertion: a
 * child still running then is killed and reported with code null, so a hang fails the test.
 */
export function runCli(
  args: string[],
  options: { cwd?: string; env?: Record<string, string>; killAfterMs?: number } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: options.cwd ?? REPO_ROOT,
      env: { ...process.env, NO_COLOR: "1", ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
      // The hang guard (CHILD_KILL_AFTER_MS unless given): a child still running then is killed, code null.
      timeout: options.killAfterMs ?? CHILD_KILL_AFTER_MS,
      killSignal: "SIGKILL",
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) => {
      resolve({ code, stdout, stderr });
    });
  });
}

/** Starts a long-running command (serve-*) and resolves once stdout contains `ready`. */
export function startCli(
  args: string[],
  ready: RegExp,
): Promise<{ child: ChildProcess; stdout: () => string; stop: () => Promise<void> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: REPO_ROOT,
      env: { ...process.env, NO_COLOR: "1" },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: CHILD_KILL_AFTER_MS,
      killSignal: "SIGKILL",
    });
    let stdout = "";
    let stderr = "";
    const stop = () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once("close", () => done());
        child.kill("SIGINT");
      });
    child.stdout!.on("data", (c) => {
      stdout += c;
      if (ready.test(stdout)) resolve({ child, stdout: () => stdout, stop });
    });
    child.stderr!.on("data", (c) => (stderr += c));
    child.on("close", (code) =>
      reject(new Error(`umpire ${args.join(" ")} exited ${code} before it was ready: ${stderr}`)),
    );
  });
}
