/**
 * Every exit code umpire uses, in one place (docs/running.md "Exit codes", `umpire run --help`).
 * CI can tell the causes apart: the agent failed (1), the infrastructure failed (3), umpire
 * itself could not do its whole job (4), the user stopped it (130).
 */
export const EXIT = {
  ok: 0,
  /** Some trial failed, a task is unsound, or a regression was found. */
  failed: 1,
  /** Bad usage or bad input (task files, arguments, configuration, a dead or wrong model endpoint found by the preflight). */
  usage: 2,
  /** Some trial ended in verdict `error` (infrastructure) after its retry, and none failed. */
  infrastructure: 3,
  /**
   * umpire itself could not continue or do its whole job: its storage is full or unwritable, a
   * reporter broke, or an internal crash. Never 1: a CI gate must not read the harness's trouble
   * as the agent's failure.
   */
  internal: 4,
  /** Interrupted by the user (Ctrl-C). */
  interrupted: 130,
  /** Stopped by SIGTERM (docker stop, a CI cancel): handled as Ctrl-C, exit 128 + 15. */
  terminated: 143,
  /** Stopped by SIGHUP (the terminal closed): handled as Ctrl-C, exit 128 + 1. */
  hangup: 129,
} as const;

/** The verdicts of a run's trials, counted for its exit code. */
export interface VerdictCounts {
  failed: number;
  errors: number;
}

/**
 * A finished run's exit code. A failure outranks an infrastructure error (the agent's result is
 * known to be bad); a broken reporter outranks both, since the output CI reads may be incomplete.
 */
export function runExitCode(counts: VerdictCounts, opts: { interrupted: boolean; reporterFailed: boolean }): number {
  if (opts.interrupted) return EXIT.interrupted;
  if (opts.reporterFailed) return EXIT.internal;
  if (counts.failed > 0) return EXIT.failed;
  if (counts.errors > 0) return EXIT.infrastructure;
  return EXIT.ok;
}

/**
 * The "exit codes" part of a command's help: each code's number from `EXIT`, so help cannot
 * show a number the code does not use; the words are the command's own.
 */
export function exitCodesHelp(meanings: Partial<Record<keyof typeof EXIT, string>>): string {
  const entries = Object.entries(meanings) as [keyof typeof EXIT, string][];
  const width = Math.max(...entries.map(([name]) => String(EXIT[name]).length)) + 2;
  const lines = entries.map(([name, text]) => {
    const [first, ...rest] = text.split("\n");
    const more = rest.map((line) => `  ${" ".repeat(width)} ${line}`);
    return [`  ${String(EXIT[name]).padEnd(width)} ${first}`, ...more].join("\n");
  });
  return `exit codes\n${lines.join("\n")}\n`;
}
