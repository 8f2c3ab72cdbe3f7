/** Every exit code umpire uses, in one place. */
export const EXIT = {
  ok: 0,
  /** Some trial failed, a task is unsound, or a regression was found. */
  failed: 1,
  /** Bad usage or bad input (task files, arguments, configuration). */
  usage: 2,
  /** Interrupted by the user (Ctrl-C). */
  interrupted: 130,
} as const;
