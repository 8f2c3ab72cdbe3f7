/**
 * A run as a list of phases, each with its own teardown, the way Playwright Test's runner is a
 * list of tasks (`runner/tasks.ts`: `Task = { title, setup, teardown }`). The phases of
 * `umpire run` are select -> plan -> persist -> execute -> finish (`src/cli/run/run.ts`).
 *
 * The setups run in order. A setup may end the run early with an exit code (`--list` after the
 * plan); a setup that throws ends it with that error. Then the teardowns run in reverse order,
 * for every phase whose setup began (so a teardown must cope with a setup that stopped half way:
 * it releases only what exists). Every teardown runs even when one throws; the first error wins.
 * A phase whose resources must be released before the next phase starts runs its own list of
 * phases (`phaseGroup`): their teardowns run when the group ends.
 */

export interface Phase<Context> {
  title: string;
  /** Does the phase's work; a number ends the run there with that exit code. */
  setup: (context: Context) => Promise<number | void> | number | void;
  /** Releases what `setup` acquired, after the later phases are done or failed. */
  teardown?: (context: Context) => Promise<void> | void;
}

/** Runs `phases` over `context`; the exit code of the phase that ended the run, if one did. */
export async function runPhases<Context>(
  context: Context,
  phases: readonly Phase<Context>[],
): Promise<number | undefined> {
  const begun: Phase<Context>[] = [];
  let failure: { error: unknown } | undefined;
  let exitCode: number | undefined;
  for (const phase of phases) {
    begun.push(phase);
    try {
      const code = await phase.setup(context);
      if (typeof code === "number") {
        exitCode = code;
        break;
      }
    } catch (error) {
      failure = { error };
      break;
    }
  }
  for (const phase of begun.reverse()) {
    try {
      await phase.teardown?.(context);
    } catch (error) {
      failure ??= { error };
    }
  }
  if (failure) throw failure.error;
  return exitCode;
}

/** One phase made of `phases`, torn down when it ends (before the phases after the group start). */
export function phaseGroup<Context>(title: string, phases: readonly Phase<Context>[]): Phase<Context> {
  return { title, setup: (context) => runPhases(context, phases) };
}
