/**
 * Whether a check command crashed rather than judged: a wrong agent makes a check exit non-zero on
 * purpose; a check that cannot run (its interpreter or a module it imports not found, an uncaught
 * error) says nothing about the agent, so the trial is `error`, not `failed`. The rule, by what the
 * process left behind (docs/checks.md says it):
 * - exit 126 or 127 (the shell could not run it, or found no such command), or killed by a signal
 *   other than the timeout's (SIGSEGV, SIGABRT);
 * - or its stderr shows a runtime's crash: a Node stack (`    at f (file:1:2)`, `node:internal/...`),
 *   Node's module errors (`Cannot find module`, `ERR_MODULE_NOT_FOUND`), a Python traceback
 *   (`Traceback (most recent call last):`).
 * A crash is described by the line of stderr that says why: the last error line (`Error [...]: ...`,
 * `ModuleNotFoundError: ...`), else its last line that is not a stack frame or Node's version footer.
 * A failed assertion (`AssertionError`) is the check judging, not a crash.
 */
import type { CommandOutcome } from "./run-command.js";

const CRASH_SIGNS = [
  /^\s+at .+(:\d+:\d+\)?|\(native\)|\(<anonymous>\))$/m,
  /^node:internal\//m,
  /Cannot find module|ERR_MODULE_NOT_FOUND|ERR_UNKNOWN_FILE_EXTENSION/,
  /^Traceback \(most recent call last\):$/m,
];
const ERROR_LINE = /^(\w+(\.\w+)*(Error|Exception)\b|Error\b)(\s*\[[A-Z_]+\])?:\s/;
const NOISE = /^(\s+at |Node\.js v\d|\s*[}{\])^]+\s*$|\s+\^+\s*$|\s*(code|url|errno|syscall|path|requireStack):\s)/;

/** A one-line description of the crash (the stderr line that says why, and the exit), or null when it judged. */
export function crashOf(outcome: Pick<CommandOutcome, "code" | "signal" | "stderr">): string | null {
  const byExit = outcome.code === 126 || outcome.code === 127;
  const bySignal = outcome.code === null && outcome.signal !== null && outcome.signal !== "SIGTERM";
  // A failed assertion is a check judging (node:assert, Python's assert): its stack is no crash.
  const asserted = /^\s*AssertionError\b/m.test(outcome.stderr);
  const byStderr = !asserted && CRASH_SIGNS.some((sign) => sign.test(outcome.stderr));
  if (!byExit && !bySignal && !byStderr) return null;
  const exit = outcome.code === null ? `killed by ${outcome.signal}` : `exit ${outcome.code}`;
  const line = telling(outcome.stderr);
  return line
    ? `${line} (${exit})`
    : `it ${exit === `exit ${outcome.code}` ? `exited ${outcome.code}` : exit} with nothing on stderr`;
}

function telling(stderr: string): string | null {
  const lines = stderr
    .split(/\r?\n/)
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== "");
  const error = lines.findLast((l) => ERROR_LINE.test(l.trim()));
  const last = error ?? lines.findLast((l) => !NOISE.test(l));
  if (!last) return null;
  const text = last.trim();
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}
