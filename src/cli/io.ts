/** The streams and environment a command may use; injected so commands are testable. */
export interface CommandIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  cwd: string;
  /** Aborted on Ctrl-C (first press); commands that run work should stop gracefully. */
  signal: AbortSignal;
}

/** A CLI command: parses its own arguments, returns the process exit code. */
export type Command = (argv: string[], io: CommandIO) => Promise<number>;

/** Resolves when the command's signal aborts (Ctrl-C): how a serving command waits to stop. */
export function untilAborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
  });
}
