/** Every exit code umpire uses, in one place. */
export const EXIT = {
  ok: 0,
  /** Some trial failed, a task is unsound, or a regression was found. */
  failed: 1,
  /** Bad usage or bad input (task files, arguments, configuration). */
  usage: 2,
  /**
   * umpire itself could not continue: its storage is full or unwritable, or an internal crash.
   * Never 1: a CI gate must not read the harness's trouble as the agent's failure.
   */
  internal: 4,
  /** Interrupted by the user (Ctrl-C). */
  interrupted: 130,
} as const;
