/**
 * A declared command started in a process group of its own (detached, so its whole group can be
 * ended), stdout and stderr piped: a string through the shell, an argv list as it is.
 */
export function spawnInGroup(
  command: string | readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): ChildProcessByStdio<null, Readable, Readable> {
  const [program, args, shell] =
    typeof command === "string" ? [command, [], true] : [command[0]!, command.slice(1), false];
  return spawn(program, args as string[], {
    cwd: options.cwd,
    env: options.env,
    shell,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/**
 * Runs a command from a task or config file (never from model output) with the trial's
 * variables in its environment, a deadline that ends its whole process group, and its output kept.
 */
import { spawn, type ChildProcessByStdio } from "node:child_process";
import type { Readable } from "node:stream";

export interface CommandOutcome {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  error?: string;
}

const MAX_OUTPUT = 1_000_000;

export function runCommand(
  command: string | readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number },
): Promise<CommandOutcome> {
  return new Promise((resolve) => {
    const child = spawnInGroup(command, options);
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.on("data", (d: Buffer) => (stdout = (stdout + d.toString()).slice(-MAX_OUTPUT)));
    child.stderr.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-MAX_OUTPUT)));
    const timer = setTimeout(() => {
      timedOut = true;
      try {
        if (child.pid) process.kill(-child.pid, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
      }
    }, options.timeoutMs);
    child.on("error", (e) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, stdout, stderr, timedOut, error: e.message });
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
}
