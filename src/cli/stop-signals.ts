/**
 * The signals that stop a command: Ctrl-C (SIGINT), SIGTERM (docker stop, a CI cancel) and SIGHUP
 * (the terminal closed) all do what Ctrl-C does. The first aborts the command's signal: the
 * trials in flight end `cancelled`, what exists is stored, the run stays resumable. A second one
 * stops at once. An action stuck in a browser call is abandoned after a few seconds, so a page that
 * stopped answering never holds the stop. The exit code says which signal it was, as a shell does:
 * 130, 143, 129.
 */
import { EXIT } from "./exit-codes.js";
import { CANCEL_GRACE_MS } from "../runner/trial/deadline.js";

const EXIT_FOR_SIGNAL = { SIGINT: EXIT.interrupted, SIGTERM: EXIT.terminated, SIGHUP: EXIT.hangup } as const;
type StopSignal = keyof typeof EXIT_FOR_SIGNAL;

export interface StopListener {
  /** The exit code of the signal that stopped the command (130 when none did). */
  exitCode(): number;
  remove(): void;
}

export function listenForStop(controller: AbortController): StopListener {
  let first: StopSignal | null = null;
  const on = (signal: StopSignal) => {
    if (first === null) {
      first = signal;
      const how = signal === "SIGINT" ? "interrupted" : `${signal} received`;
      process.stderr.write(
        // A browser call that does not answer is abandoned after CANCEL_GRACE_MS (src/runner/trial/deadline.ts).
        `\numpire: ${how}; finishing the current action (at most ${CANCEL_GRACE_MS / 1000} s) and storing what exists (Ctrl-C again to stop now)\n`,
      );
      controller.abort(new Error(signal === "SIGINT" ? "cancelled by user" : `cancelled by ${signal}`));
    } else {
      process.stderr.write("\numpire: stopping now\n");
      process.exit(EXIT_FOR_SIGNAL[first]);
    }
  };
  const handlers = Object.keys(EXIT_FOR_SIGNAL).map(
    (signal) => [signal as StopSignal, () => on(signal as StopSignal)] as const,
  );
  for (const [signal, handler] of handlers) process.on(signal, handler);
  return {
    exitCode: () => EXIT_FOR_SIGNAL[first ?? "SIGINT"],
    remove: () => {
      for (const [signal, handler] of handlers) process.off(signal, handler);
    },
  };
}
