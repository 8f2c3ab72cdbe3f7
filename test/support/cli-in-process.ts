/**
 * The CLI in this test's process: `main(args, io)` with the output kept as text. The same commands,
 * parsing, messages and exit codes as `node bin/umpire.js` (test/support/cli-child.ts), without a
 * node start and a fresh import of the whole CLI per call (about 0.8 CPU s each). Use the child where
 * the process is what the test is about: signals, kill -9, exit on a crash, what a real tty or the
 * environment of a spawned process sees.
 */
import { Writable } from "node:stream";
import { resolve } from "node:path";
import { main } from "../../src/cli/main.js";
import type { CommandIO } from "../../src/cli/io.js";

export const ROOT = resolve(import.meta.dirname, "../..");

export interface CapturedIO {
  io: CommandIO;
  text: { out: string; err: string };
  /** Aborts the command's signal, as a first Ctrl-C does. */
  abort: () => void;
}

export interface InProcessOptions {
  /** Added to a copy of this process's environment (as the child helper does), unless `bareEnv`. */
  env?: NodeJS.ProcessEnv;
  /** Use `env` as the whole environment. */
  bareEnv?: boolean;
  cwd?: string;
  /** Sees stderr (all of it so far) as it arrives. */
  onStderr?: (text: string) => void;
}

/** A CommandIO whose output is kept as text; `env` is used as given (nothing of process.env is added). */
export function capture(env: NodeJS.ProcessEnv = {}, cwd = ROOT, onStderr?: (text: string) => void): CapturedIO {
  const text = { out: "", err: "" };
  const controller = new AbortController();
  const sink = (key: "out" | "err") =>
    new Writable({
      write(chunk, _enc, done) {
        text[key] += String(chunk);
        if (key === "err") onStderr?.(text.err);
        done();
      },
    });
  const io: CommandIO = { stdout: sink("out"), stderr: sink("err"), env, cwd, signal: controller.signal };
  return { io, text, abort: () => controller.abort() };
}

/** Runs `umpire <args>` in-process to its end; the result has the child helper's shape. */
export async function runInProcess(
  args: string[],
  options: InProcessOptions = {},
): Promise<{ code: number; signal: null; stdout: string; stderr: string }> {
  const inherited = { ...process.env, NO_COLOR: "1", FORCE_COLOR: "0", ...options.env };
  const env = options.bareEnv ? (options.env ?? {}) : inherited;
  const { io, text } = capture(env, options.cwd ?? ROOT, options.onStderr);
  const code = await main(args, io);
  return { code, signal: null, stdout: text.out, stderr: text.err };
}
